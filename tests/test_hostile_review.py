"""Hostile records in the review app: Markdown, every escape, huge lines.

``test_hostile_tui`` covers Rich markup and one escape sequence.  Here each record
field the app shows carries what a repository or a model can write: Markdown (once
rendered, so ``AgenticSystem.__init__()`` showed as a bold "init"), every escape of
:data:`hostile_material.ESCAPES`, and lines of 200,000 characters.  What is on the
screen must be the draft's text, character for character, with control characters
made visible, and the keys must keep working.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from gitrepo import commit
from hostile_material import ESCAPES, MARKUP, RAW_CONTROL

from drafter.model import (
    Paragraph,
    Record,
    RecordSection,
    Report,
    ReportType,
    Source,
    Witness,
    WitnessBlock,
)
from drafter.review_store import Mark
from drafter.sanitize import visible
from tui.app import ReviewApp, make_app
from tui.screens.prompt import PromptScreen
from tui.screens.source import SourceScreen

pytestmark = pytest.mark.anyio

#: Markdown that a renderer would turn into formatting (and so hide characters).
MARKDOWN = (
    "`AgenticSystem.__init__()` calls __main__ and *args; **not bold**; "
    "[a link](file:///etc/passwd); <b>html</b>; # not a heading"
)
ESCAPE_TEXT = " ".join(ESCAPES.values())
#: The same in a file (a NUL byte would make git's file binary).
FILE_ESCAPES = ESCAPE_TEXT.replace("\x00", "")
#: A single line far wider than any terminal.
HUGE = "x = '" + "A" * 200_000 + "'"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _record(rid: str, text: str, quote: str, path: str = "evil.py") -> Record:
    return Record(
        id=rid,
        label=f"Label {text[:200]}",
        blocks=[
            Paragraph(text=f"Said: {text}"),
            WitnessBlock(witness=Witness(quote=quote, path=path)),
        ],
    )


def _app(tmp_path: Path) -> ReviewApp:
    repo = tmp_path / "repo"
    lines = ["def __init__(self): pass", "", HUGE, ""]
    sha = commit(repo, {"evil.py": "\n".join(lines), "esc.txt": f"# {FILE_ESCAPES}\n"})
    recs = [
        _record("RT-CLM-markdown", MARKDOWN, "def __init__(self): pass"),
        _record("RT-CLM-escapes", ESCAPE_TEXT, "# " + FILE_ESCAPES, "esc.txt"),
        _record("RT-CLM-huge", HUGE, HUGE),
        *(
            _record(f"RT-CLM-markup-{k.replace('_', '-')}", v, "def __init__(self): pass")
            for k, v in MARKUP.items()
        ),
    ]
    report = Report(
        system="hostile",
        type=ReportType.runtime,
        source=Source(repository="hostile", revision=sha),
        sections=[RecordSection(title="Claims", records=recs)],
    )
    draft = tmp_path / "draft.json"
    draft.write_text(report.to_json(), encoding="utf-8")
    return make_app(draft, repo, store=tmp_path / "s.sqlite", clock=lambda: 1.0, live_clock=False)


def _screen_text(app: ReviewApp) -> str:
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(seg.text for seg in strip) for strip in strips)


def _drawn(app: ReviewApp, selector: str) -> str:
    """What one widget draws, its soft line breaks undone (long text wraps)."""
    region = app.screen.query_one(selector).region
    lines = _screen_text(app).splitlines()[region.y : region.y + region.height]
    return "".join(line[region.x : region.x + region.width].strip() for line in lines)


async def _go(app: ReviewApp, pilot, rid: str) -> None:  # type: ignore[no-untyped-def]
    assert app.main is not None
    app.main.go_to(rid)
    await pilot.pause()


async def test_markdown_in_a_record_is_shown_as_written(tmp_path: Path) -> None:
    app = _app(tmp_path)
    async with app.run_test(size=(240, 60)) as pilot:
        await pilot.pause()
        await _go(app, pilot, "RT-CLM-markdown")
        body = _drawn(app, "#detail-body").replace(" ", "")
        assert body == f"Said:{MARKDOWN}".replace(" ", "")


async def test_every_escape_is_visible_in_detail_witnesses_and_source(tmp_path: Path) -> None:
    app = _app(tmp_path)
    async with app.run_test(size=(240, 60)) as pilot:
        await pilot.pause()
        await _go(app, pilot, "RT-CLM-escapes")
        shown = _screen_text(app)
        assert RAW_CONTROL.search(shown) is None
        assert shown.count(visible("\x1b]52;c;")) >= 3  # label, paragraph, witness
        for payload in ESCAPES.values():  # each one short enough not to wrap
            assert visible(payload) in shown
        app.push_screen(SourceScreen(app.session, "RT-CLM-escapes", 0))
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        shown = _screen_text(app)
        assert RAW_CONTROL.search(shown) is None
        assert visible("\x1b]0;owned\x07") in shown
        assert "(verified" in shown.splitlines()[0]


async def test_markup_records_keep_their_brackets(tmp_path: Path) -> None:
    app = _app(tmp_path)
    async with app.run_test(size=(240, 60)) as pilot:
        await pilot.pause()
        for key, payload in MARKUP.items():
            await _go(app, pilot, f"RT-CLM-markup-{key.replace('_', '-')}")
            assert f"Said: {payload}" in _screen_text(app)
        assert app.is_running


async def test_huge_lines_stay_responsive_and_decidable(tmp_path: Path) -> None:
    app = _app(tmp_path)
    async with app.run_test(size=(120, 35)) as pilot:
        await pilot.pause()
        await _go(app, pilot, "RT-CLM-huge")
        t0 = time.perf_counter()
        app.push_screen(SourceScreen(app.session, "RT-CLM-huge", 0))
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "lines 3-3" in _screen_text(app).splitlines()[0]  # verified, marked
        await pilot.press("right", "right", "end", "home", "escape")
        await pilot.pause()
        await pilot.press("r")
        assert isinstance(app.screen, PromptScreen)
        await pilot.press("enter")  # no reason: rejected without being sent back
        await pilot.pause()
        assert app.session.state("RT-CLM-huge").mark == Mark.rejected
        # generous: only that it does not hang (a timed figure is a benchmark's job)
        assert time.perf_counter() - t0 < 60


async def test_mismatch_banner_shows_a_hostile_system_name_literally(tmp_path: Path) -> None:
    """The banner quotes the draft's system name and the repository path: both are
    text from elsewhere."""
    payload = f"{MARKUP['link']} {ESCAPES['window_title']}"
    report = Report(
        system=f"sys {payload}",
        type=ReportType.runtime,
        source=Source(repository="x", revision="0" * 40),
        sections=[RecordSection(title="Claims", records=[_record("RT-CLM-a", "x", "y")])],
    )
    draft = tmp_path / "draft.json"
    draft.write_text(report.to_json(), encoding="utf-8")
    other = tmp_path / "[bold]repo[/]"
    commit(other, {"evil.py": "y\n"})
    app = make_app(
        draft,
        other,
        rev="HEAD",
        allow_mismatch=True,
        store=tmp_path / "s.sqlite",
        clock=lambda: 1.0,
        live_clock=False,
    )
    async with app.run_test(size=(240, 40)) as pilot:
        await pilot.pause()
        assert RAW_CONTROL.search(_screen_text(app)) is None
        banner = _drawn(app, "#mismatch").replace(" ", "")  # it wraps
        assert MARKUP["link"].replace(" ", "") in banner
        assert visible(ESCAPES["window_title"]) in banner  # made visible once, not twice
        assert "[bold]repo[/]" in banner
