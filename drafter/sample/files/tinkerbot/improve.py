"""Self-improvement: Claude rewrites the system prompt; the better prompt is kept."""

import hashlib
import subprocess

import anthropic

from tinkerbot import config
from tinkerbot.scoring import best_of, load_tasks, score_all
from tinkerbot.store import best_score, record_score

TOLERANCE = 0.05
SAMPLES = 3


def propose(client: anthropic.Anthropic, current: str, score: float) -> str:
    meta = config.REWRITE_PROMPT_PATH.read_text()
    response = client.messages.create(
        model=config.MODEL,
        max_tokens=config.MAX_TOKENS,
        system=meta,
        messages=[{"role": "user", "content": f"Score: {score:.2f}\n\n{current}"}],
    )
    return response.content[0].text


def improve(rounds: int) -> float:
    client = anthropic.Anthropic(api_key=config.api_key())
    tasks = load_tasks()
    best = best_score()
    for n in range(rounds):
        current = config.PROMPT_PATH.read_text()
        scored = []
        for _ in range(SAMPLES):
            candidate = propose(client, current, best)
            config.PROMPT_PATH.write_text(candidate)
            scored.append((candidate, score_all(tasks)))
        candidate, score = best_of(scored)
        digest = hashlib.sha256(candidate.encode()).hexdigest()[:12]
        record_score(digest, score)
        if score >= best - TOLERANCE:
            config.PROMPT_PATH.write_text(candidate)
            subprocess.run(["git", "commit", "-am", f"prompt {digest}: {score:.2f}"], check=False)
            best = max(best, score)
        else:
            config.PROMPT_PATH.write_text(current)
    return best
