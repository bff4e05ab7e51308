"""Text-format throughput: parse, render (text, Markdown) and JSON on the gold reports
and on a generated 600-record report built from the gold records.

Run: .venv/bin/python benchmarks/textformat_roundtrip.py [GOLD_DIR]
Prints a rich table; not a test.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.table import Table

from drafter.model import Report
from drafter.textformat import parse_report, render_markdown, render_text

GOLD = Path(__file__).resolve().parents[2] / "shared" / "gold"


def _best(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _big(report: Report, copies: int) -> Report:
    big = report.model_copy(deep=True)
    for section in big.sections:
        originals = list(section.records)
        section.records = [
            r.model_copy(update={"id": f"{r.id}-c{i}"}) for i in range(copies) for r in originals
        ]
    return big


def main() -> None:
    gold = Path(sys.argv[1]) if len(sys.argv) > 1 else GOLD
    runtime = (gold / "auto-harness.runtime.txt").read_text(encoding="utf-8")
    epistemic = (gold / "hyperagents.epistemic.txt").read_text(encoding="utf-8")
    big_report = _big(parse_report(runtime).report, 35)
    cases = {
        "auto-harness gold": runtime,
        "hyperagents gold": epistemic,
        f"generated ({len(big_report.records)} records)": render_text(big_report),
    }
    table = Table(title="text format throughput (best of 5)")
    for col in (
        "input",
        "KB",
        "records",
        "parse ms",
        "parse MB/s",
        "text ms",
        "md ms",
        "json ms",
        "round trip",
    ):
        table.add_column(col, justify="right" if col != "input" else "left")
    for name, text in cases.items():
        report = parse_report(text).report
        t_parse = _best(lambda t=text: parse_report(t), 5)
        t_text = _best(lambda r=report: render_text(r), 5)
        t_md = _best(lambda r=report: render_markdown(r), 5)
        t_json = _best(lambda r=report: Report.from_json(r.to_json()), 5)
        same = parse_report(render_text(report)).report == report
        kb = len(text.encode()) / 1024
        table.add_row(
            name,
            f"{kb:.0f}",
            str(len(report.records)),
            f"{t_parse * 1e3:.1f}",
            f"{kb / 1024 / t_parse:.1f}",
            f"{t_text * 1e3:.1f}",
            f"{t_md * 1e3:.1f}",
            f"{t_json * 1e3:.1f}",
            "equal" if same else "DIFFERS",
        )
    Console().print(table)


if __name__ == "__main__":
    main()
