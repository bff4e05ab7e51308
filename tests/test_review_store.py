"""The durable review store: decisions persist, undo, carry over, export filtering."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from fakes import make_record, make_report

from drafter.errors import BadInput
from drafter.model import LineRange, Report, Verification, VerifyStatus, Witness
from drafter.review_export import reviewed_report
from drafter.review_store import (
    Mark,
    ReviewStore,
    apply_edit,
    editable_fields,
    record_hash,
)


def _report(route_text: str = "Endpoints/progression: a → b.") -> Report:
    cmp_ = make_record(
        "RT-CMP-model",
        "The model",
        "Source-native identity: x.",
        [("client = Anthropic()", "a.py")],
    )
    appended = Witness(quote="messages.append(reply)", path="a.py", lines=LineRange(start=4, end=4))
    rte = make_record(
        "RT-RTE-loop",
        "Agent loop",
        route_text,
        [("for step in range(10):", "a.py"), appended],
        [("Immediate return", "the reply")],
    )
    clm = make_record("RT-CLM-safe", "Safe", "Claimed operation: safe.")
    return make_report([cmp_, rte, clm], system="t")


class Clock:
    def __init__(self, t: float = 1000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


def test_decisions_survive_reopen(tmp_path: Path) -> None:
    rep = _report()
    path = tmp_path / "d.review.sqlite"
    with ReviewStore(path) as s:
        s.accept(rep.record("RT-CMP-model"))  # type: ignore[arg-type]
        s.reject(rep.record("RT-RTE-loop"), "wrong endpoint")  # type: ignore[arg-type]
        s.annotate(rep.record("RT-RTE-loop"), "check retries")  # type: ignore[arg-type]
        s.edit(rep.record("RT-CLM-safe"), "Label", "Claimed safety")  # type: ignore[arg-type]
        s.decide_witness(rep.record("RT-RTE-loop"), 1, False, "too broad")  # type: ignore[arg-type]
    with ReviewStore(path) as s:
        st = s.states(rep.records)
        assert st["RT-CMP-model"].mark == Mark.accepted
        assert st["RT-RTE-loop"].mark == Mark.rejected
        assert st["RT-RTE-loop"].reason == "wrong endpoint"
        assert st["RT-RTE-loop"].notes == ["check retries"]
        assert st["RT-CLM-safe"].mark == Mark.pending
        assert st["RT-CLM-safe"].edits == {"Label": "Claimed safety"}
        loop = rep.record("RT-RTE-loop")
        assert loop is not None
        assert st["RT-RTE-loop"].witness_decision(loop.witnesses[1]) is False
        assert st["RT-RTE-loop"].witness_decision(loop.witnesses[0]) is None
        p = s.progress(rep.records)
        assert (p.total, p.reviewed, p.accepted, p.rejected) == (3, 2, 1, 1)


def test_store_is_wal_with_full_sync(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    s = ReviewStore(path)
    assert s._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert s._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    s.close()


def test_later_decision_wins_and_undo_walks_back(tmp_path: Path) -> None:
    rep = _report()
    r = rep.record("RT-CMP-model")
    assert r is not None
    with ReviewStore(tmp_path / "s.sqlite") as s:
        s.accept(r)
        s.reject(r, "no")
        assert s.state(r).mark == Mark.rejected
        undone = s.undo()
        assert undone is not None and undone.action.value == "reject"
        assert s.state(r).mark == Mark.accepted
        assert s.undo() is not None
        assert s.state(r).mark == Mark.pending
        assert s.undo() is None
    with ReviewStore(tmp_path / "s.sqlite") as s:  # undo is durable too
        assert s.state(r).mark == Mark.pending


def test_regenerated_draft_carries_over_and_marks_changed(tmp_path: Path) -> None:
    old = _report()
    with ReviewStore(tmp_path / "s.sqlite") as s:
        for r in old.records:
            s.accept(r)
        s.annotate(old.record("RT-RTE-loop"), "check the retry path")  # type: ignore[arg-type]
        s.edit(old.record("RT-RTE-loop"), "Label", "Old label edit")  # type: ignore[arg-type]
        s.decide_witness(old.record("RT-RTE-loop"), 0, True)  # type: ignore[arg-type]
    new = _report(route_text="Endpoints/progression: a → b → c.")
    # a verifier pass adds verdicts: not a content change
    cm = new.record("RT-CMP-model")
    assert cm is not None
    cm.witnesses[0].verification = Verification(status=VerifyStatus.verified)
    assert record_hash(cm) == record_hash(old.record("RT-CMP-model"))  # type: ignore[arg-type]
    with ReviewStore(tmp_path / "s.sqlite") as s:
        st = s.states(new.records)
        assert st["RT-CMP-model"].mark == Mark.accepted
        assert st["RT-CLM-safe"].mark == Mark.accepted
        assert st["RT-RTE-loop"].mark == Mark.changed
        assert st["RT-RTE-loop"].previous == Mark.accepted
        # notes on the old content stay visible, edits of the old content are not applied
        assert st["RT-RTE-loop"].notes == ["(earlier version) check the retry path"]
        assert st["RT-RTE-loop"].edits == {}
        # the unchanged witness keeps its decision
        loop = new.record("RT-RTE-loop")
        assert loop is not None
        assert st["RT-RTE-loop"].witness_decision(loop.witnesses[0]) is True
        p = s.progress(new.records)
        assert (p.accepted, p.changed, p.reviewed) == (2, 1, 2)
        # deciding again clears "changed"
        s.reject(loop, "progression now wrong")
        assert s.state(loop).mark == Mark.rejected
        assert s.state(loop).previous is None


def test_witness_decision_follows_the_quote_not_its_position(tmp_path: Path) -> None:
    rep = _report()
    loop = rep.record("RT-RTE-loop")
    assert loop is not None
    with ReviewStore(tmp_path / "s.sqlite") as s:
        s.decide_witness(loop, 1, False)
        moved = loop.model_copy(deep=True)
        moved.blocks = [moved.blocks[0], moved.blocks[1], moved.blocks[3], moved.blocks[2]]
        st = s.state(moved)
        assert st.witness_decision(moved.witnesses[0]) is False
        assert st.witness_decision(moved.witnesses[1]) is None
        with pytest.raises(BadInput, match="no witness #3"):
            s.decide_witness(loop, 2, True)


def test_accepted_report_keeps_only_accepted_with_edits_and_kept_witnesses(tmp_path: Path) -> None:
    rep = _report()
    loop = rep.record("RT-RTE-loop")
    assert loop is not None
    with ReviewStore(tmp_path / "s.sqlite") as s:
        s.accept(loop)
        s.edit(loop, "Immediate return", "the model's reply text")
        s.edit(loop, "Later read-back", "none")
        s.decide_witness(loop, 0, False, "not the loop")
        s.reject(rep.record("RT-CMP-model"), "duplicate")  # type: ignore[arg-type]
        out = reviewed_report(s, rep)
    assert [r.id for r in out.records] == ["RT-RTE-loop"]
    got = out.records[0]
    assert got.fields == {"Immediate return": "the model's reply text", "Later read-back": "none"}
    assert [w.quote for w in got.witnesses] == ["messages.append(reply)"]
    assert [s.title for s in out.sections] == ["Components", "Routes", "Claims"]
    # the one export builder: a section with no accepted record keeps only its title
    assert out.section("Components").records == []  # type: ignore[union-attr]
    # the input report is untouched
    assert len(loop.witnesses) == 2 and loop.fields == {"Immediate return": "the reply"}


def test_edits_are_validated_when_made(tmp_path: Path) -> None:
    rep = _report()
    r = rep.record("RT-CMP-model")
    assert r is not None
    assert editable_fields(r) == ["Label", "Part of", "Paragraph 1"]
    with ReviewStore(tmp_path / "s.sqlite") as s:
        with pytest.raises(BadInput, match="Label"):
            s.edit(r, "Label", "   ")
        with pytest.raises(BadInput, match="Part of"):
            s.edit(r, "Part of", "not an id")
        with pytest.raises(BadInput, match="empty"):
            s.annotate(r, "")
        assert s.rows() == []
        # a rejection needs no reason (without one, redraft leaves the record alone)
        s.reject(r, " ")
        st = s.states([r])[r.id]
        assert (st.mark, st.reason) == (Mark.rejected, None)
        s.undo()
        s.edit(r, "Part of", "RT-CMP-other")
        s.edit(r, "Paragraph 1", "Source-native identity: y.")
        shown = s.reviewed_record(r)
    assert shown.part_of == "RT-CMP-other"
    assert shown.paragraphs == ["Source-native identity: y."]
    assert (
        apply_edit(r, "Selection predicate", "score > best").fields["Selection predicate"]
        == "score > best"
    )


def test_time_spent_counts_active_sessions_only(tmp_path: Path) -> None:
    clock = Clock(1000.0)
    rep = _report()
    with ReviewStore(tmp_path / "s.sqlite", clock=clock) as s:
        s.start_session()
        clock.t = 1030.0
        s.accept(rep.record("RT-CMP-model"))  # type: ignore[arg-type]
        clock.t = 1030.0 + 3600  # an hour idle: not counted
        s.touch()
        clock.t += 10
        s.touch()
        assert s.seconds_spent() == pytest.approx(40.0)


def test_unusable_store_is_bad_input(tmp_path: Path) -> None:
    bad = tmp_path / "x.sqlite"
    bad.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(BadInput, match="not a usable SQLite"):
        ReviewStore(bad)
    good = tmp_path / "y.sqlite"
    ReviewStore(good).close()
    db = sqlite3.connect(good)
    db.execute("UPDATE meta SET value='99' WHERE key='schema'")
    db.commit()
    db.close()
    with pytest.raises(BadInput, match="schema 99"):
        ReviewStore(good)
