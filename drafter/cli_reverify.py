"""``drafter reverify DRAFT --rev NEW``: carry a (reviewed) draft to a new revision.

Exit 0 when every witness still holds at NEW (unchanged or moved), 1 when at least
one went stale or a line reference in the prose names a line that is gone (the carried
draft is written either way, stale records flagged), 2 for unusable input.  Line
references in prose ("prepare.py:178") follow their witness (drafter.prose_refs).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from drafter import cli_options
from drafter.errors import BadInput
from drafter.sanitize import markup_safe

# the model, the store and Rich's tables are imported where they are used, so that
# ``drafter --help`` (which loads every command module) stays fast
if TYPE_CHECKING:
    from rich.table import Table

    from drafter.reverify import ReverifyResult

#: Style per witness case (the Anchor StrEnum's values).
_STYLE = {"unchanged": "green", "moved": "yellow", "stale": "red"}
#: Moved and stale witnesses listed one per row; the rest are only counted.
MAX_ROWS = 60


def _id_column(t: Table, ids: list[str]) -> None:
    """The "where" column: a record ID is never split over two lines or cut."""
    t.add_column("where", no_wrap=True, min_width=max([len(i) for i in ids] + [5]))


def summary_table(res: ReverifyResult) -> Table:
    from rich.table import Table

    from drafter.model import Anchor
    from drafter.prose_refs import RefCase

    t = Table(title=f"Witnesses carried from {res.old_rev[:12]} to {res.new_rev[:12]}")
    t.add_column("case")
    t.add_column("witnesses", justify="right")
    t.add_column("line references in prose", justify="right")
    for a in Anchor:
        t.add_row(f"[{_STYLE[a]}]{a.value}[/]", str(res.count(a)), str(res.prose_count(RefCase(a))))
    flagged = set(res.stale_records) | {
        p.where for p in res.prose if p.case == RefCase.stale and "-" in p.where
    }
    t.add_row("records flagged stale", str(len(flagged)), "")
    return t


def prose_table(res: ReverifyResult) -> Table:
    """The prose line references that moved with their quote or went stale."""
    from rich.table import Table

    from drafter.prose_refs import RefCase

    t = Table(title="Line references in prose")
    shown = [p for p in res.prose if p.case != RefCase.unchanged]
    _id_column(t, [p.where for p in shown[:MAX_ROWS]])
    for col in ("was", "case", "now"):
        t.add_column(col, overflow="fold")
    for p in shown[:MAX_ROWS]:
        t.add_row(
            markup_safe(p.where, keep_newlines=False),
            markup_safe(p.old, keep_newlines=False),
            f"[{_STYLE[p.case]}]{p.case.value}[/]",
            markup_safe(p.new, keep_newlines=False) if p.case == RefCase.moved else "—",
        )
    if len(shown) > MAX_ROWS:
        t.caption = f"… and {len(shown) - MAX_ROWS} more"
    return t


def detail_table(res: ReverifyResult) -> Table:
    from rich.table import Table

    from drafter.model import Anchor

    t = Table(title="Moved and stale witnesses", show_lines=False)
    shown = [r for r in res.rows if r.anchor != Anchor.unchanged]
    _id_column(t, [r.where for r in shown[:MAX_ROWS]])
    for col in ("path", "case", "old lines", "new lines / nearest at NEW"):
        t.add_column(col, overflow="fold")
    for r in shown[:MAX_ROWS]:
        if r.anchor == Anchor.stale:
            near = ", ".join(f"{p.path}:{p.lines}" for p in r.nearest[:2]) or "none"
        else:
            near = str(r.new_lines)
        t.add_row(  # where, path and nearest paths are repository text
            markup_safe(r.where, keep_newlines=False),
            markup_safe(r.path, keep_newlines=False),
            f"[{_STYLE[r.anchor]}]{r.anchor.value}[/]",
            str(r.old_lines or "—"),
            markup_safe(near, keep_newlines=False),
        )
    if len(shown) > MAX_ROWS:
        t.caption = f"… and {len(shown) - MAX_ROWS} more"
    return t


@click.command("reverify")
@click.argument("draft", type=click.Path(path_type=Path))
@click.option("--rev", "new_rev", required=True, help="Revision to carry the draft to.")
@click.option(
    "--repo",
    type=click.Path(path_type=Path),
    default=None,
    help="Repository (default: the folder the draft was made from).",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=None,
    help="Carried draft (default: DRAFT.<rev>.json beside the draft).",
)
@click.option(
    "--store",
    "store_path",
    type=str,
    default=None,
    help="Decision store to carry decisions in (default: the draft's own store; a draft "
    "path means that draft's own store).",
)
@cli_options.data_dir_env
def reverify_cmd(
    draft: Path, new_rev: str, repo: Path | None, out: Path | None, store_path: str | None
) -> None:
    """Re-anchor every witness of DRAFT at --rev: unchanged, moved or stale."""
    from drafter.console import out_console
    from drafter.model import Anchor
    from drafter.prose_refs import RefCase
    from drafter.reportio import check_output_path, load_report, save_report
    from drafter.repository import repository_of
    from drafter.reverify import carry_decisions, reanchor
    from drafter.review_identity import file_kind, resolve_store
    from drafter.review_store import ReviewStore
    from drafter.snapshot import Snapshot

    report = load_report(draft)
    if out is not None:
        check_output_path(out)
    old_rev = report.source.revision if report.source else None
    if not old_rev:
        raise BadInput("the draft names no pinned revision to carry from", where=str(draft))
    where = repository_of(report, repo, str(draft))
    with Snapshot(where, old_rev) as old, Snapshot(where, new_rev) as new:
        res = reanchor(report, old, new, file_kind(draft))
    out = out or draft.with_name(f"{draft.stem}.{res.new_rev[:7]}.json")
    # the store is opened before the carried draft is written: an unusable store is
    # refused with nothing written, not after a draft whose decisions did not follow
    with ReviewStore(resolve_store(store_path, draft, report)) as store:
        save_report(res.report, out)
        carried = carry_decisions(store, report, res.report)
    console = out_console()
    console.print(summary_table(res))
    if any(r.anchor != Anchor.unchanged for r in res.rows):
        console.print(detail_table(res))
    if any(p.case != RefCase.unchanged for p in res.prose):
        console.print(prose_table(res))
    console.print(
        f"wrote {markup_safe(str(out))}; decisions carried by content hash"
        + (f", {carried} re-anchored records' decisions copied" if carried else "")
    )
    if res.count(Anchor.stale) or res.prose_count(RefCase.stale):
        raise click.exceptions.Exit(1)
