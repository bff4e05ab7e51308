"""Saved drafts of public repositories carry no code of those repositories.

The labelled pairs' drafts were redacted by ``python -m evals.redact``: quotes become
their code names, verbatim code runs in prose likewise.  These tests check the rule by
hand on small inputs and check that every saved draft of another repository is redacted.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.redact import GRAM, names, redact_prose, redact_quote
from evals.similarity import _CODE

DATA = Path(__file__).parent / "data" / "eval_labels"
#: Drafts of public repositories (the sample draft is this project's own text).
REDACTED = sorted(p for p in DATA.glob("*.draft.json") if not p.name.startswith("sample-"))


def _grams(*texts: str) -> set[str]:
    return {t[i : i + GRAM] for t in texts for i in range(len(t) - GRAM + 1)}


def test_a_quote_keeps_its_names_and_a_hash_only() -> None:
    quote = 'MODEL = os.environ.get("AGENT_MODEL", "gpt-5")  # default'
    red = redact_quote(quote)
    assert red.startswith("[redacted quote ") and "gpt-5" not in red and "default" not in red
    assert _CODE.findall(red) == _CODE.findall(quote) == ["os.environ.get", "AGENT_MODEL"]
    assert redact_quote(red) == red  # idempotent
    other = redact_quote('MODEL = os.environ.get("AGENT_MODEL", "o3")')
    assert other != red  # same names, different quote: still two witnesses


def test_prose_code_runs_are_redacted_and_mentions_kept() -> None:
    source = "score = run_suite(tasks, limit=3) if ready else None\ndef run_suite(tasks):"
    grams = _grams(" ".join(source.split()))
    prose = (
        "Found: score = run_suite(tasks, limit=3) if ready (line 4). "
        "The gate calls run_suite() in gate.py and keeps the best score."
    )
    out = redact_prose(prose, grams)
    assert "limit=3" not in out and "[redacted code: run_suite]" in out
    assert "The gate calls run_suite() in gate.py and keeps the best score." in out
    assert _CODE.findall(out) == _CODE.findall(prose)
    assert redact_prose(out, grams | _grams(out)) == out  # a second run changes nothing
    # prose not found in the repository stays, even with code punctuation
    assert redact_prose('x = "made up" here, not quoted', grams) == 'x = "made up" here, not quoted'
    assert names("a_b.c d EFG_H") == "a_b.c EFG_H"


def test_text_min_also_redacts_long_documentation_runs() -> None:
    doc = "The gate keeps a candidate only when it scores at least the best so far."
    grams = _grams(doc)
    prose = f"Claimed operation: {doc} Source: README.md."
    assert redact_prose(prose, grams) == prose  # no code punctuation: kept by default
    out = redact_prose(prose, grams, text_min=40)
    assert "scores at least the best" not in out and out.startswith("Claimed operation: ")


@pytest.mark.parametrize("path", REDACTED, ids=lambda p: p.name)
def test_saved_drafts_of_other_repositories_are_redacted(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    quotes: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("witness"), dict):
                quotes.append(node["witness"]["quote"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(data)
    assert quotes and all(q.startswith("[redacted quote ") for q in quotes)


def test_a_file_missing_from_the_clone_is_skipped_and_named(tmp_path: Path) -> None:
    """A mirror may leave out a large data file's blob; redaction must not stop on it."""
    import subprocess

    from drafter.snapshot import Snapshot
    from evals.redact import corpus_grams
    from tests.gitrepo import make_repo

    repo = make_repo(
        tmp_path / "r",
        {"agent.py": "def run_agent(task):\n    return task\n", "data/big.csv": "a,b\n1,2\n"},
    )
    oid = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD:data/big.csv"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    (repo / ".git" / "objects" / oid[:2] / oid[2:]).unlink()
    absent: list[str] = []
    with Snapshot(repo, "HEAD") as snap:
        grams = corpus_grams(snap, "see data/big.csv and agent.py", absent)
    assert absent == ["data/big.csv"]
    assert "def run_agent(task):"[:GRAM] in grams
