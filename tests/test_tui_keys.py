"""Pilot tests of the review app's key paths, as lazygit and k9s users expect them:
marks and bulk decisions, combined filters, dialogs that open empty, the source
view's find / go-to-line / sideways scroll, the paragraph editor, the body shown
once, whole quotes, and a draft carried to a new revision (flags, moved and stale
witnesses, the other revision's source)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from review_material import tiny_draft
from textual.widgets import Input, SelectionList, TextArea

from drafter.cli import main
from drafter.model import Report
from drafter.review_identity import derive_meta
from drafter.review_store import Mark, ReviewStore
from tui.app import ReviewApp, make_app
from tui.screens.choice import ChoiceScreen, FilterScreen
from tui.screens.editor import EditorScreen
from tui.screens.prompt import PromptScreen
from tui.screens.source import SourceScreen
from tui.widgets.code_view import CodeView
from tui.widgets.record_tree import FLAGGED, SELECTED, RecordTree
from tui.widgets.witness_list import WitnessList

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def tiny(tmp_path: Path) -> tuple[Path, Path, Path]:
    draft, repo = tiny_draft(tmp_path)
    return draft, repo, tmp_path / "s.sqlite"


def _app(draft: Path, repo: Path, store: Path) -> ReviewApp:
    return make_app(draft, repo, store=store, clock=lambda: 1000.0, live_clock=False)


def _labels(app: ReviewApp) -> dict[str, str]:
    tree = app.screen.query_one(RecordTree)
    return {leaf.data: str(leaf.label) for sec in tree.root.children for leaf in sec.children}


async def _prompt(app: ReviewApp, pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    assert isinstance(app.screen, PromptScreen)
    app.screen.query_one(Input).value = text
    await pilot.press("enter")
    await pilot.pause()


async def test_space_and_v_mark_then_bulk_accept_and_reject(tiny) -> None:  # type: ignore[no-untyped-def]
    draft, repo, store = tiny
    app = _app(draft, repo, store)
    async with app.run_test(size=(120, 35)) as pilot:
        await pilot.pause()
        ids = app.session.visible_ids()
        assert app.main is not None and app.main.current_id == ids[0]
        await pilot.press("space")  # marks the first; the cursor stays on it
        assert app.session.marked == {ids[0]}
        assert app.main.current_id == ids[0]
        assert _labels(app)[ids[0]].startswith(SELECTED)
        # space, two records down, v: exactly those three (space once moved the cursor,
        # so the same keys marked four)
        for _ in range(2):  # two records down (section titles sit between them)
            here = app.main.current_id
            while app.main.current_id == here:
                await pilot.press("down")
        await pilot.press("v")
        assert app.session.marked == {ids[0], ids[1], ids[2]}
        await pilot.press("escape", "space")
        assert app.session.marked == {ids[2]}
        await pilot.press("space")  # unmarks
        assert not app.session.marked
        app.main.go_to(ids[0])
        await pilot.press("space")
        await pilot.press("down")
        await pilot.press("a")  # accept applies to the marks, not the current record
        await pilot.pause()
        s = app.session
        assert s.state(ids[0]).mark == Mark.accepted
        assert s.state(ids[1]).mark == Mark.pending
        assert not s.marked
        # v marks a range: from the last marked record to the current one
        app.main.go_to(ids[1])
        await pilot.press("space")  # mark ids[1]
        app.main.go_to(ids[3])
        await pilot.press("v")
        assert s.marked == {ids[1], ids[2], ids[3]}
        await pilot.press("r")
        await _prompt(app, pilot, "out of scope for this report")
        assert [s.state(i).mark for i in ids[1:]] == [Mark.rejected] * 3
        assert all(s.state(i).reason == "out of scope for this report" for i in ids[1:])
        # Esc clears marks
        await pilot.press("space", "escape")
        assert not s.marked


async def test_filters_combine_and_dialogs_open_empty(tiny) -> None:  # type: ignore[no-untyped-def]
    draft, repo, store = tiny
    app = _app(draft, repo, store)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        s = app.session
        first = s.visible_ids()[0]
        await pilot.press("a")
        await pilot.press("f")
        assert isinstance(app.screen, FilterScreen)
        sl = app.screen.query_one(SelectionList)
        assert list(sl.selected) == []
        sl.select("accepted")
        sl.select("pending")
        sl.select("kind:RTE")
        sl.select("kind:CMP")
        await pilot.press("enter")
        await pilot.pause()
        # (accepted or pending) and (route or component)
        assert s.visible_ids() == [first, "RT-RTE-agent-loop"]
        await pilot.press("f")
        app.screen.query_one(SelectionList).deselect("pending")
        await pilot.press("enter")
        await pilot.pause()
        assert s.visible_ids() == [first]
        await pilot.press("f")
        app.screen.query_one(SelectionList).deselect_all()
        await pilot.press("enter")
        await pilot.pause()
        # / filters by text over ID, label and body; the dialog opens empty each time
        await pilot.press("slash")
        await _prompt(app, pilot, "appended once")
        assert s.visible_ids() == ["RT-OBJ-run-log"]
        await pilot.press("slash")
        assert isinstance(app.screen, PromptScreen)
        assert app.screen.query_one(Input).value == ""
        await _prompt(app, pilot, "")  # empty clears
        assert len(s.visible_ids()) == 4
        await pilot.press("r")
        assert app.screen.query_one(Input).value == ""
        await pilot.press("escape")


async def test_paragraph_editor_is_multi_line(tiny) -> None:  # type: ignore[no-untyped-def]
    draft, repo, store = tiny
    app = _app(draft, repo, store)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        rid = app.main.current_id  # type: ignore[union-attr]
        await pilot.press("e")
        assert isinstance(app.screen, ChoiceScreen)
        app.screen.query_one("#choice-list").highlighted = [  # type: ignore[attr-defined]
            k for k, _ in app.screen.options
        ].index("Paragraph 1")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, EditorScreen)
        area = app.screen.query_one(TextArea)
        assert area.soft_wrap and "Source-native identity" in area.text
        area.text = "Source-native identity: `claude-x`.\nRepresentational form: hosted.\n"
        await pilot.press("ctrl+s")
        await pilot.pause()
    with ReviewStore(store) as s:
        rows = [r for r in s.rows(rid) if r.field == "Paragraph 1"]
    assert rows and rows[-1].text == (
        "Source-native identity: `claude-x`. Representational form: hosted."
    )


async def test_body_once_and_whole_quotes(tiny) -> None:  # type: ignore[no-untyped-def]
    draft, repo, store = tiny
    app = _app(draft, repo, store)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.main.go_to("RT-RTE-agent-loop")  # type: ignore[union-attr]
        await pilot.pause()
        fields = str(app.screen.query_one("#detail-fields").render())
        body = str(app.screen.query_one("#detail-body").render())
        assert "Endpoints/progression" in fields
        assert "Endpoints/progression" not in body  # the lead is not shown twice
        assert "stops on a reply" in body  # the rest of the paragraph is
        options = app.screen.query_one(WitnessList).options
        quotes = [" ".join(str(o.prompt).split()) for o in options]
        assert any(
            "for step in range(MAX_STEPS): reply = call_model(client, messages)" in q
            for q in quotes
        )
        # wrapped with a hanging indent: every line of a quote starts under the quote
        wrapped = [str(o.prompt).split("\n")[1:] for o in options]
        assert all(line.startswith("   ") for lines in wrapped for line in lines)
        assert any(len(lines) > 1 for lines in wrapped)  # 80 columns: one quote wraps


async def test_source_view_find_goto_and_sideways(tiny) -> None:  # type: ignore[no-untyped-def]
    draft, repo, store = tiny
    app = _app(draft, repo, store)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("s")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, SourceScreen)
        view = app.screen.query_one(CodeView)
        await pilot.press("colon")
        await _prompt(app, pilot, "3")
        assert view.cursor_line == 3
        await pilot.press("slash")
        assert app.screen.query_one(Input).value == ""
        await _prompt(app, pilot, "def ")
        first = view.cursor_line
        assert first is not None and "def " in view.lines[first - 1].plain
        await pilot.press("n")
        assert view.cursor_line != first and "def " in view.lines[view.cursor_line - 1].plain  # type: ignore[operator]
        await pilot.press("N")
        assert view.cursor_line == first
        assert "line" in str(app.screen.query_one("#source-find").render())
        await pilot.press("right", "right")
        assert view.scroll_x > 0 or view.virtual_size.width <= view.size.width
        await pilot.press("home")
        assert view.scroll_x == 0


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo), *args],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


async def test_carried_draft_shows_flags_moved_stale_and_both_revisions(tiny, tmp_path) -> None:  # type: ignore[no-untyped-def]
    draft, repo, _ = tiny
    agent = (repo / "agent.py").read_text()
    agent = "# moved down\n# by two lines\n" + agent.replace(
        "out = run_tool(call.command)", "x = 1"
    )
    (repo / "agent.py").write_text(agent)
    _git(repo, "commit", "-qam", "v2")
    new = tmp_path / "carried.json"
    code = main(["reverify", str(draft), "--rev", "HEAD", "--repo", str(repo), "--out", str(new)])
    assert code == 1  # one quote is gone
    app = _app(new, repo, tmp_path / "s2.sqlite")
    async with app.run_test(size=(120, 35)) as pilot:
        await pilot.pause()
        labels = _labels(app)
        assert labels["RT-RTE-agent-loop"].endswith(FLAGGED)
        assert not labels["RT-CLM-no-internet"].endswith(FLAGGED)
        app.main.go_to("RT-RTE-agent-loop")  # type: ignore[union-attr]
        await pilot.pause()
        quotes = [str(o.prompt) for o in app.screen.query_one(WitnessList).options]
        assert sum("[moved]" in q for q in quotes) == 1
        # the removed line, and a quote that was never there (not found at either)
        assert sum("[stale]" in q for q in quotes) == 2
        await pilot.press("s")  # first witness: moved
        await app.workers.wait_for_complete()
        await pilot.pause()
        view = app.screen.query_one(CodeView)
        new_marked = set(view.marked)
        await pilot.press("o")  # the revision it was carried from
        await app.workers.wait_for_complete()
        await pilot.pause()
        title = str(app.screen.query_one("#source-title").render())
        assert "revision carried from" in title
        lo, hi = min(view.marked), max(view.marked)
        assert f"lines {lo}-{hi}" in title
        assert {n + 2 for n in view.marked} == new_marked  # two lines further down now


async def test_redrafted_record_shows_changed_since_review_with_a_diff(tiny, tmp_path) -> None:  # type: ignore[no-untyped-def]
    draft, repo, store = tiny
    old = Report.from_json(draft.read_text())
    run_log = old.record("RT-OBJ-run-log")
    assert run_log is not None
    with ReviewStore(store) as s:
        s.reject(run_log, "say who reads it back")
        s.accept(old.record("RT-CMP-model"))  # type: ignore[arg-type]
    new = old.model_copy(deep=True)
    new.meta = derive_meta(old)
    new.meta.extra["previous_versions"] = {run_log.id: run_log.model_dump(mode="json")}
    redone = new.record(run_log.id)
    redone.label = "Run log, read back by nothing"  # type: ignore[union-attr]
    path = tmp_path / "tiny.redraft.json"
    path.write_text(new.to_json())
    app = _app(path, repo, store)
    async with app.run_test(size=(120, 35)) as pilot:
        await pilot.pause()
        assert app.session.state("RT-CMP-model").mark == Mark.accepted  # survived
        app.main.go_to(run_log.id)  # type: ignore[union-attr]
        await pilot.pause()
        header = str(app.screen.query_one("#detail-header").render())
        assert "changed since review (was rejected)" in header
        diff = str(app.screen.query_one("#detail-diff").render())
        assert "Changed since review" in diff
        assert "-Label: Run log" in diff and "+Label: Run log, read back by nothing" in diff


async def test_shift_r_sends_rejected_records_to_redraft(tiny) -> None:  # type: ignore[no-untyped-def]
    draft, repo, store = tiny
    app = _app(draft, repo, store)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("R")  # nothing rejected yet: nothing runs
        assert not (draft.parent / "tiny.redraft.json").exists()
        app.main.go_to("RT-OBJ-run-log")  # type: ignore[union-attr]
        await pilot.press("r")
        await _prompt(app, pilot, "not an operative object")
        await pilot.press("R")
        await pilot.pause()
        await pilot.press("enter")  # confirm: "Redraft them"
        await app.workers.wait_for_complete()
        await pilot.pause()
    out = draft.parent / "tiny.redraft.json"
    assert out.exists()
    new = Report.from_json(out.read_text())
    assert any("not an operative object" in n for n in new.meta.notes)  # type: ignore[union-attr]
