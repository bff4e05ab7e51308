"""Pilot tests: the real review app over a draft of the shipped sample.

Keys -> decisions in the store -> a reopened app shows them -> exports hold exactly
the accepted records with the analyst's edits.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from review_material import sample_draft
from textual.widgets import Input, OptionList, SelectionList, Static

from drafter.errors import BadInput
from drafter.model import Report, VerifyStatus
from drafter.review_store import Mark, ReviewStore
from drafter.textformat import parse_report
from tui.app import ReviewApp, make_app
from tui.screens.choice import ChoiceScreen, FilterScreen
from tui.screens.help import HelpScreen
from tui.screens.main import MainScreen
from tui.screens.prompt import PromptScreen
from tui.screens.source import SourceScreen
from tui.widgets.code_view import CodeView
from tui.widgets.record_tree import RecordTree

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


Material = tuple[Path, Path, Path, str]


@pytest.fixture
def material(tmp_path: Path) -> Material:
    """(draft, repo, store, ID of the record whose first quote is broken)."""
    draft, repo, broken = sample_draft(tmp_path)
    return draft, repo, tmp_path / "review.sqlite", broken


def _app(material: Material) -> ReviewApp:
    draft, repo, store, _ = material
    return make_app(draft, repo, store=store, clock=lambda: 1000.0, live_clock=False)


def _main(app: ReviewApp) -> MainScreen:
    assert app.main is not None
    return app.main


async def _type_into_prompt(app: ReviewApp, pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    assert isinstance(app.screen, PromptScreen)
    app.screen.query_one(Input).value = text
    await pilot.press("enter")
    await pilot.pause()


async def _choose(app: ReviewApp, pilot, key: str) -> None:  # type: ignore[no-untyped-def]
    assert isinstance(app.screen, ChoiceScreen)
    keys = [k for k, _ in app.screen.options]
    ol = app.screen.query_one(OptionList)
    ol.highlighted = keys.index(key)
    await pilot.press("enter")
    await pilot.pause()


async def _filters(app: ReviewApp, pilot, *keys: str) -> None:  # type: ignore[no-untyped-def]
    """Tick exactly ``keys`` in the filter dialog (nothing: all records) and apply."""
    assert isinstance(app.screen, FilterScreen)
    sl = app.screen.query_one(SelectionList)
    sl.deselect_all()
    for k in keys:
        sl.select(k)
    await pilot.press("enter")
    await pilot.pause()


async def _search(app: ReviewApp, pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    await pilot.press("slash")
    await _type_into_prompt(app, pilot, text)


async def test_keys_persist_reopen_and_export(material: Material) -> None:
    draft, _, store_path, BROKEN_RECORD = material
    app = _app(material)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        main = _main(app)
        ids = [r.id for r in app.session.report.records]
        assert main.current_id == ids[0]

        await pilot.press("a")  # accept, then the cursor moves on
        assert main.current_id == ids[1]
        await pilot.press("r")
        await _type_into_prompt(app, pilot, "duplicate of the config model")
        assert main.current_id == ids[2]
        await pilot.press("c")
        await _type_into_prompt(app, pilot, "ask the author about this endpoint")
        await pilot.press("e")
        await _choose(app, pilot, "Label")
        assert isinstance(app.screen, PromptScreen)
        assert app.screen.query_one(Input).value == app.session.record(ids[2]).label
        await _type_into_prompt(app, pilot, "Edited label (review)")
        await pilot.press("a")

        # a witness-level rejection on the draft's broken quote
        await pilot.press("f")
        await _filters(app, pilot, "unverified")
        assert app.session.visible_ids() == [BROKEN_RECORD]
        assert main.current_id == BROKEN_RECORD
        await pilot.press("W")
        await _type_into_prompt(app, pilot, "quote not in the file")
        await pilot.press("tab", "down", "w")  # the second witness, from the witness list
        await pilot.press("a")
        await pilot.press("f")
        await _filters(app, pilot)

        # an accept, undone
        await pilot.press("shift+tab", "n")  # back to the record list, next pending record
        before = main.current_id
        assert app.session.state(before or "").mark == Mark.pending
        assert before is not None
        await pilot.press("a", "u")
        assert app.session.state(before).mark == Mark.pending
        assert main.current_id == before

        # export the accepted records as Markdown through the dialog
        out_md = draft.parent / "accepted.md"
        await pilot.press("x")
        await _choose(app, pilot, "markdown")
        await _type_into_prompt(app, pilot, str(out_md))
        await app.workers.wait_for_complete()
        await pilot.pause()
        last = main.current_id

    # the store has exactly what was decided
    report = Report.from_json(draft.read_text())
    with ReviewStore(store_path) as store:
        st = store.states(report.records)
    assert st[ids[0]].mark == Mark.accepted
    assert st[ids[1]].mark == Mark.rejected
    assert st[ids[1]].reason == "duplicate of the config model"
    assert st[ids[2]].mark == Mark.accepted
    assert st[ids[2]].notes == ["ask the author about this endpoint"]
    assert st[ids[2]].edits == {"Label": "Edited label (review)"}
    broken = report.record(BROKEN_RECORD)
    assert broken is not None
    assert st[BROKEN_RECORD].mark == Mark.accepted
    assert st[BROKEN_RECORD].witness_decision(broken.witnesses[0]) is False
    assert st[BROKEN_RECORD].witness_decision(broken.witnesses[1]) is True
    assert st[before].mark == Mark.pending
    accepted = [ids[0], ids[2], BROKEN_RECORD]
    assert sorted(k for k, v in st.items() if v.mark == Mark.accepted) == sorted(accepted)

    # a reopened app shows them
    app2 = _app(material)
    async with app2.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        tree = app2.screen.query_one(RecordTree)
        labels = {leaf.data: str(leaf.label) for sec in tree.root.children for leaf in sec.children}
        assert labels[ids[0]].startswith("✔ ")
        assert labels[ids[1]].startswith("✘ ")
        assert labels[ids[2]].startswith("✔ ")
        assert labels[before].startswith("· ")
        progress = str(app2.screen.query_one("#progress").render())
        assert f"Reviewed 4/{len(ids)}" in progress
        # the reopened review returns to the record the analyst was on
        main2 = _main(app2)
        assert main2.current_id == last
        await pilot.press("n")
        assert app2.session.state(main2.current_id or "").mark == Mark.pending

        # JSON and text exports, through the same dialog
        for fmt, name in (("json", "accepted.json"), ("text", "accepted.txt")):
            await pilot.press("x")
            await _choose(app2, pilot, fmt)
            await _type_into_prompt(app2, pilot, str(draft.parent / name))
            await app2.workers.wait_for_complete()
            await pilot.pause()

    got = Report.from_json((draft.parent / "accepted.json").read_text())
    assert [r.id for r in got.records] == [r for r in ids if r in accepted]
    shell = got.record(ids[2])
    assert shell is not None and shell.label == "Edited label (review)"
    kept = got.record(BROKEN_RECORD)
    assert kept is not None
    assert [w.quote for w in kept.witnesses] == [w.quote for w in broken.witnesses[1:]]

    text = (draft.parent / "accepted.txt").read_text()
    parsed = parse_report(text).report
    assert [r.id for r in parsed.records] == [r.id for r in got.records]

    md = (draft.parent / "accepted.md").read_text()
    headings = [ln.removeprefix("#### ") for ln in md.splitlines() if ln.startswith("#### ")]
    assert headings == [r for r in ids if r in accepted]
    assert "Edited label (review)" in md


async def test_filters_search_and_pending_navigation(material: Material) -> None:
    app = _app(material)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        main = _main(app)
        s = app.session
        total = len(s.report.records)
        BROKEN_RECORD = material[3]

        await pilot.press("f")
        await _filters(app, pilot, "unverified")
        assert s.visible_ids() == [BROKEN_RECORD]
        assert main.current_id == BROKEN_RECORD
        w0 = s.record(BROKEN_RECORD).witnesses[0]
        assert w0.verification is not None and w0.verification.status == VerifyStatus.not_found

        await pilot.press("f")
        await _filters(app, pilot, "kind:BAP")
        assert all(rid.startswith("RT-BAP-") for rid in s.visible_ids())
        assert len(s.visible_ids()) == len(s.report.records_of_kind("BAP"))

        await pilot.press("f")
        await _filters(app, pilot, "pending")
        first = main.current_id
        await pilot.press("a")  # leaves the pending view
        assert first not in s.visible_ids()
        assert len(s.visible_ids()) == total - 1
        assert main.current_id == s.visible_ids()[0]

        await pilot.press("f")
        await _filters(app, pilot, "accepted")
        assert s.visible_ids() == [first]
        await pilot.press("f")
        await _filters(app, pilot)

        # next / previous pending skip decided records and wrap
        ids = s.visible_ids()
        pending = [i for i in ids if i != first]
        assert len(pending) == total - 1
        main.go_to(ids[-1])
        await pilot.pause()
        await pilot.press("n")  # wraps to the top
        assert main.current_id == pending[0]
        await pilot.press("p")
        assert main.current_id == ids[-1]
        before_first = ids[ids.index(first) - 1]
        main.go_to(ids[ids.index(first) + 1])
        await pilot.pause()
        await pilot.press("p")  # skips the accepted record
        assert main.current_id == before_first

        await _search(app, pilot, "subprocess")
        hits = s.visible_ids()
        assert hits
        for h in hits:
            r = s.record(h)
            hay = " ".join([r.id, r.label, r.body_text(), *(w.quote for w in r.witnesses)])
            assert "subprocess" in hay.lower()
        await _search(app, pilot, "zzz-no-such-thing")
        assert s.visible_ids() == []
        await pilot.press("a")  # nothing selected: nothing is stored
        assert len(s.store.rows()) == 1


async def test_source_view_marks_and_scrolls_to_the_quote(
    material: Material,
) -> None:
    app = _app(material)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        s = app.session
        # the verified witness that sits furthest down its file
        rid, idx, w = max(
            (
                (r.id, i, w)
                for r in s.report.records
                for i, w in enumerate(r.witnesses)
                if w.verified
            ),
            key=lambda t: t[2].verification.lines.start,  # type: ignore[union-attr]
        )
        assert w.verification is not None and w.verification.lines is not None
        start, end = w.verification.lines.start, w.verification.lines.end
        assert start > 30
        main = _main(app)
        main.go_to(rid)
        await pilot.pause()
        await pilot.press("tab", *["down"] * idx, "enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SourceScreen)
        assert screen.index == idx
        await app.workers.wait_for_complete()
        await pilot.pause()
        scroll = screen.query_one(CodeView)
        # scrolled so the quote is in view, three lines of context above when possible
        assert scroll.scroll_y == min(start - 1 - 3, scroll.max_scroll_y)
        assert scroll.scroll_y <= start - 1 and end <= scroll.scroll_y + scroll.size.height
        title = str(screen.query_one("#source-title").render())
        assert f"{w.path} @ {s.snapshot.sha[:12]}" in title
        assert f"lines {start}-{end}" in title
        assert scroll.marked == set(range(start, end + 1))
        assert len(scroll.lines) == len(s.snapshot.read_text(w.path).text.splitlines())
        await pilot.press("w")  # accept the witness from the source view
        assert s.state(rid).witness_decision(w) is True
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


async def test_help_lists_every_key(material: Material) -> None:
    app = _app(material)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        group = app.screen.query(Static)[1].content
        tables = group.renderables  # type: ignore[union-attr]
        cells = " ".join(str(c) for t in tables for col in t.columns for c in col._cells)
        for b in [*MainScreen.BINDINGS, *SourceScreen.BINDINGS, *ReviewApp.BINDINGS]:
            assert (b.tooltip or b.description) in cells  # type: ignore[union-attr]
        # every group's title is whole (a title above its table, not in a key cell)
        titles = [str(t.title) for t in tables]
        assert titles == ["Review", "Moving", "Source view", "Everywhere"]
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


async def test_refused_decision_is_shown_and_not_stored(material: Material) -> None:
    app = _app(material)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("e")
        await _choose(app, pilot, "Part of")
        await _type_into_prompt(app, pilot, "not a record id")
        assert app.session.store.rows() == []
        assert any(n.severity == "error" for n in app._notifications)


def test_bad_draft_is_bad_input(tmp_path: Path) -> None:
    draft, repo, _ = sample_draft(tmp_path)
    data = json.loads(draft.read_text())
    data["source"]["revision"] = None
    draft.write_text(json.dumps(data))
    with pytest.raises(BadInput, match="no pinned revision"):
        make_app(draft, repo)
    with pytest.raises(BadInput, match="does not exist"):
        make_app(tmp_path / "missing.json", repo)


async def test_source_view_of_a_missed_quote_marks_the_nearest_passage(
    material: Material,
) -> None:
    app = _app(material)
    broken = material[3]
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        _main(app).go_to(broken)
        await pilot.pause()
        await pilot.press("s")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SourceScreen)
        w = app.session.record(broken).witnesses[0]
        v = w.verification
        assert v is not None and v.status == VerifyStatus.not_found and v.nearest
        near = v.nearest[0]
        title = str(screen.query_one("#source-title").render())
        assert title.startswith("✗ ")
        assert "not_found; marked: nearest real passage" in title
        assert screen.query_one(CodeView).marked == set(range(near.lines.start, near.lines.end + 1))


async def test_regenerated_draft_shows_changed_since_review(material: Material) -> None:
    draft, _, store, _ = material
    app = _app(material)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        first, second = app.session.visible_ids()[:2]
        await pilot.press("a", "a")
    # the drafter runs again: the first record's text changes, the second does not
    data = json.loads(draft.read_text())
    rec = data["sections"][0]["records"][0]
    assert rec["id"] == first
    para = next(b for b in rec["blocks"] if b["type"] == "paragraph")
    para["text"] += " Regenerated."
    draft.write_text(json.dumps(data))
    app2 = _app(material)
    async with app2.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        s = app2.session
        assert s.state(first).mark == Mark.changed
        assert s.state(second).mark == Mark.accepted
        tree = app2.screen.query_one(RecordTree)
        labels = {leaf.data: str(leaf.label) for sec in tree.root.children for leaf in sec.children}
        assert labels[first].startswith("Δ ")
        # a changed record counts as pending: it is the first one still to decide
        assert s.next_pending(None) == first
        _main(app2).go_to(first)
        await pilot.pause()
        header = str(app2.screen.query_one("#detail-header").render())
        assert "changed since review (was accepted)" in header
        assert "Δ 1" in str(app2.screen.query_one("#progress").render())
        await pilot.press("a")
        assert s.state(first).mark == Mark.accepted
