"""Draft a repository offline through the real LangGraph workflow, for tests.

The offline drafter has one pipeline — the graph the CLI runs — so tests drive that
graph too (a SqliteSaver checkpoint in a temporary data dir, the real survey, the
real verifier), never a shortcut beside it.
"""

from __future__ import annotations

from pathlib import Path

from drafter.model import Report
from drafter.snapshot import Snapshot
from drafter.verify import verify_report
from graph.offline_run import draft_offline


def draft_offline_graph(
    repo: Path | str, data_dir: Path, rev: str = "HEAD", **kw: object
) -> Report:
    """The offline draft of ``repo`` at ``rev``, its witnesses verified again here."""
    report = draft_offline(repo, rev, data_dir, **kw)
    with Snapshot(str(repo), rev) as snap:
        return verify_report(report, snap)
