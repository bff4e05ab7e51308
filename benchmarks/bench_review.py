"""Benchmark: how fast the review keeps up with an analyst.

Figures for a 50-record draft of the shipped sample's offline draft scaled up (the
offline draft's records repeated under new IDs): opening a review session (load +
verify + fold the store), the latency of one durable decision (a committed row with
synchronous=FULL), folding the state of every record after 1,000 decisions (what the
app does after each key), and lexing a file for the source view (done in a worker;
only the visible lines are drawn).

    .venv/bin/python benchmarks/bench_review.py
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from drafter.sample import materialize
from graph.offline_run import draft_offline
from tui.session import ReviewSession
from tui.widgets.code_view import highlight_lines

RECORDS = 50
DECISIONS = 1000


def _draft(base: Path) -> tuple[Path, Path]:
    repo = materialize(base / "repo")
    report = draft_offline(repo.path, repo.sha, base / "data", system="repo", thorough=True)
    records = list(report.records)
    i = 0
    while len(report.records) < RECORDS:
        r = records[i % len(records)].model_copy(deep=True)
        r.id = f"{r.id}-copy{i}"
        r.part_of = None
        report.sections[[s.title for s in report.sections].index(_title(report, r))].records.append(
            r
        )
        i += 1
    draft = base / "draft.json"
    draft.write_text(report.to_json())
    return draft, repo.path


def _title(report, r):  # type: ignore[no-untyped-def]
    for s in report.sections:
        if any(x.kind == r.kind for x in s.records):
            return s.title
    raise KeyError(r.kind)


def main() -> None:
    console = Console()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        draft, repo = _draft(base)
        t0 = time.perf_counter()
        session = ReviewSession(draft, repo, store_path=base / "s.sqlite")
        open_s = time.perf_counter() - t0
        records = session.report.records
        lat = []
        for n in range(DECISIONS):
            r = records[n % len(records)]
            t = time.perf_counter()
            if n % 4 == 0:
                session.store.reject(r, f"reason {n}")
            else:
                session.store.accept(r)
            lat.append(time.perf_counter() - t)
        t = time.perf_counter()
        for _ in range(20):
            session.refresh_states()
            session.store.progress(records)
        fold = (time.perf_counter() - t) / 20
        biggest = max(
            session.snapshot.files(), key=lambda p: len(session.snapshot.read_text(p).text)
        )
        t = time.perf_counter()
        text = session.snapshot.read_text(biggest).text
        highlight_lines(biggest, text)  # the source view's worker; drawing is per visible line
        src = time.perf_counter() - t
        n_witnesses = len(session.report.witnesses)
        session.close()
    lat.sort()
    table = Table(
        title=f"review: {len(records)} records, {n_witnesses} witnesses, {DECISIONS} decisions"
    )
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_row(
        "open session (load, verify all witnesses, fold store)", f"{open_s * 1000:.0f} ms"
    )
    table.add_row("one durable decision, median", f"{statistics.median(lat) * 1000:.2f} ms")
    table.add_row("one durable decision, p99", f"{lat[int(len(lat) * 0.99)] * 1000:.2f} ms")
    table.add_row(f"fold all record states after {DECISIONS} decisions", f"{fold * 1000:.1f} ms")
    table.add_row(
        f"lex source view of {biggest} ({len(text.splitlines())} lines)", f"{src * 1000:.0f} ms"
    )
    console.print(table)


if __name__ == "__main__":
    main()
