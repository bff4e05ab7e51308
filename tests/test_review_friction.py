"""What an analyst met in the first hour of reviewing, fixed.

- A rejection needs no reason; ``R`` (and ``drafter redraft``) redraft only the
  records rejected with one, and say so.
- The review store is printed and ``--store`` takes a draft's path for that draft's
  own (hash-named) store.
- ``R`` ends by offering the new draft: open it now, or the exact command to run.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from review_material import tiny_draft
from textual import events
from textual.widgets import Input, OptionList

from drafter.cli import main
from drafter.model import Report
from drafter.review_identity import identity_store_path
from drafter.review_store import Mark, ReviewStore
from drafter.sample import gold_path
from drafter.textformat import parse_report
from tui.app import ReviewApp, make_app
from tui.screens.choice import ChoiceScreen
from tui.screens.help import HelpScreen
from tui.screens.prompt import PromptScreen
from tui.widgets.witness_list import WitnessList

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def tiny(tmp_path: Path) -> tuple[Path, Path]:
    return tiny_draft(tmp_path)


def _app(draft: Path, repo: Path) -> ReviewApp:
    return make_app(draft, repo, clock=lambda: 1.0, live_clock=False)


async def _reject(app: ReviewApp, pilot, rid: str, reason: str) -> None:  # type: ignore[no-untyped-def]
    assert app.main is not None
    app.main.go_to(rid)
    await pilot.press("r")
    assert isinstance(app.screen, PromptScreen)
    app.screen.query_one(Input).value = reason
    await pilot.press("enter")
    await pilot.pause()


async def test_reject_without_a_reason_is_not_sent_back(tiny) -> None:  # type: ignore[no-untyped-def]
    draft, repo = tiny
    app = _app(draft, repo)
    async with app.run_test(size=(120, 35), notifications=True) as pilot:
        await pilot.pause()
        await _reject(app, pilot, "RT-OBJ-run-log", "")
        st = app.session.state("RT-OBJ-run-log")
        assert (st.mark, st.reason) == (Mark.rejected, None)
        await pilot.press("R")
        await pilot.pause()
        await app.workers.wait_for_complete()
        msgs = [n.message for n in app._notifications]
        assert any("only those are redrafted" in m for m in msgs), msgs
        assert not (draft.parent / "tiny.redraft.json").exists()
        # the help says which rejections R sends back
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        helptext = " ".join(
            str(getattr(b, "tooltip", "")) for _, bs in app.screen.groups for b in bs
        )
        assert "a reason is optional" in helptext
        assert "rejected with a reason" in helptext


def test_decisions_file_rejects_without_a_reason(tiny, capsys) -> None:  # type: ignore[no-untyped-def]
    draft, repo = tiny
    dec = draft.parent / "d.jsonl"
    dec.write_text(json.dumps({"record": "RT-OBJ-run-log", "action": "reject"}) + "\n")
    assert main(["review", str(draft), "--repo", str(repo), "--decisions", str(dec)]) == 0
    report = Report.from_json(draft.read_text())
    with ReviewStore(identity_store_path(draft, report)) as s:
        assert s.states(report.records)["RT-OBJ-run-log"].mark == Mark.rejected
    capsys.readouterr()
    args = ["redraft", str(draft), "--repo", str(repo), "--offline", "--no-index"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "no record is rejected with a reason" in out
    assert not (draft.parent / "tiny.redraft.json").exists()


def test_store_is_printed_and_a_draft_path_names_its_store(tiny, capsys) -> None:  # type: ignore[no-untyped-def]
    draft, repo = tiny
    report = Report.from_json(draft.read_text())
    own = identity_store_path(draft, report)
    dec = draft.parent / "d.jsonl"
    dec.write_text(json.dumps({"record": "RT-CMP-model", "action": "accept"}) + "\n")
    # a copy of the draft under another name, reviewed in the original's store
    copy = draft.parent / "copy.txt"
    assert main(["render", str(draft), "--format", "text"]) == 0
    copy.write_text(capsys.readouterr().out)
    args = ["review", str(copy), "--repo", str(repo), "--store", str(draft)]
    assert main([*args, "--decisions", str(dec)]) == 0
    assert str(own) in capsys.readouterr().out.replace("\n", "")
    with ReviewStore(own) as s:
        assert s.states(report.records)["RT-CMP-model"].mark == Mark.accepted


async def test_help_names_the_store(tiny) -> None:  # type: ignore[no-untyped-def]
    draft, repo = tiny
    app = _app(draft, repo)
    async with app.run_test(size=(120, 60)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert app.screen.store == str(app.session.store.path)


def test_epistemic_draft_takes_the_runtime_path_as_its_store(
    sample, tmp_path: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    runtime = tmp_path / "rt.txt"
    shutil.copy(gold_path(), runtime)
    records = parse_report(runtime.read_text()).report.records
    keep = [r.id for r in records if r.kind in ("RTE", "OBJ")][:3]
    dec = tmp_path / "d.jsonl"
    dec.write_text("".join(json.dumps({"record": r, "action": "accept"}) + "\n" for r in keep))
    assert main(["review", str(runtime), "--repo", str(sample.path), "--decisions", str(dec)]) == 0
    capsys.readouterr()
    out = tmp_path / "epi.json"
    args = ["draft", str(sample.path), "--rev", sample.sha, "--type", "epistemic"]
    code = main([*args, "--runtime", str(runtime), "--store", str(runtime), "--out", str(out)])
    cap = capsys.readouterr()
    assert code == 0, cap.err + cap.out
    printed = cap.out.replace("\n", "")
    assert "runtime records: only those accepted in" in printed
    assert "review store (its decisions):" in printed
    epi = Report.from_json(out.read_text())
    assert str(identity_store_path(out, epi)) in printed
    text = out.read_text()
    cited = {r.id for r in records if r.id in text}
    assert cited and cited <= set(keep)
    # a runtime report never reviewed: one line naming the store it lacks
    other = tmp_path / "rt2.txt"
    system = parse_report(runtime.read_text()).report.system
    other.write_text(runtime.read_text().replace(system, system + " copy", 1))
    code = main([*args, "--runtime", str(other), "--store", str(other), "--out", str(out)])
    assert code == 2
    assert "has not been reviewed yet" in capsys.readouterr().err


async def test_redraft_offers_the_new_draft_and_opens_it(tiny) -> None:  # type: ignore[no-untyped-def]
    draft, repo = tiny
    app = _app(draft, repo)
    out = draft.parent / "tiny.redraft.json"
    async with app.run_test(size=(120, 35), notifications=True) as pilot:
        await pilot.pause()
        await _reject(app, pilot, "RT-OBJ-run-log", "not an operative object")
        await pilot.press("R")
        await pilot.pause()
        # asked first, naming what goes back; Esc runs nothing
        assert isinstance(app.screen, ChoiceScreen)
        assert "RT-OBJ-run-log" in app.screen.title_text
        await pilot.press("escape")
        await pilot.pause()
        await app.workers.wait_for_complete()
        assert not out.exists()
        assert any("cancelled" in n.message for n in app._notifications)
        await pilot.press("R")
        await pilot.pause()
        await pilot.press("enter")  # "Redraft them" is highlighted
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen)
        # the result says which records the new draft changed
        assert "RT-OBJ-run-log" in app.screen.title_text
        assert any(w in app.screen.title_text for w in ("replaced", "rewritten"))
        options = dict(app.screen.options)
        assert f"drafter review {out} --repo {repo}" in options["stay"]
        app.screen.query_one(OptionList).highlighted = 0  # "open"
        await pilot.press("enter")
        await pilot.pause()
    assert app.next_draft == out and out.exists()


async def _type_ahead(app: ReviewApp, pilot, *keys: str) -> None:  # type: ignore[no-untyped-def]
    """Queue every key before any is handled, as a fast typist or a paste does
    (``pilot.press`` waits for the app to settle after each key)."""
    chars = {"space": " ", "v": "v", "a": "a"}
    for key in keys:
        app.post_message(events.Key(key, chars.get(key)))
    await pilot.pause()
    await pilot.pause()


async def test_keys_typed_ahead_act_on_the_record_under_the_cursor(tiny) -> None:  # type: ignore[no-untyped-def]
    """Keys typed faster than the list's highlight messages (or pasted) act where the
    cursor is: space, four downs (two records and two section titles), v."""
    draft, repo = tiny
    app = _app(draft, repo)
    async with app.run_test(size=(120, 35)) as pilot:
        await pilot.pause()
        ids = app.session.visible_ids()
        await _type_ahead(app, pilot, "space", "down", "down", "down", "down", "v")
        assert app.session.marked == set(ids[:3])
        await _type_ahead(app, pilot, "escape", "down", "down", "a")  # one record further

        assert app.session.state(ids[3]).mark == Mark.accepted
        assert app.session.state(ids[2]).mark == Mark.pending


async def test_quotes_wrap_under_the_quote_from_the_first_record_and_after_a_resize(tiny) -> None:  # type: ignore[no-untyped-def]
    """The first record's quotes were wrapped before the list had a width: their
    continuation lines started under the badge, not under the quote."""
    draft, repo = tiny
    app = _app(draft, repo)

    def quote_lines() -> list[str]:
        options = app.screen.query_one(WitnessList).options
        return [line for o in options for line in str(o.prompt).split("\n")[1:]]

    async with app.run_test(size=(70, 24)) as pilot:
        await pilot.pause()
        first = quote_lines()
        assert len(first) > len(app.session.record(app.main.current_id or "").witnesses)  # type: ignore[union-attr]
        assert all(line.startswith("   ") for line in first)
        width = app.screen.query_one(WitnessList).size.width
        await pilot.resize_terminal(50, 24)
        await pilot.pause()
        narrower = app.screen.query_one(WitnessList).size.width
        assert narrower < width
        assert all(len(line) <= narrower for line in quote_lines())


def test_export_onto_the_draft_or_the_store_is_refused(tiny, capsys) -> None:  # type: ignore[no-untyped-def]
    draft, repo = tiny
    before = draft.read_bytes()
    store = draft.parent / "s.sqlite"
    args = ["review", str(draft), "--repo", str(repo), "--store", str(store)]
    assert main([*args, "--accept-verified"]) == 0
    capsys.readouterr()
    for target in (draft, store, draft.parent / "." / draft.name):
        assert main([*args, "--export", str(target)]) == 2
        assert "the export would overwrite" in capsys.readouterr().err
    assert draft.read_bytes() == before
    with ReviewStore(store) as s:
        assert s.rows()  # the store is still a store


async def test_app_export_onto_the_draft_is_refused(tiny) -> None:  # type: ignore[no-untyped-def]
    draft, repo = tiny
    before = draft.read_bytes()
    app = _app(draft, repo)
    async with app.run_test(size=(120, 35), notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("a", "x")
        assert isinstance(app.screen, ChoiceScreen)
        app.screen.query_one(OptionList).highlighted = [k for k, _ in app.screen.options].index(
            "json"
        )
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)
        app.screen.query_one(Input).value = str(draft)
        await pilot.press("enter")
        await pilot.pause()
        await app.workers.wait_for_complete()
        assert any("Export refused" in n.message for n in app._notifications)
    assert draft.read_bytes() == before


async def test_the_reject_dialog_shows_its_whole_hint(tiny) -> None:  # type: ignore[no-untyped-def]
    """The hint was a placeholder longer than the input: "…; empty: just" on screen."""
    from textual.widgets import Label

    draft, repo = tiny
    app = _app(draft, repo)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        assert app.main is not None
        app.main.go_to("RT-OBJ-run-log")
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)
        field = app.screen.query_one(Input)
        assert len(field.placeholder) < field.content_region.width  # nothing cut off
        hint = app.screen.query_one("#prompt-hint", Label)
        assert "the record is just left out." in str(hint.render())
        assert hint.region.width <= app.screen.query_one(".dialog").region.width
        assert hint.region.height >= 2 or hint.region.width >= len(str(hint.render()))
