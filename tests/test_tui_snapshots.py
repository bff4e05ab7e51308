"""Screenshots of the review app at 80x24 and 120x35: the record list, a record's
detail (with the witness list focused), a witness's source, and help.

Deterministic by construction: a tiny repository with fixed commit dates, a
hand-built draft, a frozen clock and no live timer, so nothing in the picture moves.
Regenerate with ``pytest tests/test_tui_snapshots.py --snapshot-update`` and look at
the SVGs under tests/__snapshots__/ before committing them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from review_material import tiny_draft
from textual.pilot import Pilot
from textual.widgets import Input

from tui.app import ReviewApp, make_app

SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 35)], ids=["80x24", "120x35"])


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ReviewApp:
    draft, repo = tiny_draft(tmp_path)
    # the help names the store: a relative path keeps the temporary folder out of it
    monkeypatch.chdir(tmp_path)
    return make_app(draft, repo, store="s.sqlite", clock=lambda: 5000.0, live_clock=False)


async def _decide_some(pilot: Pilot) -> None:  # type: ignore[type-arg]
    await pilot.pause()
    await pilot.press("a")  # accept RT-CMP-model
    await pilot.press("r")  # reject RT-OBJ-run-log
    await pilot.pause()
    pilot.app.screen.query_one(Input).value = "not an operative object"
    await pilot.press("enter")
    await pilot.pause()  # now on RT-RTE-agent-loop, which has a broken quote


@SIZES
def test_main_screen(app: ReviewApp, snap_compare, size) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app, terminal_size=size, run_before=_decide_some)


@SIZES
def test_detail(app: ReviewApp, snap_compare, size) -> None:  # type: ignore[no-untyped-def]
    async def detail(pilot: Pilot) -> None:  # type: ignore[type-arg]
        await _decide_some(pilot)
        await pilot.press("space", "up", "tab", "down")  # mark, back, 2nd witness
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=detail)


@SIZES
def test_source_view(app: ReviewApp, snap_compare, size) -> None:  # type: ignore[no-untyped-def]
    async def open_source(pilot: Pilot) -> None:  # type: ignore[type-arg]
        await _decide_some(pilot)
        await pilot.press("tab", "down", "enter")  # second witness of the route
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause(0.3)  # the view scrolls to the quote once the file is laid out

    assert snap_compare(app, terminal_size=size, run_before=open_source)


@SIZES
def test_help_screen(app: ReviewApp, snap_compare, size) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app, terminal_size=size, press=["question_mark"])
