"""Redraft what the analyst rejected, through the graph.

With the scripted model (the real anthropic SDK over a mock transport): only the
rejected record is requested again, the analyst's note is in that request, and every
other decision survives in the review store.  Offline: the rejected record is replaced
by the next-ranked candidate of its kind, the note kept.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from claude_scenario import rec
from fakes import MODEL, FakeAPI, tool
from review_material import sample_draft

from drafter.cli import main
from drafter.model import FlagKind, Report
from drafter.review_store import Mark, ReviewStore
from graph.configuration import Configuration
from graph.redraft import previous_version, run_redraft

NOTE = "the record names the file but not who reads it back; say which run reads it"


@pytest.fixture
def reviewed(tmp_path: Path):  # type: ignore[no-untyped-def]
    draft, repo, broken = sample_draft(tmp_path)
    report = Report.from_json(draft.read_text())
    target = next(r for r in report.records if r.kind == "OBJ" and r.id != broken)
    store = ReviewStore(tmp_path / "s.sqlite")
    for r in report.records:
        if r.id == target.id:
            store.reject(r, NOTE)
        elif r.id != broken:  # the broken one stays pending
            store.accept(r)
    yield report, repo, store, target, broken, tmp_path
    store.close()


def test_model_redraft_asks_only_for_the_rejected_record_with_the_note(reviewed) -> None:  # type: ignore[no-untyped-def]
    report, repo, store, target, broken, tmp = reviewed
    fake = FakeAPI()
    fake.script(
        f"record:{target.id}",
        tool(
            rec(
                "Run log read back by the next run",
                "Source-native identity: runs.jsonl. Representational form: JSON lines. "
                "Storage substrate: local file.",
                [('RUNS_FILE = STATE_DIR / "runs.jsonl"', "tinkerbot/store.py")],
            )
        ),
    )
    prop = fake.proposer(MODEL)
    config = Configuration(model=MODEL, generator="claude", concurrency=1)
    res = run_redraft(
        report, store, str(repo), config, lambda c, r: prop, data_dir=tmp / "data", use_index=False
    )
    assert fake.keys == [f"record:{target.id}"]  # no plan, no account, no other record
    request = " ".join(
        part["text"] for part in fake.log[0]["messages"][0]["content"] if part.get("text")
    ) + str(fake.log[0].get("system", ""))
    assert NOTE in request
    new = res.report
    assert [r.id for r in new.records] == [r.id for r in report.records]
    redone = new.record(target.id)
    assert redone is not None and redone.label == "Run log read back by the next run"
    assert all(w.verified for w in redone.witnesses)  # verified by the graph's verify node
    assert any(NOTE in f.text for f in redone.flags_of(FlagKind.redrafted))
    assert previous_version(new, target.id) == report.record(target.id)
    states = store.states(new.records)
    assert states[target.id].mark == Mark.changed
    assert states[target.id].previous == Mark.rejected
    others = [r.id for r in report.records if r.id not in (target.id, broken)]
    assert all(states[rid].mark == Mark.accepted for rid in others)
    assert states[broken].mark == Mark.pending


def test_offline_redraft_replaces_by_next_ranked_candidate(reviewed) -> None:  # type: ignore[no-untyped-def]
    report, repo, store, target, _broken, tmp = reviewed
    # a draft cut short (as with --max-records): one planned object is left out of it
    spare = [r for r in report.records if r.kind == "OBJ" and r.id != target.id][-1]
    cut = report.model_copy(deep=True)
    for sec in cut.sections:
        sec.records = [r for r in sec.records if r.id != spare.id]
    config = Configuration(generator="offline", concurrency=1)
    from graph.proposers.factory import build_proposer

    res = run_redraft(
        cut, store, str(repo), config, build_proposer, data_dir=tmp / "data", use_index=False
    )
    new = res.report
    assert new.record(target.id) is None
    added = [r for r in new.records if cut.record(r.id) is None]
    assert [r.id for r in added] == [spare.id]  # the candidate the cut draft left out
    assert any(NOTE in f.text for f in added[0].flags)
    assert any(NOTE in n and target.id in n for n in new.meta.notes)  # type: ignore[union-attr]
    before = store.states(cut.records)
    after = store.states(new.records)
    kept = [r.id for r in new.records if cut.record(r.id) is not None]
    assert kept and all(after[rid].mark == before[rid].mark for rid in kept)
    # with every candidate already in the draft, the rejected record is simply dropped
    again = run_redraft(
        report, store, str(repo), config, build_proposer, data_dir=tmp / "data", use_index=False
    )
    assert again.report.record(target.id) is None
    assert len(again.report.records) == len(report.records) - 1


def test_redraft_command_offline(reviewed, capsys) -> None:  # type: ignore[no-untyped-def]
    report, repo, store, target, _broken, tmp = reviewed
    draft = tmp / "d.json"
    draft.write_text(report.to_json())
    out = tmp / "d2.json"
    args = ["redraft", str(draft), "--store", str(store.path), "--repo", str(repo)]
    assert main([*args, "--offline", "--no-index", "--out", str(out)]) == 0
    new = Report.from_json(out.read_text())
    assert new.record(target.id) is None  # no other candidate: dropped, note kept
    assert any(NOTE in n for n in new.meta.notes)  # type: ignore[union-attr]
    assert target.id in capsys.readouterr().out
    # nothing rejected with a note: nothing to do, exit 0, no file
    empty = tmp / "e.sqlite"
    assert main(["redraft", str(draft), "--store", str(empty), "--repo", str(repo)]) == 0
