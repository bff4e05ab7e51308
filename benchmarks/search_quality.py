"""Print recall@5 of hybrid search on the shipped sample's labelled query set, alone and
with a committed dataset beside the code.

Usage: .venv/bin/python benchmarks/search_quality.py [--k 5] [--data-dir DIR]
Indexes the sample in a temporary data dir (unless --data-dir) and prints one row per
query: its rank of the labelled chunk, or a miss, and the top hit.  Then commits
``data/agent_traces.json`` to the sample (a 300 KB run dataset whose records repeat the
words of the queries: tool names, shell commands, timeouts, plugins) and asks the same
queries again.  When such a file was embedded like code, its chunks crowded the code
out of the top hits; as data it is searched by its opening part only and ranks after
what is read.  Every query of the set is a code query.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from drafter.sample import materialize
from drafter.snapshot import Snapshot
from retrieval.index import open_index
from retrieval.quality import QueryResult, evaluate, load_queries


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--data-dir", default=None)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = materialize(Path(tmp) / "sample")
        data_dir = args.data_dir or str(Path(tmp) / "data")
        index = open_index(data_dir)
        queries = load_queries()
        with Snapshot(repo.path, repo.sha) as snap:
            index.ensure(snap, progress=True)
            t = time.perf_counter()
            recall, rows = evaluate(index, snap, queries, k=args.k)
            dt = time.perf_counter() - t
        with_data = _commit_dataset(repo.path)
        with Snapshot(repo.path, with_data) as snap:
            index.ensure(snap, progress=True)
            recall_data, rows_data = evaluate(index, snap, queries, k=args.k)
        index.close()
    _print(rows, f"search quality on the sample ({len(rows)} labelled code queries)")
    _print(rows_data, "the same queries with a committed dataset beside the code")
    console = Console(width=140)
    console.print(
        f"recall@{args.k} = {recall:.3f}  ({len(rows)} queries, "
        f"{1000 * dt / max(len(rows), 1):.1f} ms/query)"
    )
    crowding = sum(1 for r in rows_data if r.top and any(h.path.startswith("data/") for h in r.top))
    console.print(
        f"recall@{args.k} with data/agent_traces.json committed = {recall_data:.3f}; "
        f"queries with a dataset chunk in their top {args.k}: {crowding}"
    )


def _commit_dataset(repo: Path) -> str:
    """Commit a run dataset that repeats the queries' words; the new revision's SHA."""
    words = [q.text for q in load_queries()]
    rows = [
        {
            "step": i,
            "thought": f"{words[i % len(words)]} then {words[(i * 7) % len(words)]}",
            "tool": ["run_shell", "read_file", "register_tool", "load_plugins"][i % 4],
            "input_schema": {"command": "pytest -q", "timeout": 30 + i % 5},
            "result": "exec_module loaded the plugin; the path stays inside the workspace",
        }
        for i in range(900)
    ]
    (repo / "data").mkdir(exist_ok=True)
    (repo / "data" / "agent_traces.json").write_text(json.dumps(rows, indent=1))
    env = {**os.environ, "GIT_AUTHOR_DATE": "2024-01-02T00:00:00+0000"}
    env["GIT_COMMITTER_DATE"] = env["GIT_AUTHOR_DATE"]
    ident = ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run(["git", *ident, "add", "data"], cwd=repo, env=env, check=True)
    subprocess.run(["git", *ident, "commit", "-qm", "run dataset"], cwd=repo, env=env, check=True)
    out = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def _print(rows: list[QueryResult], title: str) -> None:
    table = Table(title=title)
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
    Console(width=140).print(table)


if __name__ == "__main__":
    main()
