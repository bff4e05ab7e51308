"""Draft a repository offline through the real LangGraph workflow, for tests.

The offline drafter has one pipeline — the graph the CLI runs — so tests drive that
graph too (a SqliteSaver checkpoint in a temporary data dir, the real survey, the
real verifier), never a shortcut beside it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from gitrepo import make_repo

from drafter.model import Report
from drafter.snapshot import Snapshot
from drafter.verify import verify_report
from graph.offline_run import draft_offline
from retrieval.survey import Survey, run_survey


def draft_offline_graph(
    repo: Path | str, data_dir: Path, rev: str = "HEAD", **kw: object
) -> Report:
    """The offline draft of ``repo`` at ``rev``, its witnesses verified again here."""
    report = draft_offline(repo, rev, data_dir, **kw)
    with Snapshot(str(repo), rev) as snap:
        return verify_report(report, snap)


def draft_files(root: Path, files: Mapping[str, str], **kw: object) -> Report:
    """``files`` committed as a repository at ``root/r``, drafted offline (data in
    ``root/data``)."""
    return draft_offline_graph(make_repo(root / "r", files), root / "data", **kw)


def survey_and_draft(root: Path, files: Mapping[str, str], **kw: object) -> tuple[Survey, Report]:
    """As :func:`draft_files`, with the survey the draft was made from."""
    repo = make_repo(root / "r", files)
    with Snapshot(repo, "HEAD") as snap:
        survey = run_survey(snap)
    return survey, draft_offline_graph(repo, root / "data", **kw)
