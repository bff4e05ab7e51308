"""The command side of the one runner: what ``drafter draft`` says around any run.

Why: a run of either workflow is started, stopped and written the same way, so the
lines an analyst reads around it must not differ by report type.  :func:`drive` prints
the thread ID, tells how to resume once the run's first step is on disk (never
before: a run killed while it loads its libraries has nothing to resume), lets Ctrl-C
stop it with the resume line, and names the saved run in an error raised after that
step.  :func:`write_draft` writes the draft (JSON, and text when asked) and prints its
table, usage and review store.  The runtime and epistemic commands differ only in
what they build before and what they check after (``graph.cli``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import click

from drafter.errors import DrafterError

if TYPE_CHECKING:
    from rich.console import Console

    from drafter.model import Report, Usage

T = TypeVar("T")

#: Called by the run at each saved step (the first call prints the resume line).
Saved = Callable[[], None]


def resume_line(thread_id: str) -> str:
    return f"run {thread_id} saved; if it stops, continue with: drafter draft --resume {thread_id}"


def drive(console: Console, thread_id: str, resume: bool, run: Callable[[Saved], T]) -> T:
    """Run ``run(saved)`` as a command runs a draft: ``saved()`` is to be called at
    each step the run streams (the first step's update arrives after it is on disk)."""
    from graph.interrupt import ctrl_c_stops

    verb = "resuming" if resume else "run"
    console.print(f"{verb} thread: [bold]{thread_id}[/]", soft_wrap=True)
    told = resume

    def saved() -> None:
        nonlocal told
        if not told:
            told = True
            console.print(resume_line(thread_id), soft_wrap=True)

    def say(line: str) -> None:
        click.echo(line, err=True)

    last = f"drafter: stopped; continue with: drafter draft --resume {thread_id}"
    try:
        with ctrl_c_stops(say, last):
            return run(saved)
    except DrafterError as exc:
        if not told:
            raise
        raise type(exc)(
            f"{exc} (run {thread_id} is saved; continue with --resume {thread_id})"
        ) from exc


def write_draft(
    console: Console,
    report: Report,
    out: Path,
    text_out: Path | None,
    *,
    title: str = "Draft",
    usage: list[Usage] | None = None,
    before_usage: Callable[[], None] | None = None,
) -> None:
    """Write ``report`` to ``out`` (and its text to ``text_out``) and print its table,
    what it cost (``usage``: per node, :func:`graph.costs.summarize`) and the review
    store it opens in; ``before_usage`` prints what a workflow says between the table
    and the cost."""
    from drafter.reportio import save_report
    from drafter.sanitize import markup_safe
    from graph.costs import usage_table
    from graph.summary import draft_table, say_review_store

    out.parent.mkdir(parents=True, exist_ok=True)
    save_report(report, out, "json")
    if text_out is not None:
        text_out.parent.mkdir(parents=True, exist_ok=True)
        save_report(report, text_out, "text")
    console.print(draft_table(report, title=title))
    if before_usage is not None:
        before_usage()
    if usage:
        console.print(usage_table(usage))
    console.print(f"draft written to [bold]{markup_safe(str(out))}[/]", soft_wrap=True)
    if text_out is not None:
        console.print(f"rendered report: [bold]{markup_safe(str(text_out))}[/]", soft_wrap=True)
    say_review_store(console, out, report)
