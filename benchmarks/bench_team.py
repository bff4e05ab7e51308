"""A team reviewing one draft at once: N reviewer processes × D decisions each.

For each backend (Postgres at ``--pg URL`` or $DRAFTER_TEST_PG_URL, and SQLite) and each
N in ``--procs``, N processes start together on a fresh store and each makes D
accept/reject decisions about the records of one 100-record draft, every process as its
own analyst.  Printed per run: decisions made and stored, duplicates (a uid stored
twice, or more rows than decisions made), p50/p95 latency of one decision, and the
conflicts made (records whose analysts' last votes differ, from the plan) against the
conflicts the fold detects in what was stored.

``--fault PGDATA`` adds a fault run on Postgres: half-way through, the server (the
cluster in PGDATA, controlled with pg_ctl as the postgres user) is stopped for 10 s and
started again.  Reviewers keep decisions locally meanwhile (the review app's outbox)
and send them when it is back: stored must still equal made, with no duplicate.

    .venv/bin/python benchmarks/bench_team.py [--procs 2 4 8] [--decisions 500]
        [--pg postgresql://drafter@127.0.0.1:55431/postgres] [--fault /path/to/pgdata]

Exit 1 when anything was lost or doubled, or a conflict was missed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

RECORDS = 100
#: Seconds the fault run keeps the server down.
OUTAGE = 10.0


def _report():  # type: ignore[no-untyped-def]
    from drafter.model import Paragraph, Record, RecordSection, Report, ReportType

    recs = [
        Record(id=f"RT-CMP-r{i}", label=f"R{i}", blocks=[Paragraph(text="Claimed operation: x.")])
        for i in range(RECORDS)
    ]
    return Report(
        system="bench",
        type=ReportType.runtime,
        sections=[RecordSection(title="Components", records=recs)],
    )


def _plan(worker: int, n: int, seed: int) -> list[tuple[int, bool]]:
    """(record index, accept?) for each decision of one worker, reproducible."""
    rng = random.Random(seed * 1000 + worker)
    return [(rng.randrange(RECORDS), rng.random() < 0.6) for _ in range(n)]


def worker(locator: str, index: int, n: int, seed: int, start_at: float, out: str) -> None:
    from drafter.review_store import ReviewStore

    report = _report()
    store = ReviewStore(
        locator, analyst=f"r{index}", keep_offline=True, outbox_root=Path(out).parent / f"ob{index}"
    )
    plan = _plan(index, n, seed)
    while time.time() < start_at:
        time.sleep(0.005)
    lat: list[float] = []
    last_try = 0.0
    for rec, ok in plan:
        r = report.records[rec]
        t0 = time.perf_counter()
        if ok:
            store.accept(r)
        else:
            store.reject(r, "no")
        lat.append(time.perf_counter() - t0)
        if store.offline is not None and time.monotonic() - last_try > 0.5:
            last_try = time.monotonic()
            store.poll()
    while store.offline is not None:  # send what the outage kept locally
        time.sleep(0.2)
        store.poll()
    store.close()
    Path(out).write_text(json.dumps({"lat": lat}))


def _fresh_pg(base: str) -> str:
    import psycopg

    name = f"bench_team_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(base, autocommit=True) as c:
        c.execute(f'CREATE DATABASE "{name}"')
    return urlunsplit(urlsplit(base)._replace(path=f"/{name}")) + "#bench"


def _pg_ctl(pgdata: str, *args: str) -> None:
    pg_ctl = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))[-1]
    cmd = [str(pg_ctl), "-D", pgdata, "-w", *args]
    if os.getuid() == 0:
        cmd = ["runuser", "-u", "postgres", "--", *cmd]
    subprocess.run(cmd, check=True, capture_output=True)


def _count(locator: str) -> int:
    import psycopg

    url, _, name = locator.partition("#")
    with psycopg.connect(url) as c:
        row = c.execute("SELECT COUNT(*) FROM drafter_decisions WHERE store=%s", (name,)).fetchone()
    return int(row[0]) if row else 0


def _outage(locator: str, pgdata: str, total: int) -> None:
    """Stop the server once about 40% of the decisions are stored; start it again (with
    the options it was started with) after OUTAGE seconds."""
    import shlex

    while True:
        try:
            if _count(locator) >= 0.4 * total:
                break
        except Exception:  # noqa: BLE001 - the tables may not exist yet
            pass
        time.sleep(0.1)
    opts = shlex.split((Path(pgdata) / "postmaster.opts").read_text())[1:]
    _pg_ctl(pgdata, "-m", "immediate", "stop")
    print(f"fault: server stopped at {_stamp()}", file=sys.stderr)
    time.sleep(OUTAGE)
    _pg_ctl(pgdata, "-l", str(Path(pgdata) / "server.log"), "-o", shlex.join(opts), "start")
    print(f"fault: server started at {_stamp()}", file=sys.stderr)


def _stamp() -> str:
    return time.strftime("%H:%M:%S")


def run(locator: str, procs: int, n: int, seed: int, fault: str | None) -> dict[str, object]:
    from drafter.review_fold import fold_all
    from drafter.review_store import ReviewStore

    tmp = Path(tempfile.mkdtemp(prefix="bench_team_"))
    start_at = time.time() + 2.0
    children = []
    for i in range(procs):
        out = tmp / f"w{i}.json"
        here = str(Path(__file__).parent)
        code = (
            f"import sys; sys.path.insert(0, {here!r}); import bench_team as b; "
            f"b.worker({locator!r}, {i}, {n}, {seed}, {start_at!r}, {str(out)!r})"
        )
        children.append(subprocess.Popen([sys.executable, "-c", code]))
    if fault:
        _outage(locator, fault, procs * n)
    codes = [c.wait() for c in children]
    lat = [x for i in range(procs) for x in json.loads((tmp / f"w{i}.json").read_text())["lat"]]
    with ReviewStore(locator) as s:
        rows = s.all_rows()
    report = _report()
    states = fold_all(report.records, rows)
    made_votes: dict[int, dict[int, bool]] = {}
    for i in range(procs):
        for rec, ok in _plan(i, n, seed):
            made_votes.setdefault(rec, {})[i] = ok
    made_conflicts = sum(len(set(v.values())) > 1 for v in made_votes.values())
    lat.sort()
    return {
        "procs": procs,
        "made": procs * n,
        "stored": len(rows),
        "dups": len(rows) - len({r.uid for r in rows}) + max(0, len(rows) - procs * n),
        "p50_ms": statistics.median(lat) * 1000,
        "p95_ms": lat[int(0.95 * (len(lat) - 1))] * 1000,
        "conflicts_made": made_conflicts,
        "conflicts_found": sum(st.conflict for st in states.values()),
        "exit_codes": codes,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--procs", type=int, nargs="+", default=[2, 4, 8])
    ap.add_argument("--decisions", type=int, default=500)
    ap.add_argument("--pg", default=os.environ.get("DRAFTER_TEST_PG_URL"))
    ap.add_argument("--fault", default=None, help="PGDATA of the server at --pg, for the fault run")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    runs: list[tuple[str, dict[str, object]]] = []
    for procs in args.procs:
        if args.pg:
            runs.append(
                ("postgres", run(_fresh_pg(args.pg), procs, args.decisions, args.seed, None))
            )
        path = Path(tempfile.mkdtemp(prefix="bench_team_sqlite_")) / "store.sqlite"
        runs.append(("sqlite", run(str(path), procs, args.decisions, args.seed, None)))
    if args.fault and args.pg:
        procs = max(args.procs)
        got = run(_fresh_pg(args.pg), procs, args.decisions, args.seed, args.fault)
        runs.append((f"postgres, stopped {OUTAGE:g} s mid-run", got))
    print(
        f"{'backend':36} {'N':>2} {'made':>5} {'stored':>6} {'dups':>4} {'p50 ms':>7} "
        f"{'p95 ms':>7} {'conflicts made/found':>21}"
    )
    bad = False
    for name, r in runs:
        ok = (
            r["stored"] == r["made"]
            and r["dups"] == 0
            and r["conflicts_made"] == r["conflicts_found"]
            and not any(r["exit_codes"])  # type: ignore[attr-defined]
        )
        bad |= not ok
        print(
            f"{name:36} {r['procs']:>2} {r['made']:>5} {r['stored']:>6} {r['dups']:>4} "
            f"{r['p50_ms']:>7.2f} {r['p95_ms']:>7.2f} "
            f"{str(r['conflicts_made']) + '/' + str(r['conflicts_found']):>21}"
            + ("" if ok else "  FAILED")
        )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
