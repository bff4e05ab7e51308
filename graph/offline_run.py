"""Draft offline through the workflow from Python (scripts, benchmarks, tests).

This is not a second pipeline: it calls :func:`graph.runner.run_draft` with the
offline settings ``drafter draft --offline`` uses, so everything a caller gets went
through the same LangGraph nodes, checkpoint and verifier as a CLI run.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TypedDict, Unpack

from drafter import defaults
from drafter.model import Report
from graph.configuration import Configuration
from graph.proposers.factory import build_proposer
from graph.runner import RunResult, run_draft


def run_offline(
    repo: Path | str,
    rev: str = "HEAD",
    data_dir: Path | None = None,
    *,
    system: str | None = None,
    thorough: bool = False,
    max_records: int | None = None,
    use_index: bool = False,
) -> RunResult:
    """One offline run of the workflow; a temporary data dir when none is given."""
    config = Configuration(
        generator="offline",
        max_records=max_records or defaults.max_records("offline", thorough),
        thorough=thorough,
    )
    if data_dir is None:
        with tempfile.TemporaryDirectory(prefix="drafter-offline-") as tmp:
            return run_offline(
                repo, rev, Path(tmp), system=system, thorough=thorough,
                max_records=max_records, use_index=use_index,
            )  # fmt: skip
    return run_draft(
        str(repo), rev, config, build_proposer, data_dir=data_dir, system=system,
        use_index=use_index,
    )  # fmt: skip


class OfflineOptions(TypedDict, total=False):
    """The keyword options of :func:`run_offline`, for callers that pass them on."""

    system: str | None
    thorough: bool
    max_records: int | None
    use_index: bool


def draft_offline(
    repo: Path | str,
    rev: str = "HEAD",
    data_dir: Path | None = None,
    **kw: Unpack[OfflineOptions],
) -> Report:
    """The report of :func:`run_offline` (witnesses verified by the workflow)."""
    result = run_offline(repo, rev, data_dir, **kw)
    if result.report is None:
        raise RuntimeError(f"offline run {result.thread_id} ended without a draft")
    return result.report
