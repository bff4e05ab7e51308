"""Latency of Claude's investigation tools on a real repository.

A tool answer must never dominate a model turn (seconds), so the target is p50 < 50 ms
for ``read_file``, ``grep`` and ``check_quotes``.  Calls are drawn at random (fixed
seed) from the revision itself: pages of random text files at random offsets, grep
patterns built from identifiers that occur in the repository (some with a path glob),
and quotes that are real lines (to verify) or real lines with one character changed
(misses, which cost the most: the verifier then looks for nearest passages).  The
first call of each tool pays the one-time reads from git and is reported apart.

    .venv/bin/python benchmarks/bench_tools.py [REPO] [--rev REV] [--calls 200]

Default repository: the HyperAgents mirror used by the team.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import time
from typing import Any

from rich.console import Console
from rich.table import Table

from graph.proposers.agent.tools import SnapshotTools
from graph.resources import Resources

DEFAULT_REPO = "/work/.mirror/facebookresearch+HyperAgents/repo"
DEFAULT_REV = "59a68f6"
_IDENT = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]{5,}\b")


def _texts(tools: SnapshotTools) -> dict[str, list[str]]:
    snap = tools.res.snapshot()
    out: dict[str, list[str]] = {}
    for e in snap.entries():
        if not e.is_regular or e.size > 400_000:
            continue
        try:
            tf = snap.read_text(e.path)
        except Exception:  # noqa: BLE001 - a blob missing from a partial mirror
            continue
        if not tf.binary and tf.text.strip():
            out[e.path] = tf.text.splitlines()
    return out


def _calls(texts: dict[str, list[str]], n: int, rng: random.Random) -> dict[str, list[Any]]:
    paths = sorted(texts)
    idents = sorted({m for p in paths[:200] for ln in texts[p][:200] for m in _IDENT.findall(ln)})
    reads, greps, quotes = [], [], []
    for _ in range(n):
        p = rng.choice(paths)
        start = rng.randint(1, max(1, len(texts[p]) - 10))
        reads.append({"path": p, "start_line": start})
        word = rng.choice(idents)
        glob = rng.choice(["*", "*.py", p.rsplit("/", 1)[0] + "/*" if "/" in p else "*"])
        greps.append({"pattern": rf"\b{re.escape(word)}\(", "path_glob": glob, "max_hits": 40})
        lines = [ln.strip() for ln in texts[p] if len(ln.strip()) > 12]
        if not lines:
            lines = ["no such line in this file at all"]
        q = rng.choice(lines)
        if rng.random() < 0.3:  # a miss: one character changed
            i = rng.randrange(len(q))
            q = q[:i] + ("x" if q[i] != "x" else "y") + q[i + 1 :]
        quotes.append({"witnesses": [{"quote": q, "path": p}]})
    return {"read_file": reads, "grep": greps, "check_quotes": quotes}


def _ms(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1] * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo", nargs="?", default=DEFAULT_REPO)
    ap.add_argument("--rev", default=DEFAULT_REV)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    res = Resources(repo=args.repo, rev=args.rev, use_index=False)
    tools = SnapshotTools(res)
    console = Console()
    try:
        t0 = time.perf_counter()
        texts = _texts(tools)
        console.print(
            f"{args.repo} @ {tools.sha[:12]}: {len(texts)} text files read in "
            f"{time.perf_counter() - t0:.2f} s (one-time, shared by every tool)"
        )
        plan = _calls(texts, args.calls, random.Random(args.seed))
        table = Table(title=f"Tool latency, {args.calls} calls each")
        for col in ("tool", "first call ms", "p50 ms", "p95 ms", "max ms", "errors", "target"):
            table.add_column(col, justify="left" if col == "tool" else "right")
        for name, calls in plan.items():
            times, errors = [], 0
            for i, inp in enumerate(calls):
                t = time.perf_counter()
                _, err = tools.run(name, inp)
                times.append(time.perf_counter() - t)
                errors += err
                if i == 0:
                    first = times[0] * 1000
            p50 = _ms(times[1:], 50)
            table.add_row(
                name,
                f"{first:.1f}",
                f"{p50:.2f}",
                f"{_ms(times[1:], 95):.2f}",
                f"{max(times[1:]) * 1000:.1f}",
                str(errors),
                "ok" if p50 < 50 else "MISSED (p50 ≥ 50 ms)",
            )
        console.print(table)
    finally:
        res.close()


if __name__ == "__main__":
    main()
