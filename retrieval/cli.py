"""``drafter index`` and ``drafter search``.

Index shows a progress bar on stderr and closes with a summary table on stdout; search
indexes the revision first when needed (the analyst should not have to remember to),
then prints ranked hits as a table, or as JSON for scripts.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

import click

from drafter import cli_options
from drafter.sanitize import json_safe, markup_safe, plain

# Chroma, the embedder and Rich's tables are imported where they are used, so that
# ``drafter --help`` (which loads every command module) stays fast
if TYPE_CHECKING:
    from rich.table import Table

    from retrieval.index_stats import IndexStats
    from retrieval.search import Hit

_repo_arg = click.argument("repo")  # checked by Snapshot, worded as for draft
_rev_opt = click.option("--rev", default="HEAD", show_default=True, help="Revision to read.")
_data_opt = cli_options.data_dir
_url_opt = click.option(
    "--chroma",
    "--chroma-url",
    "chroma_url",
    default=None,
    help="Use the Chroma server at http://HOST:PORT instead of the embedded store "
    "(default: $DRAFTER_CHROMA_URL).",
)


#: Groups of files left out shown in the summary (largest first).
_LEFT_OUT_ROWS = 10


def _summary(stats: IndexStats) -> Table:
    from rich.table import Table

    table = Table(
        title=f"index {markup_safe(stats.identity)} @ {stats.revision[:12]}", show_header=False
    )
    table.add_column("what")
    table.add_column("value", justify="right")
    table.add_row("files in revision", str(stats.files_total))
    for role, n in sorted(stats.roles.items()):
        table.add_row(f"files: {role}", str(n))
    table.add_row("files embedded whole", str(stats.files_indexed))
    for reason, n in sorted(stats.skipped.items()):
        table.add_row(f"refused by the chunker: {reason}", str(n))
    for what, (n, size) in list(stats.left_out.items())[:_LEFT_OUT_ROWS]:
        table.add_row(markup_safe(f"not embedded: {what}"), f"{n} ({size / 1e6:.1f} MB)")
    if stats.syntax_errors:
        table.add_row("files with syntax errors (chunked)", str(len(stats.syntax_errors)))
    table.add_row("chunks embedded (dense + word search)", str(stats.chunks))
    table.add_row("chunks lexical only (opening parts)", str(stats.lexical_chunks))
    table.add_row("embedded now", str(stats.embedded))
    table.add_row("vectors reused", str(stats.reused))
    table.add_row("already stored", str(stats.already_present))
    if stats.removed:
        table.add_row("stray entries removed", str(stats.removed))
    table.add_row("status", "was already complete" if stats.was_complete else "complete")
    table.add_row("seconds", f"{stats.seconds:.2f}")
    return table


def _line_at(hit: Hit) -> str:
    lines = hit.text.split("\n")
    i = hit.line - hit.start_line
    return lines[i].strip() if 0 <= i < len(lines) else ""


@click.command("index")
@_repo_arg
@_rev_opt
@_data_opt
@_url_opt
@click.option("--rebuild", is_flag=True, help="Drop this revision's collection first.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def index_cmd(
    repo: str, rev: str, data_dir: Path | None, chroma_url: str | None, rebuild: bool, quiet: bool
) -> None:
    """Chunk, embed and store REPO at --rev in Chroma (idempotent, incremental)."""

    from drafter.console import out_console
    from drafter.snapshot import Snapshot
    from retrieval.index import open_index

    with Snapshot(repo, rev) as snap:
        index = open_index(data_dir, chroma_url)
        try:
            if rebuild:
                index.drop(snap)
            stats = index.ensure(snap, progress=not quiet)
        finally:
            index.close()
    out_console().print(_summary(stats))


@click.command("search")
@_repo_arg
@click.argument("query")
@_rev_opt
@click.option("-k", "k", default=10, show_default=True, type=int, help="Number of hits.")
@click.option("--path", "path_glob", default=None, help="Only paths matching this glob.")
@_data_opt
@_url_opt
@click.option("--json", "as_json", is_flag=True, help="Print hits as JSON lines.")
def search_cmd(
    repo: str,
    query: str,
    rev: str,
    k: int,
    path_glob: str | None,
    data_dir: Path | None,
    chroma_url: str | None,
    as_json: bool,
) -> None:
    """Hybrid (dense + identifier BM25) search of REPO at --rev for QUERY."""
    if k < 1:  # before the revision is indexed, which can take minutes
        from drafter.errors import BadInput

        raise BadInput(f"-k must be at least 1, not {k}")
    from rich.table import Table

    from drafter.console import out_console
    from drafter.snapshot import Snapshot
    from retrieval.index import open_index
    from retrieval.search import search

    with Snapshot(repo, rev) as snap:
        index = open_index(data_dir, chroma_url)
        try:
            if index.collection(snap) is None:
                index.ensure(snap, progress=not as_json)
            hits = search(index, snap, query, k=k, path_glob=path_glob)
        finally:
            index.close()
    if as_json:
        for h in hits:
            row = asdict(h)
            row.pop("text")
            click.echo(json_safe(json.dumps(row, ensure_ascii=False)))
        return
    table = Table(title=f"{len(hits)} hits for {markup_safe(repr(query))}")
    table.add_column("#", justify="right")
    table.add_column("location", no_wrap=True)
    table.add_column("symbol", no_wrap=True, max_width=30)
    table.add_column("score", justify="right")
    table.add_column("snippet", overflow="fold")
    for n, h in enumerate(hits, 1):
        table.add_row(
            str(n),
            plain(f"{h.path}:{h.start_line}-{h.end_line}", keep_newlines=False),
            plain(h.symbol, keep_newlines=False),
            f"{h.score:.3f}",
            plain(f"L{h.line}: {_line_at(h)}", keep_newlines=False),
        )
    out_console().print(table)
