"""Review test material.

``sample_draft``: a real draft — the offline drafter's output for the shipped sample,
pinned at the sample commit — with one witness quote broken on purpose, so the review
sees verified and not-found badges side by side.

``tiny_draft``: a small hand-built draft over a tiny repository with fixed commit
dates, for screenshots that must not move when the sample or the drafter changes.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from fakes import make_record, make_report

from drafter.model import Report, Source
from drafter.sample import materialize
from graph.offline_run import draft_offline


def sample_draft(base: Path) -> tuple[Path, Path, str]:
    """Write ``base/draft.json``; returns (draft, repo, ID of the record with a broken quote)."""
    repo = materialize(base / "repo")
    report = draft_offline(repo.path, repo.sha, base / "data", system="repo")
    assert report.source is not None and report.source.revision == repo.sha
    two = [r for r in report.records if len(r.witnesses) >= 2]
    assert two, "the offline draft of the sample has no record with two witnesses"
    broken = next((r for r in two if r.kind == "CLM"), two[0])
    w = broken.witnesses[0]
    w.quote = w.quote + " (and nothing else)"
    w.verification = None
    draft = base / "draft.json"
    draft.write_text(report.to_json(), encoding="utf-8")
    return draft, repo.path, broken.id


_AGENT_PY = '''"""A tiny agent loop."""

import json
import subprocess

MAX_STEPS = 8


def call_model(client, messages):
    return client.messages.create(model="claude-x", messages=messages)


def run_tool(command):
    return subprocess.run(command, shell=True, capture_output=True, text=True)


def loop(client, task):
    messages = [{"role": "user", "content": task}]
    for step in range(MAX_STEPS):
        reply = call_model(client, messages)
        if not reply.tool_calls:
            break
        for call in reply.tool_calls:
            out = run_tool(call.command)
            messages.append({"role": "tool", "content": out.stdout})
    with open("runs.jsonl", "a") as fh:
        fh.write(json.dumps(messages) + "\\n")
    return messages
'''

_README = """# tiny

The agent runs shell commands in a sandbox with no internet access.
"""


def _git(repo: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": "2024-01-02T03:04:05Z",
        "GIT_COMMITTER_DATE": "2024-01-02T03:04:05Z",
        "GIT_CONFIG_NOSYSTEM": "1",
        "HOME": str(repo),
    }
    return subprocess.run(
        [
            "git",
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
            "-C",
            str(repo),
            *args,
        ],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout.strip()


def tiny_report(sha: str) -> Report:
    cmp_ = make_record(
        "RT-CMP-model",
        "Task model",
        "Source-native identity: `claude-x` through `call_model`. "
        "Representational form: distributed-parametric. "
        "Storage substrate: external provider.",
        [('return client.messages.create(model="claude-x", messages=messages)', "agent.py")],
    )
    obj = make_record(
        "RT-OBJ-run-log",
        "Run log",
        "Source-native identity: runs.jsonl. Representational form: JSON lines. "
        "Storage substrate: local file, appended once per loop.",
        [('with open("runs.jsonl", "a") as fh:', "agent.py")],
    )
    rte = make_record(
        "RT-RTE-agent-loop",
        "Agent loop",
        "Endpoints/progression: loop → call_model → run_tool → runs.jsonl. "
        "The loop stops on a reply **without** tool calls or after `MAX_STEPS`.",
        [
            ("for step in range(MAX_STEPS): reply = call_model(client, messages)", "agent.py"),
            ("out = run_tool(call.command)", "agent.py"),
            ("messages.append({'role': 'tool'})", "agent.py"),
        ],
        [
            ("implementation conclusion status", "wired"),
            ("operation conclusion status", "uninspected"),
            ("Immediate return", "the message list"),
            ("Selection predicate", "reply has tool calls"),
            ("Activation or effect", "shell commands run through subprocess"),
        ],
        part_of="RT-CMP-model",
    )
    clm = make_record(
        "RT-CLM-no-internet",
        "No internet for shell commands",
        "Claimed operation: shell commands have no internet access. "
        "Nothing in `run_tool` restricts the network.",
        [("The agent runs shell commands in a sandbox with no internet access.", "README.md")],
        [("implementation conclusion status", "claimed")],
    )
    return make_report(
        [cmp_, obj, rte, clm], system="tiny", source=Source(repository="tiny", revision=sha)
    )


def tiny_draft(base: Path) -> tuple[Path, Path]:
    """A deterministic tiny repository and a four-record draft about it."""
    repo = base / "tiny"
    repo.mkdir(parents=True)
    (repo / "agent.py").write_text(_AGENT_PY)
    (repo / "README.md").write_text(_README)
    _git(repo, "init", "-q")
    _git(repo, "add", "agent.py", "README.md")
    _git(repo, "commit", "-q", "-m", "tiny agent")
    sha = _git(repo, "rev-parse", "HEAD")
    draft = base / "tiny.json"
    draft.write_text(tiny_report(sha).to_json(), encoding="utf-8")
    return draft, repo
