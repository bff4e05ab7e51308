"""Pilot test: an epistemic draft's tables in the review app, with cited files openable."""

from __future__ import annotations

from pathlib import Path

import pytest

from drafter.reportio import save_report
from drafter.sample import gold_path, materialize
from graph.epistemic.workflow import run_epistemic
from tui.app import make_app
from tui.screens.file_view import FileScreen
from tui.screens.main import MainScreen
from tui.screens.tables import TablesScreen
from tui.widgets.code_view import CodeView
from tui.widgets.report_table import ReportTable

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def epistemic_draft(tmp_path: Path) -> tuple[Path, Path]:
    sample = materialize(tmp_path / "repo")
    result = run_epistemic(str(sample.path), sample.sha, gold_path(), data_dir=tmp_path / "d")
    draft = tmp_path / "epi.json"
    save_report(result.report, draft, "json")
    return draft, sample.path


async def test_ledger_row_shown_and_its_source_opens(epistemic_draft) -> None:
    draft, repo = epistemic_draft
    app = make_app(draft, repo, store=draft.with_suffix(".sqlite"), live_clock=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.press("t")
        assert isinstance(app.screen, TablesScreen)
        for _ in range(3):  # Coverage, inventory, then the ledger
            if app.screen.tables[app.screen.index][0] == "Authority-route ledger":
                break
            await pilot.press("right_square_bracket")
        screen = app.screen
        assert screen.tables[screen.index][0] == "Authority-route ledger"
        table = screen.query_one(ReportTable)
        first = table.current_row
        assert first is not None and first[0].startswith("EPI-RTE-")
        assert table.row_count == len(screen.tables[screen.index][1].rows)
        assert str(table.get_row_at(0)[0]) == first[0]
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, FileScreen)
        cited = first[13].split(", ")[-1]
        assert app.screen.path == cited
        await app.workers.wait_for_complete()
        await pilot.pause()
        view = app.screen.query_one(CodeView)
        assert view.lines and view.message is None
        await pilot.press("escape")
        assert isinstance(app.screen, TablesScreen)
        # g jumps to the route record the row names
        await pilot.press("g")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        assert app.screen.current_id == first[0]
