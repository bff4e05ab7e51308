"""``drafter review``: the review app, or scripted decisions and export without one."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from drafter import cli_options
from drafter.errors import BadInput
from drafter.sanitize import markup_safe

# the session, the store and Rich's tables are imported where they are used, so that
# ``drafter --help`` (which loads every command module) stays fast
if TYPE_CHECKING:
    from tui.batch import BatchResult
    from tui.session import ReviewSession

#: Export formats (tui.export.FORMATS, spelt out here so the help needs no import).
FORMATS = ("text", "markdown", "json")


@click.command("review")
@click.argument("draft", type=click.Path(path_type=Path))
@click.option(
    "--repo", required=True, type=click.Path(path_type=Path), help="Repository the draft is about."
)
@click.option(
    "--rev",
    default=None,
    help="The draft's pinned revision (default); another one is refused unless "
    "--allow-mismatch (carry a draft with drafter reverify).",
)
@click.option(
    "--allow-mismatch",
    is_flag=True,
    help="Open even when REPO does not hold the draft's revision or --rev is not it "
    "(a warning stays on screen; witnesses are checked at what is shown; no export, "
    "no --accept-verified, no redraft).",
)
@click.option(
    "--store",
    "store_path",
    type=str,
    default=None,
    help="Decision store locator: an SQLite file, a folder of them, or "
    "postgresql://USER@HOST:PORT/DB for a team (default: $DRAFTER_STORE, else "
    "<data dir>/reviews/<draft identity>.sqlite, printed on opening); a draft or report "
    "path means that draft's own store.",
)
@click.option(
    "--analyst",
    default=None,
    help="Who is deciding (default: $DRAFTER_ANALYST, else the OS user); stored with "
    "every decision.",
)
@click.option(
    "--lead",
    is_flag=True,
    help="Decide as the team's lead: an accept or reject made here settles a conflict "
    "between analysts.",
)
@click.option(
    "--resolve",
    default=None,
    metavar="latest|mine|reject|ANALYST",
    help="How an export settles records analysts disagree about: the latest vote, your "
    "own, reject them, or one analyst's (default: refuse to export while any remain).",
)
@click.option(
    "--accept-verified",
    is_flag=True,
    help="Accept every pending record whose witnesses all verify.",
)
@click.option(
    "--decisions",
    "decisions_file",
    type=click.Path(path_type=Path),
    default=None,
    help="Apply decisions from a JSON-lines file.",
)
@click.option(
    "--export",
    "export_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Write the accepted records to this file.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default=None,
    help="Export format (default from the file suffix, else text).",
)
@cli_options.data_dir_env
def review_cmd(
    draft: Path,
    repo: Path,
    rev: str | None,
    allow_mismatch: bool,
    store_path: str | None,
    analyst: str | None,
    lead: bool,
    resolve: str | None,
    accept_verified: bool,
    decisions_file: Path | None,
    export_path: Path | None,
    fmt: str | None,
) -> None:
    """Review DRAFT: accept, reject and annotate records with the source beside them.

    With --accept-verified, --decisions or --export it runs without a terminal.
    """
    from tui.session import ReviewSession

    batch = accept_verified or decisions_file is not None or export_path is not None
    if not draft.exists():  # said before anything else: a typo is the likelier mistake
        raise BadInput(f"{draft}: file does not exist")
    if not batch:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            raise BadInput("no terminal to draw on; use --accept-verified, --decisions or --export")
        _interactive(draft, repo, rev, store_path, allow_mismatch, analyst, lead, resolve)
        return
    session = ReviewSession(
        draft, repo, rev=rev, store_path=store_path, allow_mismatch=allow_mismatch,
        analyst=analyst, lead=lead, resolve=resolve,
    )  # fmt: skip
    try:
        _batch(session, accept_verified, decisions_file, export_path, fmt)
    finally:
        session.close()


def _interactive(
    draft: Path,
    repo: Path,
    rev: str | None,
    store_path: str | None,
    allow_mismatch: bool,
    analyst: str | None,
    lead: bool,
    resolve: str | None,
) -> None:
    """The app over DRAFT; then over the redraft the analyst chose to open, if any."""
    from drafter.console import err_console
    from tui.app import make_app

    say = err_console()
    next_draft: Path | None = draft
    while next_draft is not None:
        app = make_app(
            next_draft, repo, rev=rev, store=store_path, allow_mismatch=allow_mismatch,
            analyst=analyst, lead=lead, resolve=resolve,
        )  # fmt: skip
        store = markup_safe(app.session.store.where)
        name = markup_safe(str(next_draft))
        say.print(f"reviewing {name}; review store: {store}", soft_wrap=True)
        app.run()
        say.print(f"decisions saved in {store}", soft_wrap=True)
        next_draft = app.next_draft


def _batch(
    session: ReviewSession,
    accept: bool,
    decisions_file: Path | None,
    export_path: Path | None,
    fmt: str | None,
) -> None:
    from rich.table import Table

    from drafter.console import out_console
    from tui.batch import accept_verified, apply_decisions_file
    from tui.export import export_accepted

    console = out_console()
    if session.mismatch:
        from drafter.console import err_console
        from tui.export import MISMATCH_EXPORT

        err_console().print(
            f"warning: not the draft's repository or revision: {markup_safe(session.mismatch)}; "
            "witnesses were checked at what is shown"
        )
        if export_path is not None:
            raise BadInput(MISMATCH_EXPORT)
        if accept:
            raise BadInput(
                "no --accept-verified at another repository or revision: the witnesses "
                "verify (or not) there, not at the draft's revision"
            )
    if export_path is not None:  # before any decision is applied
        from tui.export import check_export_target

        check_export_target(export_path, session.draft_path, session.store.path)
    results: list[tuple[str, BatchResult]] = []
    if decisions_file is not None:
        results.append(
            (
                f"decisions from {markup_safe(str(decisions_file))}",
                apply_decisions_file(session.store, session.report, decisions_file),
            )
        )
    if accept:
        results.append(("accept verified", accept_verified(session.store, session.report)))
    p = session.store.progress(session.report.records)
    table = Table(title=f"Review of {markup_safe(session.draft_path.name)}")
    table.add_column("step")
    table.add_column("applied", justify="right")
    table.add_column("left alone", justify="right")
    for name, res in results:
        table.add_row(name, str(res.applied), str(res.skipped))
    if export_path is not None:
        fmt = fmt or {".md": "markdown", ".json": "json"}.get(export_path.suffix.lower(), "text")
        n = export_accepted(session.store, session.report, fmt, export_path, session.resolve)
        table.add_row(f"export {fmt} → {markup_safe(str(export_path))}", str(n), "")
    console.print(table)
    conflicts = f", in conflict {p.conflicts}" if p.conflicts else ""
    console.print(
        f"reviewed {p.reviewed}/{p.total}, accepted {p.accepted}, rejected {p.rejected}, "
        f"changed since review {p.changed}{conflicts}; store {markup_safe(session.store.where)}"
    )
