"""Review test material: a draft of the shipped sample, pinned at the sample commit.

The draft is the sample gold report (parsed by the core) with its source pinned and
one witness quote broken on purpose, so the review sees verified and not-found
badges side by side like in a real machine draft.
"""

from __future__ import annotations

from pathlib import Path

from drafter.model import Source
from drafter.reportio import load_report
from drafter.sample import gold_path, materialize

#: The record whose first witness is broken in the test draft.
BROKEN_RECORD = "RT-CLM-no-internet"


def sample_draft(base: Path) -> tuple[Path, Path]:
    """Write ``base/draft.json`` about a sample repository at ``base/repo``."""
    repo = materialize(base / "repo")
    report = load_report(gold_path())
    report.source = Source(repository=repo.identity, revision=repo.sha)
    rec = report.record(BROKEN_RECORD)
    assert rec is not None
    w = rec.witnesses[0]
    w.quote = w.quote + " (and nothing else)"
    draft = base / "draft.json"
    draft.write_text(report.to_json(), encoding="utf-8")
    return draft, repo.path
