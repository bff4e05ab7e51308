"""The progress of a resumed run never counts past its plan.

A run stopped during a repair round has every planned record drafted already; its
repairs run the record step again, and counting them as records printed "drafting
records 23/15".  The bar is seeded from the checkpoint's plan, drafts and pending
repairs, so a resumed repair round reads as repairs.
"""

from __future__ import annotations

import io

from rich.console import Console

from graph.cli import _records_so_far, _RunProgress


def _lines(seed: tuple[int, int, int], steps: int) -> list[str]:
    buf = io.StringIO()
    bar = _RunProgress(Console(file=buf, width=200, force_terminal=False))
    bar.seed(*seed)
    for _ in range(steps):
        bar("draft_record", {})
    return [line for line in buf.getvalue().splitlines() if line.startswith("drafter:")]


def test_a_run_stopped_in_repairs_resumes_as_repairs() -> None:
    stored = {
        "plan": {"items": [{"id": f"r{i}"} for i in range(15)]},
        "drafts": {f"r{i}": {} for i in range(15)},
        "pending": {"r3": {}, "r7": {}},
    }
    seed = _records_so_far(stored)
    assert seed == (15, 15, 2)
    lines = _lines(seed, 8)
    assert not any("/15" in line for line in lines), lines


def test_a_run_stopped_while_drafting_counts_to_its_plan() -> None:
    stored = {
        "plan": {"items": [{"id": f"r{i}"} for i in range(4)]},
        "drafts": {"r0": {}},
    }
    seed = _records_so_far(stored)
    assert seed == (1, 4, 0)
    lines = _lines(seed, 3)
    assert lines and lines[-1].startswith("drafter: drafting records 4/4"), lines
