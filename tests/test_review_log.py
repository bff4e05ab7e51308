"""One test suite for the decision log's protocol, run against both backends: an
SQLite file and a real PostgreSQL database ($DRAFTER_TEST_PG_URL, started by .ci/run).
"""

from __future__ import annotations

import dataclasses
import sqlite3
import threading
from pathlib import Path

import pytest
from fakes import make_record, make_report

from drafter.errors import BadInput
from drafter.model import Report
from drafter.review_fold import Action, DecisionRow, Mark
from drafter.review_log import SCHEMA
from drafter.review_store import ReviewStore, open_log, record_hash


def _report() -> Report:
    a = make_record("RT-CMP-a", "A", "Source-native identity: a.", [("x = 1", "a.py")])
    b = make_record("RT-CMP-b", "B", "Source-native identity: b.", [("y = 2", "a.py")])
    return make_report([a, b], system="t")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def locator(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "store.sqlite")
    return f"{request.getfixturevalue('pg_url')}#draft-1"


def _row(uid: str, rid: str = "RT-CMP-a", action: Action = Action.accept) -> DecisionRow:
    return DecisionRow(0, 1.5, rid, "h", action, None, None, "why", analyst="ann", uid=uid)


def test_append_read_in_order_and_a_uid_is_stored_once(locator: str) -> None:
    log = open_log(locator)
    try:
        s1 = log.append(_row("u1"))
        s2 = log.append(_row("u2", "RT-CMP-b", Action.reject))
        assert log.append(_row("u1")) == s1  # a retry stores nothing new
        rows = log.read()
        assert [r.uid for r in rows] == ["u1", "u2"] and s1 < s2
        assert rows[0] == dataclasses.replace(_row("u1"), seq=s1)
        assert [r.uid for r in log.read(after=s1)] == ["u2"]
    finally:
        log.close()


def test_undo_marks_the_analysts_latest_and_the_fingerprint_moves(locator: str) -> None:
    rep = _report()
    a, b = rep.records
    with ReviewStore(locator, analyst="ann") as ann, ReviewStore(locator, analyst="bob") as bob:
        ann.accept(a)
        bob.reject(b, "dup")
        before = ann.log.fingerprint()
        undone = ann.undo()  # ann's own, not bob's later one
        assert undone is not None and undone.record_id == a.id and undone.analyst == "ann"
        assert ann.log.fingerprint() != before
        assert [r.analyst for r in ann.rows()] == ["bob"]
        assert ann.undo() is None
        assert [r.undone for r in ann.all_rows()] == [True, False]


def test_a_transaction_commits_together_or_not_at_all(locator: str) -> None:
    rep = _report()
    a, b = rep.records
    with ReviewStore(locator) as s:
        with pytest.raises(RuntimeError), s.transaction():
            s.accept(a)
            s.accept(b)
            raise RuntimeError("half-way")
        assert s.rows() == []
        with s.transaction():
            s.accept(a, batch_key="k1")
            assert s.has_batch_key("k1")
        assert len(s.rows()) == 1


def test_transactions_of_two_writers_run_one_after_the_other(locator: str) -> None:
    """Two batches that read then write never both write the same batch key."""
    rep = _report()
    a = rep.records[0]
    stores = [ReviewStore(locator, analyst=f"w{i}") for i in range(2)]
    wrote: list[int] = []

    def batch(s: ReviewStore) -> None:
        with s.transaction():
            if not s.has_batch_key("once"):
                s.accept(a, batch_key="once")
                wrote.append(1)

    try:
        threads = [threading.Thread(target=batch, args=(s,)) for s in stores]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert wrote == [1]
        assert len(stores[0].rows()) == 1
    finally:
        for s in stores:
            s.close()


def test_sessions_and_settings(locator: str) -> None:
    now = [100.0]
    with ReviewStore(locator, clock=lambda: now[0], analyst="ann") as s:
        s.start_session()
        now[0] = 160.0
        s.touch()
        assert s.seconds_spent() == pytest.approx(60.0)
        now[0] = 10_000.0  # after a long idle gap the gap is not counted
        s.touch()
        assert s.seconds_spent() == pytest.approx(60.0)
        s.set_setting("last_record", "RT-CMP-b")
        assert s.get_setting("last_record") == "RT-CMP-b"
        assert len(s.log.sessions()) == 2


def test_states_fold_the_same_on_both_backends(locator: str) -> None:
    rep = _report()
    a, b = rep.records
    with ReviewStore(locator, analyst="ann") as s:
        s.accept(a, "fine")
        s.edit(b, "Label", "B, renamed")
        s.annotate(b, "look again")
        s.decide_witness(b, 0, False, "too broad")
        st = s.states(rep.records)
        hashes = [r.record_hash for r in s.rows()]
    assert st[a.id].mark == Mark.accepted and st[a.id].reason == "fine"
    assert st[b.id].edits == {"Label": "B, renamed"} and st[b.id].notes == ["look again"]
    assert st[b.id].witness_decision(b.witnesses[0]) is False
    assert hashes == [record_hash(x) for x in (a, b, b, b)]


def test_a_newer_schema_is_refused_not_migrated_down(locator: str, tmp_path: Path) -> None:
    open_log(locator).close()
    if locator.startswith("postgresql"):
        import psycopg

        with psycopg.connect(locator.partition("#")[0], autocommit=True) as c:
            c.execute("UPDATE drafter_schema SET version = %s", (SCHEMA + 1,))
    else:
        db = sqlite3.connect(locator)
        db.execute("UPDATE meta SET value=? WHERE key='schema'", (str(SCHEMA + 1),))
        db.commit()
        db.close()
    with pytest.raises(BadInput, match=f"schema {SCHEMA + 1} was made by a newer drafter"):
        open_log(locator)


def test_a_schema_1_sqlite_store_opens_and_keeps_its_decisions(tmp_path: Path) -> None:
    """A store written before analysts and uids: its rows are read and get stable uids."""
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.executescript(
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO meta VALUES ('schema', '1');
        CREATE TABLE decisions (seq INTEGER PRIMARY KEY AUTOINCREMENT, ts REAL NOT NULL,
            record_id TEXT NOT NULL, record_hash TEXT NOT NULL, action TEXT NOT NULL,
            witness TEXT, field TEXT, text TEXT, undone INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE sessions (id INTEGER PRIMARY KEY AUTOINCREMENT, started REAL NOT NULL,
            last_seen REAL NOT NULL);
        """
    )
    rep = _report()
    a = rep.records[0]
    db.execute(
        "INSERT INTO decisions(ts, record_id, record_hash, action, text) VALUES (1, ?, ?, ?, ?)",
        (a.id, record_hash(a), "accept", "accept-verified"),
    )
    db.commit()
    db.close()
    with ReviewStore(path, analyst="ann") as s:
        (row,) = s.rows()
        assert row.uid == "seq-1" and row.analyst is None
        assert row.source.value == "accept_verified"
        assert s.state(a).mark == Mark.accepted
        assert s.undo() is not None  # an unnamed decision may be undone by whoever is here
    with ReviewStore(path) as s:  # opening again changes nothing
        assert [r.uid for r in s.all_rows()] == ["seq-1"]
