"""Hostile text in the review app: markup, actions and escape bytes are shown literally.

A record's label, paragraph, table cells and witness quote come from the repository
and the model.  Textual reads strings as markup by default, so ``[@click=app.quit]``
could become a live action and ``[bold red]X[/]`` a style; a raw ESC in a Rich ``Text``
reaches the terminal untouched.  These Pilot tests render the real app and look at
what is on the screen.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gitrepo import commit
from hostile_material import RAW_CONTROL
from textual.widgets import DataTable

from drafter.model import (
    AccountSection,
    Paragraph,
    Record,
    RecordSection,
    Report,
    ReportType,
    Source,
    Table,
    Witness,
    WitnessBlock,
)
from tui.app import ReviewApp, make_app
from tui.screens.editor import EditorScreen
from tui.screens.prompt import PromptScreen
from tui.screens.source import SourceScreen
from tui.screens.tables import TablesScreen

pytestmark = pytest.mark.anyio

MARKUP = "[bold red]X[/]"
ACTION = "[@click=app.quit]quit[/]"
ESC = "\x1b]0;owned\x07\x1b[2J"
PAYLOAD = f"{MARKUP} {ACTION} {ESC}"
#: How the escape must look on screen (BEL included: Textual would drop it silently).
ESC_SHOWN = "⟨U+001B⟩]0;owned⟨U+0007⟩⟨U+001B⟩[2J"
LINE = f"evil = 1 # {PAYLOAD}"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _report(sha: str) -> Report:
    rec = Record(
        id="RT-CLM-evil",
        label=f"Label {PAYLOAD}",
        blocks=[
            Paragraph(text=f"Claimed: {PAYLOAD}"),
            WitnessBlock(witness=Witness(quote=LINE, path="evil.py")),
        ],
    )
    table = Table(header=["Path", "Note"], rows=[["evil.py", f"cell {PAYLOAD}"]])
    return Report(
        system="hostile",
        type=ReportType.epistemic,
        source=Source(repository="hostile", revision=sha),
        account=[AccountSection(title=f"Coverage {MARKUP}", blocks=[table])],
        sections=[RecordSection(title="Claims", records=[rec])],
    )


@pytest.fixture
def app(tmp_path: Path) -> ReviewApp:
    repo = tmp_path / "repo"
    sha = commit(repo, {"evil.py": LINE + "\n"})
    draft = tmp_path / "draft.json"
    draft.write_text(_report(sha).to_json(), encoding="utf-8")
    return make_app(draft, repo, store=tmp_path / "s.sqlite", clock=lambda: 1.0, live_clock=False)


def _screen_text(app: ReviewApp) -> str:
    """Every character the app would draw now, line by line."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(seg.text for seg in strip) for strip in strips)


def _assert_literal(shown: str) -> None:
    assert RAW_CONTROL.search(shown) is None, "a raw control character reached the screen"
    assert MARKUP in shown, "markup was interpreted instead of shown"
    assert "[@click=app.quit]" in shown, "the action markup was interpreted"
    assert ESC_SHOWN in shown


async def test_record_detail_and_witnesses_show_payloads_literally(app: ReviewApp) -> None:
    async with app.run_test(size=(220, 60)) as pilot:
        await pilot.pause()
        shown = _screen_text(app)
        _assert_literal(shown)
        assert f"Label {MARKUP}" in shown  # the header
        assert f"evil = 1 # {MARKUP}" in shown  # the witness line
        assert app.is_running


async def test_clicking_the_action_text_does_not_quit(app: ReviewApp) -> None:
    """The tables screen's row line once read its text as markup: a click on "quit" quit."""
    async with app.run_test(size=(220, 60)) as pilot:
        await pilot.pause()
        app.push_screen(TablesScreen(app.session))
        await pilot.pause()
        shown = _screen_text(app).splitlines()
        y = next(i for i, line in enumerate(shown) if line.startswith("evil.py | cell"))
        x = shown[y].rindex("quit")
        await pilot.click(offset=(x + 1, y))
        await pilot.pause()
        assert app.is_running and app.return_code is None
        assert isinstance(app.screen, TablesScreen)


async def test_source_view_shows_file_and_quote_literally(app: ReviewApp) -> None:
    async with app.run_test(size=(220, 60)) as pilot:
        await pilot.pause()
        app.push_screen(SourceScreen(app.session, "RT-CLM-evil", 0))
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        shown = _screen_text(app)
        _assert_literal(shown)
        assert shown.count(f"evil = 1 # {MARKUP}") >= 2  # witness line and the code


async def test_tables_screen_shows_cells_literally(app: ReviewApp) -> None:
    async with app.run_test(size=(220, 60)) as pilot:
        await pilot.pause()
        app.push_screen(TablesScreen(app.session))
        await pilot.pause()
        shown = _screen_text(app)
        assert RAW_CONTROL.search(shown) is None
        assert f"Coverage {MARKUP}" in shown  # title
        assert f"cell {MARKUP}" in shown  # the cell and the row line
        cell = app.screen.query_one(DataTable).get_cell_at((0, 1))
        assert MARKUP in str(cell)


async def test_notifications_are_literal(app: ReviewApp) -> None:
    async with app.run_test(size=(220, 60), notifications=True) as pilot:
        await pilot.pause()
        app.notify(f"bad {PAYLOAD}", severity="error")
        await pilot.pause()
        shown = _screen_text(app)
        assert RAW_CONTROL.search(shown) is None
        assert f"bad {MARKUP}" in shown
        assert app.is_running


@pytest.mark.parametrize("kind", ["prompt", "editor"])
async def test_editing_a_hostile_value_shows_it_visibly_and_keeps_it(
    app: ReviewApp, kind: str
) -> None:
    """The edit dialogs show the draft's value with escapes visible; saving it unchanged
    stores the very same characters (the visible form is read back)."""
    value = f"Label {PAYLOAD}"
    got: list[str | None] = []
    async with app.run_test(size=(220, 60)) as pilot:
        await pilot.pause()
        title = f"Edit Label of {MARKUP}"
        screen = PromptScreen(title, value) if kind == "prompt" else EditorScreen(title, value)
        app.push_screen(screen, got.append)
        await pilot.pause()
        shown = _screen_text(app)
        assert RAW_CONTROL.search(shown) is None
        assert f"Edit Label of {MARKUP}" in shown
        assert ESC_SHOWN in shown
        await pilot.press("enter" if kind == "prompt" else "ctrl+s")
        await pilot.pause()
    assert got == [value]
