"""Benchmark the snapshot reader on a generated 2,000-file repository.

Compares reading every file through drafter.snapshot.Snapshot (one long-lived
``git cat-file --batch``: file by file, and pipelined with ``prefetch``) with one
``git show REV:PATH`` process per file (timed on a sample, extrapolated).

    .venv/bin/python benchmarks/bench_snapshot.py [--files 2000] [--sample 300]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from drafter.snapshot import Snapshot

_ENV = {
    **os.environ,
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00+0000",
    "GIT_COMMITTER_DATE": "2024-01-01T00:00:00+0000",
}


def make_repo(root: Path, n: int, rng: random.Random) -> int:
    total = 0
    for i in range(n):
        p = root / f"d{i // 100}" / f"f{i}.py"
        p.parent.mkdir(parents=True, exist_ok=True)
        body = "".join(
            f"value_{i}_{j} = {rng.random():.6f}  # line {j}\n" for j in range(rng.randint(20, 200))
        )
        p.write_text(body)
        total += len(body)
    git = ["git", "-c", "user.name=b", "-c", "user.email=b@b"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True, env=_ENV)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True, env=_ENV)
    subprocess.run([*git, "commit", "-q", "-m", "bench"], cwd=root, check=True, env=_ENV)
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--sample", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=3, help="report the best of N runs")
    args = ap.parse_args()
    rng = random.Random(3)
    console = Console() if Console().is_terminal else Console(width=110)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        root.mkdir()
        size = make_repo(root, args.files, rng)
        t_open = t_each = t_pre = float("inf")
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            with Snapshot(root) as s:
                paths = s.files()
                t_open = min(t_open, time.perf_counter() - t0)
                t0 = time.perf_counter()
                each = [s.read_text(p).text for p in paths]
                t_each = min(t_each, time.perf_counter() - t0)
            with Snapshot(root) as s:
                s.files()
                t0 = time.perf_counter()
                s.prefetch(paths)
                pre = [s.read_text(p).text for p in paths]
                t_pre = min(t_pre, time.perf_counter() - t0)
        assert each == pre and len(each) == args.files
        sample = rng.sample(paths, min(args.sample, len(paths)))
        t_show = float("inf")
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            for p in sample:
                out = subprocess.run(
                    ["git", "-C", str(root), "show", f"HEAD:{p}"], capture_output=True, check=True
                ).stdout
                assert out.decode() == each[paths.index(p)]
            t_show = min(t_show, time.perf_counter() - t0)
        t_show_all = t_show / len(sample) * len(paths)

    n = len(paths)
    table = Table(title=f"Snapshot: read {n} files ({size / 1e6:.1f} MB), best of {args.repeat}")
    for col in ("method", "seconds", "files/s", "vs git show"):
        table.add_column(col, justify="left" if col == "method" else "right")
    table.add_row("open + list tree (ls-tree)", f"{t_open:.3f}", "", "")
    table.add_row(
        "Snapshot.read_text, file by file",
        f"{t_each:.3f}",
        f"{n / t_each:,.0f}",
        f"{t_show_all / t_each:,.0f}x",
    )
    table.add_row(
        "Snapshot.prefetch + read_text",
        f"{t_pre:.3f}",
        f"{n / t_pre:,.0f}",
        f"{t_show_all / t_pre:,.0f}x",
    )
    table.add_row(
        f"git show per file (sample {len(sample)}, extrapolated)",
        f"{t_show_all:.3f}",
        f"{n / t_show_all:,.0f}",
        "1x",
    )
    console.print(table)


if __name__ == "__main__":
    main()
