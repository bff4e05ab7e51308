"""The decision log in one SQLite file: the default, embedded, nothing to start.

Why WAL and ``synchronous=FULL``: a decision is an analyst's judgement and must survive
a ``kill -9`` the instant after the key was pressed.  With FULL synchronous mode the
commit returns only after the WAL is on disk.

Why :func:`~drafter.sqlite_open.first_open`: two processes opening the same fresh file
at once collide on the switch to WAL, which SQLite's busy handler does not wait for;
the opening steps are retried within the lock-wait budget instead.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from drafter.errors import BadInput
from drafter.review_fold import Action, DecisionRow, DecisionSource
from drafter.review_log import SCHEMA, newer_schema
from drafter.sqlite_open import first_open

_DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS decisions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    ts REAL NOT NULL,
    record_id TEXT NOT NULL,
    record_hash TEXT NOT NULL,
    action TEXT NOT NULL,
    witness TEXT,
    field TEXT,
    text TEXT,
    undone INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS decisions_record ON decisions(record_id);
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started REAL NOT NULL,
    last_seen REAL NOT NULL
)
"""

#: Columns added after schema 1, with what fills them in a store made before them.
_ADDED = (
    ("decisions", "batch_key", "TEXT"),
    ("decisions", "source", "TEXT"),
    ("decisions", "analyst", "TEXT"),
    ("decisions", "uid", "TEXT"),
    ("sessions", "analyst", "TEXT"),
)

_COLS = (
    "seq, ts, record_id, record_hash, action, witness, field, text, source, analyst, uid,"
    " undone, batch_key"
)


def row_of(t: tuple[Any, ...] | Any) -> DecisionRow:
    """A row of the decisions table (columns as in ``_COLS``) as a DecisionRow."""
    source = DecisionSource(t[8]) if t[8] else DecisionSource.analyst
    return DecisionRow(
        seq=int(t[0]), ts=float(t[1]), record_id=t[2], record_hash=t[3], action=Action(t[4]),
        witness=t[5], field=t[6], text=t[7], source=source, analyst=t[9], uid=t[10] or "",
        undone=bool(t[11]), batch_key=t[12],
    )  # fmt: skip


class SqliteLog:
    """:class:`~drafter.review_log.DecisionLog` in an SQLite file."""

    def __init__(self, path: str | os.PathLike[str], *, lock_wait: float):
        self.path = Path(path)
        self.where = str(self.path)
        self.lock_wait = lock_wait
        self._depth = 0  # nesting of transaction()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BadInput(
                f"cannot create the review store's folder: {exc.strerror}", where=self.where
            ) from None
        try:
            self.db = sqlite3.connect(
                str(self.path), isolation_level=None, check_same_thread=False,
                timeout=lock_wait,
            )  # fmt: skip
            first_open(self.db, self._open_steps, wait=lock_wait)
        except sqlite3.OperationalError as exc:
            raise self.error(exc) from None
        except sqlite3.DatabaseError as exc:
            raise BadInput(
                f"review store is not a usable SQLite file: {exc}", where=self.where
            ) from None

    def _open_steps(self) -> None:
        """WAL, full sync, then the schema in one write transaction; run again by
        :func:`first_open` when another process opening the same fresh store at the
        same moment makes a step fail at once with "locked"."""
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        with self._write():
            for stmt in _DDL.split(";"):
                if stmt.strip():
                    self.db.execute(stmt)
            self._check_schema()
            self._migrate()

    def _check_schema(self) -> None:
        row = self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        found = int(row[0]) if row is not None and str(row[0]).isdigit() else None
        if row is not None and found is None:
            raise BadInput(
                f"review store schema {row[0]!r} is not one drafter wrote", where=self.where
            )
        if found is not None and found > SCHEMA:
            raise newer_schema(found, self.where)
        self.db.execute(
            "INSERT INTO meta(key, value) VALUES ('schema', ?)"
            " ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (str(SCHEMA),),
        )

    def _migrate(self) -> None:
        """Bring a store of an older schema up to date (idempotent)."""
        for table, col, kind in _ADDED:
            cols = {r[1] for r in self.db.execute(f"PRAGMA table_info({table})")}
            if col in cols:
                continue
            self.db.execute(f"ALTER TABLE {table} ADD COLUMN {col} {kind}")
            if col == "source":
                # before the column, an --accept-verified acceptance was known by its note
                self.db.execute(
                    "UPDATE decisions SET source=? WHERE action=? AND text='accept-verified'",
                    (DecisionSource.accept_verified.value, Action.accept.value),
                )
        # rows stored before uids: a stable uid from the row's own place in this store
        self.db.execute("UPDATE decisions SET uid='seq-' || seq WHERE uid IS NULL")
        self.db.execute(
            "CREATE UNIQUE INDEX IF NOT EXISTS decisions_batch_key ON decisions(batch_key)"
            " WHERE batch_key IS NOT NULL"
        )
        self.db.execute("CREATE UNIQUE INDEX IF NOT EXISTS decisions_uid ON decisions(uid)")

    def error(self, exc: sqlite3.Error) -> BadInput:
        """One line naming the store for an SQLite failure (locked, read-only, corrupt)."""
        msg = str(exc)
        if "locked" in msg or "busy" in msg:
            return BadInput(
                f"review store is locked by another process (waited {self.lock_wait:g} s); "
                "try again when it has finished",
                where=self.where,
            )
        if "readonly" in msg or "read-only" in msg:
            return BadInput("review store is read-only", where=self.where)
        if "unable to open" in msg:
            return BadInput("cannot open the review store", where=self.where)
        return BadInput(f"review store is not usable: {msg}", where=self.where)

    # -- transactions -------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """``BEGIN IMMEDIATE`` takes the write lock before anything is read, so two
        processes running a batch serialise.  Nested use joins the outer one."""
        try:
            with self._write():
                yield
        except sqlite3.OperationalError as exc:
            raise self.error(exc) from None

    @contextmanager
    def _write(self) -> Iterator[None]:
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        self.db.execute("BEGIN IMMEDIATE")
        self._depth = 1
        try:
            yield
        except BaseException:
            self._depth = 0
            self._rollback()
            raise
        self._depth = 0
        try:
            self.db.execute("COMMIT")
        except sqlite3.OperationalError:
            self._rollback()
            raise

    def _rollback(self) -> None:
        try:
            self.db.execute("ROLLBACK")
        except sqlite3.Error:
            pass  # the failure that brought us here already ended the transaction

    # -- rows -----------------------------------------------------------------------

    def append(self, row: DecisionRow) -> int:
        with self.transaction():
            got = self.db.execute("SELECT seq FROM decisions WHERE uid=?", (row.uid,)).fetchone()
            if got is not None:
                return int(got[0])
            cur = self.db.execute(
                "INSERT INTO decisions(ts, record_id, record_hash, action, witness, field, text,"
                " source, analyst, uid, undone, batch_key)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (row.ts, row.record_id, row.record_hash, row.action.value, row.witness,
                 row.field, row.text, row.source.value, row.analyst, row.uid, int(row.undone),
                 row.batch_key),
            )  # fmt: skip
            return int(cur.lastrowid or 0)

    def read(self, after: int = 0) -> list[DecisionRow]:
        q = f"SELECT {_COLS} FROM decisions WHERE seq > ? ORDER BY seq"
        return [row_of(t) for t in self.db.execute(q, (after,))]

    def fingerprint(self) -> str:
        q = "SELECT COUNT(*), COALESCE(MAX(seq), 0), COALESCE(SUM(undone), 0) FROM decisions"
        return ":".join(str(v) for v in self.db.execute(q).fetchone())

    def mark_undone(self, uid: str) -> None:
        with self.transaction():
            self.db.execute("UPDATE decisions SET undone=1 WHERE uid=?", (uid,))

    def latest_live(self, analyst: str | None) -> DecisionRow | None:
        t = self.db.execute(
            f"SELECT {_COLS} FROM decisions WHERE undone=0 AND (analyst IS ? OR analyst IS NULL)"
            " ORDER BY seq DESC LIMIT 1",
            (analyst,),
        ).fetchone()
        return None if t is None else row_of(t)

    def has_batch_key(self, key: str) -> bool:
        row = self.db.execute("SELECT 1 FROM decisions WHERE batch_key=?", (key,)).fetchone()
        return row is not None

    # -- sessions and settings ------------------------------------------------------

    def start_session(self, analyst: str | None, now: float) -> int:
        cur = self.db.execute(
            "INSERT INTO sessions(started, last_seen, analyst) VALUES (?, ?, ?)",
            (now, now, analyst),
        )
        return int(cur.lastrowid or 0)

    def touch_session(self, session: int, now: float, idle_cap: float) -> bool:
        row = self.db.execute("SELECT last_seen FROM sessions WHERE id=?", (session,)).fetchone()
        if row is not None and now - row[0] > idle_cap:
            return False
        self.db.execute("UPDATE sessions SET last_seen=? WHERE id=?", (now, session))
        return True

    def seconds_spent(self) -> float:
        q = "SELECT COALESCE(SUM(last_seen - started), 0) FROM sessions"
        return float(self.db.execute(q).fetchone()[0])

    def sessions(self) -> list[tuple[str | None, float, float]]:
        q = "SELECT analyst, started, last_seen FROM sessions ORDER BY id"
        return [(a, float(s), float(e)) for a, s, e in self.db.execute(q)]

    def add_session(self, analyst: str | None, started: float, last_seen: float) -> None:
        self.db.execute(
            "INSERT INTO sessions(started, last_seen, analyst) VALUES (?, ?, ?)",
            (started, last_seen, analyst),
        )

    def get_setting(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (f"ui.{key}",)).fetchone()
        return None if row is None else str(row[0])

    def settings(self) -> dict[str, str]:
        q = "SELECT key, value FROM meta WHERE key LIKE 'ui.%' ORDER BY key"
        return {str(k)[3:]: str(v) for k, v in self.db.execute(q)}

    def set_setting(self, key: str, value: str) -> None:
        self.db.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?)"
            " ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (f"ui.{key}", value),
        )

    def close(self) -> None:
        self.db.close()
