"""``drafter reverify DRAFT --rev NEW``: carry a (reviewed) draft to a new revision.

Exit 0 when every witness still holds at NEW (unchanged or moved), 1 when at least
one went stale (the carried draft is written either way, stale records flagged), 2
for unusable input.
"""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from drafter.errors import BadInput
from drafter.reportio import load_report, save_report
from drafter.reverify import Anchor, ReverifyResult, carry_decisions, reanchor
from drafter.review_identity import file_kind, resolve_store
from drafter.review_store import ReviewStore
from drafter.sanitize import markup_safe
from drafter.snapshot import Snapshot

_STYLE = {Anchor.unchanged: "green", Anchor.moved: "yellow", Anchor.stale: "red"}
#: Moved and stale witnesses listed one per row; the rest are only counted.
MAX_ROWS = 60


def _repo_of(draft: Path, given: Path | None, source_repo: str | None) -> str:
    if given is not None:
        return str(given)
    if source_repo and Path(source_repo).exists():
        return source_repo
    raise BadInput("the draft's repository is not a local path; pass --repo", where=str(draft))


def summary_table(res: ReverifyResult) -> Table:
    t = Table(title=f"Witnesses carried from {res.old_rev[:12]} to {res.new_rev[:12]}")
    t.add_column("case")
    t.add_column("witnesses", justify="right")
    for a in Anchor:
        t.add_row(f"[{_STYLE[a]}]{a.value}[/]", str(res.count(a)))
    t.add_row("records flagged stale", str(len(res.stale_records)))
    return t


def detail_table(res: ReverifyResult) -> Table:
    t = Table(title="Moved and stale witnesses", show_lines=False)
    for col in ("where", "path", "case", "old lines", "new lines / nearest at NEW"):
        t.add_column(col, overflow="fold")
    shown = [r for r in res.rows if r.anchor != Anchor.unchanged]
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
@click.option("--repo", type=click.Path(path_type=Path), default=None, help="Repository.")
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=None,
    help="Carried draft (default: DRAFT.<rev>.json beside the draft).",
)
@click.option(
    "--store",
    "store_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Decision store to carry decisions in (default: the draft's own store; a draft "
    "path means that draft's own store).",
)
def reverify_cmd(
    draft: Path, new_rev: str, repo: Path | None, out: Path | None, store_path: Path | None
) -> None:
    """Re-anchor every witness of DRAFT at --rev: unchanged, moved or stale."""
    report = load_report(draft)
    old_rev = report.source.revision if report.source else None
    if not old_rev:
        raise BadInput("the draft names no pinned revision to carry from", where=str(draft))
    where = _repo_of(draft, repo, report.source.repository if report.source else None)
    with Snapshot(where, old_rev) as old, Snapshot(where, new_rev) as new:
        res = reanchor(report, old, new, file_kind(draft))
    out = out or draft.with_name(f"{draft.stem}.{res.new_rev[:7]}.json")
    save_report(res.report, out)
    carried = 0
    with ReviewStore(resolve_store(store_path, draft, report)) as store:
        carried = carry_decisions(store, report, res.report)
    console = Console()
    console.print(summary_table(res))
    if any(r.anchor != Anchor.unchanged for r in res.rows):
        console.print(detail_table(res))
    console.print(
        f"wrote {markup_safe(str(out))}; decisions carried by content hash"
        + (f", {carried} re-anchored records' decisions copied" if carried else "")
    )
    if res.count(Anchor.stale):
        raise click.exceptions.Exit(1)
