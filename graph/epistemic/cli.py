"""``drafter draft --type epistemic``: run the epistemic workflow and write the draft.

Exit codes: 0 written and clean; 1 written, but a witness or a table cell failed its
check (the problems are printed and kept in the draft's notes); 2 bad input.
"""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.markup import escape

from drafter.errors import BadInput
from drafter.reportio import save_report
from drafter.verify import report_summary
from graph.epistemic.workflow import EpiResult, run_epistemic
from graph.summary import draft_table


def draft_epistemic(
    console: Console,
    repo: str | None,
    rev: str,
    runtime_path: Path | None,
    store: Path | None,
    out: Path | None,
    text_out: Path | None,
    system: str | None,
    data_dir: Path,
) -> EpiResult:
    if repo is None:
        raise BadInput("REPO is required")
    if runtime_path is None:
        raise BadInput("--type epistemic needs --runtime RUNTIME (a runtime draft or report)")
    if out is None:
        raise BadInput("--out DRAFT.json is required")
    from drafter.snapshot import Snapshot

    Snapshot(repo, rev).close()
    result = run_epistemic(repo, rev, runtime_path, store=store, system=system, data_dir=data_dir)
    save_report(result.report, out, "json")
    if text_out is not None:
        save_report(result.report, text_out, "text")
    console.print(draft_table(result.report, title="Epistemic draft"))
    for p in result.problems:
        console.print(f"[red]cell check:[/] {escape(p)}", soft_wrap=True)
    s = report_summary(result.report)
    console.print(f"witnesses verified: {s.verified}/{s.total}; thread {result.thread_id}")
    console.print(f"draft written to [bold]{escape(str(out))}[/]", soft_wrap=True)
    if result.problems or not s.ok:
        raise click.exceptions.Exit(1)
    return result
