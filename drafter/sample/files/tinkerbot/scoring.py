"""Score a prompt by running the agent on every task and checking the workspace."""

import json
import subprocess
from pathlib import Path

from tinkerbot.agent import run_task
from tinkerbot.config import THRESHOLD, WORKSPACE

TASKS_FILE = Path(__file__).resolve().parent.parent / "tasks" / "tasks.jsonl"


def load_tasks() -> list[dict]:
    return [json.loads(line) for line in TASKS_FILE.read_text().splitlines() if line.strip()]


def check(task: dict) -> bool:
    """A task passes when its check command exits 0 in the workspace."""
    proc = subprocess.run(task["check"], shell=True, cwd=WORKSPACE, timeout=30)
    return proc.returncode == 0


def score_all(tasks: list[dict]) -> float:
    passed = 0
    for task in tasks:
        run_task(task)
        if check(task):
            passed += 1
    return passed / len(tasks) if tasks else 0.0


def passes(score: float) -> bool:
    return score >= THRESHOLD


def best_of(candidates: list[tuple[str, float]]) -> tuple[str, float]:
    """Pick the highest-scoring candidate; the first one wins a tie."""
    return max(candidates, key=lambda c: c[1])
