"""Opening a fresh SQLite store while another process is creating it.

The flaky concurrent-batches test came from this: the WAL switch of a store that is
not in WAL mode yet fails at once with "locked" (SQLite calls no busy handler there)
when another connection holds the write lock, so the second of two processes opening
the same fresh store gave up after waiting nothing.  A holder that keeps the write
lock on the fresh file for a moment stands for the other process half-way through its
own first open: the store must wait for it within its budget, and still say "locked",
after the whole wait, when the holder keeps the lock for longer.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from drafter.errors import BadInput
from drafter.review_store import ReviewStore
from drafter.sqlite_open import first_open, is_busy


@contextmanager
def write_lock_on_fresh_file(path: Path, release_after: float) -> Iterator[None]:
    """Hold the write lock of a new, still empty (not WAL) database file, and let it go
    after ``release_after`` seconds from another thread."""
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    timer = threading.Timer(release_after, lambda: holder.execute("ROLLBACK"))
    timer.start()
    try:
        yield
    finally:
        timer.join()
        holder.close()


def test_the_wal_switch_alone_does_not_wait(tmp_path: Path) -> None:
    """The SQLite behaviour the fix is for; if a later SQLite waits here by itself,
    this fails and says the retry is no longer needed."""
    path = tmp_path / "s.sqlite"
    with write_lock_on_fresh_file(path, 0.3):
        db = sqlite3.connect(path, isolation_level=None, timeout=5)
        started = time.monotonic()
        with pytest.raises(sqlite3.OperationalError) as got:
            db.execute("PRAGMA journal_mode=WAL")
        assert time.monotonic() - started < 0.2 and is_busy(got.value)
        db.close()


def test_review_store_waits_for_another_first_open(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with write_lock_on_fresh_file(path, 0.3):
        started = time.monotonic()
        with ReviewStore(path, lock_wait=5) as store:
            assert store.rows() == []
        waited = time.monotonic() - started
    assert 0.25 < waited < 5
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_review_store_still_locked_after_the_whole_wait(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with write_lock_on_fresh_file(path, 1.5):
        started = time.monotonic()
        with pytest.raises(BadInput, match="locked") as got:
            ReviewStore(path, lock_wait=0.5)
        waited = time.monotonic() - started
    assert str(path) in str(got.value)
    assert 0.45 < waited < 1.4  # the budget, not nothing and not the holder's time


def test_embed_cache_waits_for_another_first_open(tmp_path: Path) -> None:
    from retrieval.index import VectorCache

    path = tmp_path / "embed-cache.sqlite3"
    with write_lock_on_fresh_file(path, 0.3):
        cache = VectorCache(path)
    assert cache.has(["x"]) == set()


def test_first_open_retries_only_lock_conflicts_within_the_budget() -> None:
    db = sqlite3.connect(":memory:")
    now = [0.0]
    calls: list[str] = []

    def busy() -> None:
        calls.append("busy")
        raise sqlite3.OperationalError("database is locked")

    def sleep(s: float) -> None:
        now[0] += s

    with pytest.raises(sqlite3.OperationalError, match="locked"):
        first_open(db, busy, wait=1.0, clock=lambda: now[0], sleep=sleep)
    assert 5 < len(calls) < 40 and now[0] <= 1.0

    def broken() -> None:
        calls.append("broken")
        raise sqlite3.OperationalError("no such table: x")

    calls.clear()
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        first_open(db, broken, wait=1.0, clock=lambda: now[0], sleep=sleep)
    assert calls == ["broken"]
