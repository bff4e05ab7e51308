"""``drafter verify``: check every witness of a report against a pinned revision.

Why a command of its own: analysts check the quotes of a hand-written report before it
is published, with no drafting involved.  Exit 0 means every witness verified, 1 that
at least one did not, 2 that the input itself was unusable (drafter.cli maps BadInput).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from drafter import cli_options
from drafter.errors import BadInput
from drafter.sanitize import json_safe, visible
from drafter.text import clip

# the model, the snapshot reader and Rich's tables are imported where they are used, so
# that ``drafter --help`` (which loads every command module) stays fast
if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from drafter.model import DanglingID, Report, Witness
    from drafter.snapshot import Snapshot
    from drafter.verify import VerifySummary

#: Style per verification status (the StrEnum's values, so no model import is needed).
_STYLE = {
    "verified": "green",
    "not_found": "red",
    "path_missing": "red",
    "ambiguous": "yellow",
    "unchecked": "dim",
}


def _run(report: Report, snap: Snapshot, show_progress: bool) -> list[tuple[str, Witness]]:
    from drafter.console import err_console, progress_bar
    from drafter.verify import Verifier

    located = report.located_witnesses()
    verifier = Verifier(snap)
    verifier.prefetch(w.path for _, w in located)
    if not show_progress:  # a bar that draws nothing: no need to build one
        for _, w in located:
            w.verification = verifier.verify(w)
        return located
    with progress_bar(
        label="verifying", elapsed=False, console=err_console(), enabled=show_progress
    ) as progress:
        task = progress.add_task("verify", total=len(located))
        for _, w in located:
            w.verification = verifier.verify(w)
            progress.advance(task)
    return located


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


def _table(located: list[tuple[str, Witness]], sha: str, width: int) -> Table:
    """One row per witness; cells are cut to fit ``width`` so every row stays one line.
    Record IDs (the ``where`` column) are never cut: a cut ID names no record."""
    from rich.table import Table
    from rich.text import Text

    anchor_w = min(48, width // 4)
    rows = []
    for i, (where, w) in enumerate(located, 1):
        v = w.verification
        assert v is not None
        lines = v.lines or w.lines
        anchor = f"{w.path}:{lines}" if lines else w.path
        quote = clip(w.quote, 400)
        rows.append((str(i), where, _cut(anchor, anchor_w), v, quote))
    columns = [r[:3] for r in rows]  # the three text columns: #, where, path:lines
    heads = ("#", "where", "path:lines")
    fixed = [max([len(c[k]) for c in columns] + [len(h)]) for k, h in enumerate(heads)]
    # status and match need 12 + 10 columns; borders and padding another 19
    quote_w = max(20, width - sum(fixed) - 41)
    t = Table(title=f"Witnesses at {sha[:12]}", title_justify="left")
    t.add_column("#", justify="right", style="dim")
    t.add_column("where", no_wrap=True, min_width=fixed[1])
    t.add_column("path:lines")
    t.add_column("status")
    t.add_column("match")
    t.add_column("quote")
    for num, where, anchor, v, quote in rows:
        t.add_row(
            num,
            Text(visible(where, keep_newlines=False)),
            Text(visible(anchor, keep_newlines=False)),
            Text(v.status.value, style=_STYLE[v.status]),
            Text(v.match_kind.value if v.match_kind else ""),
            Text(_cut(visible(quote, keep_newlines=False), quote_w)),
        )
    return t


def _misses(console: Console, located: list[tuple[str, Witness]]) -> None:
    from rich.text import Text

    for i, (where, w) in enumerate(located, 1):
        v = w.verification
        if v is None or v.ok:
            continue
        line = f"#{i} {where} — {v.status.value}: {v.message}"
        console.print(Text(visible(line, keep_newlines=False)))
        for p in v.nearest[:3]:
            console.print(
                Text(
                    visible(
                        f"    nearest {p.path}:{p.lines} ({p.score:.2f}): {clip(p.text, 90)}",
                        keep_newlines=False,
                    )
                ),
                no_wrap=True,
                overflow="ellipsis",
            )


_STATUSES = ("verified", "not_found", "path_missing", "ambiguous")
_KINDS = ("exact", "whitespace", "markup")


def _summary_table(s: VerifySummary) -> Table:
    from rich.table import Table
    from rich.text import Text

    t = Table(title="Summary", title_justify="left", show_header=False)
    t.add_column("what")
    t.add_column("count", justify="right")
    t.add_row("witnesses", str(s.total))
    for status in _STATUSES:
        n = s.by_status.get(status, 0)
        t.add_row(Text(status, style=_STYLE[status] if n else ""), str(n))
        if status == "verified":
            for kind in _KINDS:
                t.add_row(f"  {kind}", str(s.by_match.get(kind, 0)))
    unchecked = s.by_status.get("unchecked", 0)
    if unchecked:
        t.add_row("unchecked", str(unchecked))
    return t


@click.command("verify")
@click.argument("report", type=click.Path(path_type=Path))
@click.option(
    "--repo",
    default=None,
    help="Work tree, .git directory or bare repository (default: the folder a draft "
    "records it was made from; required for report text).",
)
@click.option(
    "--rev",
    default=None,
    help="Branch, tag or SHA to verify at (default: the revision the report names).",
)
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@click.option(
    "--write",
    "write",
    type=click.Path(path_type=Path),
    help="Save the report with every witness's verification as draft JSON.",
)
@click.option(
    "--runtime",
    "runtime_path",
    type=click.Path(path_type=Path),
    default=None,
    help="For an epistemic REPORT: the runtime report it builds on; every RT- ID it cites "
    "must be a record of that report.",
)
@cli_options.allow_mismatch
@cli_options.data_dir_env
def verify_cmd(
    report: Path,
    repo: str | None,
    rev: str | None,
    as_json: bool,
    write: Path | None,
    runtime_path: Path | None,
    allow_mismatch: bool = False,
) -> None:
    """Verify every witness of REPORT (draft JSON or report text) at REPO@REV, and that
    every record ID it cites is a record (exit 1 when either fails)."""
    from drafter.console import err_console, out_console
    from drafter.provenance import enforce, mismatch, revisions
    from drafter.reportio import atomic_write_text, load_report, load_report_with_warnings
    from drafter.repository import repository_of
    from drafter.snapshot import Snapshot
    from drafter.verify import summarize

    loaded = load_report_with_warnings(report)
    rep = loaded.report
    companion = None
    if runtime_path is not None:
        runtime = load_report(runtime_path)
        enforce(mismatch(("report", rep), ("runtime", runtime)), allow_mismatch)
        companion = {r.id for r in runtime.records}
    dangling = rep.dangling(companion)
    # a dangling ID is this command's verdict (below), not a reader's warning
    said = [str(d) for d in rep.dangling()]
    for warning in loaded.warnings:
        if not any(warning.endswith(s) for s in said):
            click.echo(f"drafter: warning: {visible(warning, keep_newlines=False)}", err=True)
    repo = repository_of(rep, repo, str(report))
    stated = revisions(rep)  # a report text states its revision in its account
    named = rep.source.revision if rep.source else (min(stated) if len(stated) == 1 else None)
    if rev is None:
        if not named:
            raise BadInput("no --rev given and the report names no revision", where=str(report))
        rev = named
    with Snapshot(repo, rev) as snap:
        err = err_console()
        if named and named != snap.sha and not as_json:
            err.print(
                f"note: the report names revision {named[:12]}; verifying at {snap.sha[:12]}",
                highlight=False,
            )
        located = _run(rep, snap, show_progress=not as_json and err.is_terminal)
        summary = summarize(w.verification for _, w in located)
        if write is not None:
            atomic_write_text(write, rep.to_json())
        if as_json:
            payload = _json_payload(report, snap.name, snap.sha, summary, dangling, located)
            click.echo(json_safe(json.dumps(payload, indent=2, ensure_ascii=False)))
        else:
            out = out_console()
            if located:
                out.print(_table(located, snap.sha, out.width))
                _misses(out, located)
            else:
                out.print("no witnesses in this report")
            out.print(_summary_table(summary))
            _dangling(out, dangling)
            if write is not None:
                out.print(f"wrote {write}", highlight=False)
    if not summary.ok or dangling:
        raise click.exceptions.Exit(1)


def _json_payload(
    report: Path,
    name: str,
    sha: str,
    summary: VerifySummary,
    dangling: list[DanglingID],
    located: list[tuple[str, Witness]],
) -> dict[str, object]:
    """What ``--json`` prints: the summary, the dangling IDs and every witness's verdict."""
    return {
        "report": str(report),
        "repository": name,
        "revision": sha,
        "summary": summary.to_dict(),
        "dangling_ids": [{"where": d.where, "id": d.id, "cross_report": d.cross} for d in dangling],
        "witnesses": [
            {
                "where": where,
                "quote": w.quote,
                "path": w.path,
                "lines": str(w.lines) if w.lines else None,
                "verification": w.verification.model_dump(mode="json") if w.verification else None,
            }
            for where, w in located
        ],
    }


def _dangling(console: Console, dangling: list[DanglingID]) -> None:
    """Cited record IDs no record answers to: each is an invented citation."""
    from rich.text import Text

    if not dangling:
        return
    console.print(
        Text(f"{len(dangling)} cited record ID(s) that are not records:", style="red"),
    )
    for d in dangling:
        console.print(Text(visible(f"  {d}", keep_newlines=False)))
