"""Print recall@5 of hybrid search on the shipped sample's labelled query set.

Usage: .venv/bin/python benchmarks/search_quality.py [--k 5] [--data-dir DIR]
Indexes the sample in a temporary data dir (unless --data-dir) and prints one row per
query: its rank of the labelled chunk, or a miss, and the top hit.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from drafter.sample import materialize
from drafter.snapshot import Snapshot
from retrieval.index import open_index
from retrieval.quality import evaluate, load_queries


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--data-dir", default=None)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = materialize(Path(tmp) / "sample")
        data_dir = args.data_dir or str(Path(tmp) / "data")
        index = open_index(data_dir)
        with Snapshot(repo.path, repo.sha) as snap:
            index.ensure(snap, progress=True)
            queries = load_queries()
            t = time.perf_counter()
            recall, rows = evaluate(index, snap, queries, k=args.k)
            dt = time.perf_counter() - t
        index.close()
    table = Table(title=f"search quality on the sample ({len(rows)} labelled queries)")
    for col in ("query", "must return", "rank", "top hit"):
        table.add_column(col)
    for r in rows:
        top = r.top[0] if r.top else None
        table.add_row(
            r.query.text,
            f"{r.query.path}:{r.query.line}",
            str(r.rank) if r.rank else "[red]miss[/red]",
            f"{top.path}:{top.start_line}-{top.end_line}" if top else "-",
        )
    console = Console(width=140)
    console.print(table)
    console.print(
        f"recall@{args.k} = {recall:.3f}  ({len(rows)} queries, "
        f"{1000 * dt / max(len(rows), 1):.1f} ms/query)"
    )


if __name__ == "__main__":
    main()
