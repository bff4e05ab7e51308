"""Stress: many processes opening the same fresh SQLite store at the same moment.

Each round makes a new empty folder, starts N processes that wait on one barrier and
then open the same new store (the review store, or the embed cache with ``--cache``),
and counts the opens that failed and the slowest open.  Before the first-open retry
(drafter/sqlite_open.py) an open could fail at once with "locked" when it lost the
race to switch the new file to WAL; the window is a few microseconds, so on a 2-core
machine this script rarely hits it (the deterministic reproduction is
tests/test_store_first_open.py, which holds the write lock of a fresh file).

    .venv/bin/python benchmarks/stress_first_open.py [--procs 20] [--rounds 5] [--cache]

Exit 1 when any open failed.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
import tempfile
import time
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier
from pathlib import Path


def _open_once(path: Path, cache: bool, barrier: Barrier, out: Queue[tuple[str, float]]) -> None:
    from drafter.review_store import ReviewStore
    from retrieval.index import VectorCache

    barrier.wait()
    started = time.monotonic()
    try:
        if cache:
            VectorCache(path)
        else:
            ReviewStore(path).close()
        out.put(("ok", time.monotonic() - started))
    except Exception as exc:  # noqa: BLE001 - every failure is a finding here
        out.put((f"{type(exc).__name__}: {exc}", time.monotonic() - started))


def _round(procs: int, cache: bool) -> list[tuple[str, float]]:
    ctx = mp.get_context("fork")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / ("embed-cache.sqlite3" if cache else "store.sqlite")
        barrier = ctx.Barrier(procs)
        out: Queue[tuple[str, float]] = ctx.Queue()
        workers = [
            ctx.Process(target=_open_once, args=(path, cache, barrier, out)) for _ in range(procs)
        ]
        for w in workers:
            w.start()
        results = [out.get(timeout=120) for _ in workers]
        for w in workers:
            w.join()
    return results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--procs", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cache", action="store_true", help="the embed cache, not the review store")
    args = ap.parse_args()
    # import once in the parent so the forked workers start at the barrier, not in imports
    import drafter.review_store  # noqa: F401
    import retrieval.index  # noqa: F401

    failed = 0
    slowest = 0.0
    for n in range(args.rounds):
        results = _round(args.procs, args.cache)
        bad = [msg for msg, _ in results if msg != "ok"]
        failed += len(bad)
        slowest = max(slowest, *(s for _, s in results))
        print(f"round {n + 1}: {len(bad)} of {args.procs} failed" + (f" ({bad[0]})" if bad else ""))
    total = args.procs * args.rounds
    print(f"{failed} of {total} opens failed; slowest open {slowest:.3f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
