"""The decision log in a PostgreSQL database, shared by a team of analysts.

One database holds the logs of many drafts: every table has a ``store`` column (the
draft's review identity, the same name the SQLite file would have), so a team is given
one locator (``postgresql://host/db``) and each draft finds its own decisions there.

Why an advisory lock per store in :meth:`PostgresLog.transaction`: a batch reads
("was this line stored?") and then writes; two batches doing that at once under
READ COMMITTED could both decide to write.  ``pg_advisory_xact_lock`` makes
transactions on one store run one after the other, as ``BEGIN IMMEDIATE`` does for
SQLite, while single appends (the interactive path) take no lock and rely on the
unique ``(store, uid)`` key to be stored at most once.

Connections come from a ``psycopg_pool`` pool whose connections are checked before
use, so a server restarted under a running review is reconnected to, not reported as
a broken pipe on the next key press.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from drafter.errors import BadInput
from drafter.review_fold import DecisionRow
from drafter.review_log import SCHEMA, StoreUnavailable, newer_schema
from drafter.review_log_sqlite import row_of
from drafter.store_locator import redact

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import ConnectionPool

# the pool logs each failed reconnect as a warning; with no handler configured Python
# prints it on stderr, over the review app's screen.  Failures reach the user as
# StoreUnavailable (the app's banner) instead.
logging.getLogger("psycopg.pool").addHandler(logging.NullHandler())
logging.getLogger("psycopg.pool").propagate = False

#: Seconds to wait for a connection before the server counts as unreachable.
CONNECT_TIMEOUT = 5.0

_DDL = (
    "CREATE TABLE IF NOT EXISTS drafter_schema (version INTEGER NOT NULL)",
    """CREATE TABLE IF NOT EXISTS drafter_decisions (
        seq BIGSERIAL PRIMARY KEY,
        store TEXT NOT NULL,
        uid TEXT NOT NULL,
        ts DOUBLE PRECISION NOT NULL,
        record_id TEXT NOT NULL,
        record_hash TEXT NOT NULL,
        action TEXT NOT NULL,
        witness TEXT,
        field TEXT,
        text TEXT,
        source TEXT,
        analyst TEXT,
        undone BOOLEAN NOT NULL DEFAULT FALSE,
        batch_key TEXT,
        UNIQUE (store, uid)
    )""",
    "CREATE UNIQUE INDEX IF NOT EXISTS drafter_decisions_batch"
    " ON drafter_decisions(store, batch_key) WHERE batch_key IS NOT NULL",
    "CREATE INDEX IF NOT EXISTS drafter_decisions_order ON drafter_decisions(store, seq)",
    """CREATE TABLE IF NOT EXISTS drafter_sessions (
        id BIGSERIAL PRIMARY KEY,
        store TEXT NOT NULL,
        analyst TEXT,
        started DOUBLE PRECISION NOT NULL,
        last_seen DOUBLE PRECISION NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS drafter_meta (
        store TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
        PRIMARY KEY (store, key)
    )""",
)
#: advisory lock key taken while creating the tables (concurrent CREATE ... IF NOT
#: EXISTS can still collide in the catalog)
_DDL_LOCK = 0x64726166

_COLS = (
    "seq, ts, record_id, record_hash, action, witness, field, text, source, analyst, uid,"
    " undone, batch_key"
)


def unavailable(exc: Exception, url: str) -> StoreUnavailable:
    """One line for a server that cannot be reached or refuses us; never the password."""
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return StoreUnavailable(f"review store unreachable: {redact(first)}", where=redact(url))


class PostgresLog:
    """:class:`~drafter.review_log.DecisionLog` in a Postgres database."""

    def __init__(self, url: str, store: str):
        self.url = url
        self.store = store
        self.where = f"{redact(url)}#{store}"
        self._local = threading.local()
        self._broken = False
        self._probe()  # one direct connection first: its error says why (auth, no db)
        self.pool = self._new_pool()
        try:
            self._create()
        except Exception:
            self.pool.close()
            raise

    def _probe(self) -> None:
        import psycopg

        try:
            psycopg.connect(self.url, connect_timeout=max(1, int(CONNECT_TIMEOUT))).close()
        except psycopg.OperationalError as exc:
            raise unavailable(exc, self.url) from None
        except Exception as exc:  # noqa: BLE001 - a malformed URL raises ProgrammingError etc.
            raise BadInput(f"not a usable Postgres locator: {redact(str(exc))}") from None

    def _new_pool(self) -> ConnectionPool[psycopg.Connection[Any]]:
        from psycopg_pool import ConnectionPool, PoolTimeout

        pool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
            self.url,
            min_size=1,
            max_size=4,
            open=False,
            timeout=CONNECT_TIMEOUT,
            check=ConnectionPool.check_connection,
            kwargs={"connect_timeout": max(1, int(CONNECT_TIMEOUT))},
        )
        try:
            pool.open(wait=True, timeout=CONNECT_TIMEOUT)
        except PoolTimeout as exc:
            pool.close()
            raise unavailable(exc, self.url) from None
        return pool

    def _revive(self) -> None:
        """After the server was unreachable: a fresh pool once a direct connection
        works (the old pool's reconnect back-off could keep it away for minutes)."""
        self._probe()
        old, self.pool = self.pool, self._new_pool()
        old.close(timeout=0)
        self._broken = False

    def _create(self) -> None:
        with self._conn() as c:
            c.execute("SELECT pg_advisory_xact_lock(%s)", (_DDL_LOCK,))
            for stmt in _DDL:
                c.execute(stmt)
            row = c.execute("SELECT MAX(version) FROM drafter_schema").fetchone()
            found = row[0] if row else None
            if found is not None and found > SCHEMA:
                raise newer_schema(int(found), self.where)
            if found is None:
                c.execute("INSERT INTO drafter_schema(version) VALUES (%s)", (SCHEMA,))

    @contextmanager
    def _conn(self) -> Iterator[psycopg.Connection[Any]]:
        """The transaction's connection inside :meth:`transaction`, else one from the
        pool for a single statement group (committed when it ends)."""
        import psycopg
        from psycopg_pool import PoolTimeout

        held = getattr(self._local, "conn", None)
        if held is not None:
            yield held
            return
        if self._broken:
            self._revive()
        try:
            with self.pool.connection() as c:
                yield c
        except (psycopg.OperationalError, PoolTimeout) as exc:
            self._broken = True
            raise unavailable(exc, self.url) from None
        except psycopg.Error as exc:  # a privilege, a constraint: the server said no
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise BadInput(f"review store refused: {redact(first)}", where=self.where) from None

    @contextmanager
    def transaction(self) -> Iterator[None]:
        if getattr(self._local, "conn", None) is not None:
            yield  # nested: joins the outer transaction
            return
        with self._conn() as c:
            c.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (self.store,))
            self._local.conn = c
            try:
                yield
            finally:
                self._local.conn = None

    # -- rows -----------------------------------------------------------------------

    def append(self, row: DecisionRow) -> int:
        with self._conn() as c:
            got = c.execute(
                "INSERT INTO drafter_decisions(store, ts, record_id, record_hash, action,"
                " witness, field, text, source, analyst, uid, undone, batch_key)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (store, uid) DO NOTHING RETURNING seq",
                (self.store, row.ts, row.record_id, row.record_hash, row.action.value,
                 row.witness, row.field, row.text, row.source.value, row.analyst, row.uid,
                 row.undone, row.batch_key),
            ).fetchone()  # fmt: skip
            if got is None:  # stored already (a retry): its own seq
                got = c.execute(
                    "SELECT seq FROM drafter_decisions WHERE store=%s AND uid=%s",
                    (self.store, row.uid),
                ).fetchone()
            return int(got[0]) if got else 0

    def read(self, after: int = 0) -> list[DecisionRow]:
        with self._conn() as c:
            rows = c.execute(
                f"SELECT {_COLS} FROM drafter_decisions WHERE store=%s AND seq > %s ORDER BY seq",
                (self.store, after),
            ).fetchall()
        return [row_of(t) for t in rows]

    def fingerprint(self) -> str:
        with self._conn() as c:
            got = c.execute(
                "SELECT COUNT(*), COALESCE(MAX(seq), 0), COUNT(*) FILTER (WHERE undone)"
                " FROM drafter_decisions WHERE store=%s",
                (self.store,),
            ).fetchone()
        return ":".join(str(v) for v in (got or ()))

    def mark_undone(self, uid: str) -> None:
        with self._conn() as c:
            c.execute(
                "UPDATE drafter_decisions SET undone=TRUE WHERE store=%s AND uid=%s",
                (self.store, uid),
            )

    def latest_live(self, analyst: str | None) -> DecisionRow | None:
        with self._conn() as c:
            t = c.execute(
                f"SELECT {_COLS} FROM drafter_decisions WHERE store=%s AND NOT undone"
                " AND (analyst IS NOT DISTINCT FROM %s OR analyst IS NULL)"
                " ORDER BY seq DESC LIMIT 1",
                (self.store, analyst),
            ).fetchone()
        return None if t is None else row_of(t)

    def has_batch_key(self, key: str) -> bool:
        with self._conn() as c:
            got = c.execute(
                "SELECT 1 FROM drafter_decisions WHERE store=%s AND batch_key=%s",
                (self.store, key),
            ).fetchone()
        return got is not None

    # -- sessions and settings ------------------------------------------------------

    def start_session(self, analyst: str | None, now: float) -> int:
        with self._conn() as c:
            got = c.execute(
                "INSERT INTO drafter_sessions(store, analyst, started, last_seen)"
                " VALUES (%s, %s, %s, %s) RETURNING id",
                (self.store, analyst, now, now),
            ).fetchone()
        return int(got[0]) if got else 0

    def touch_session(self, session: int, now: float, idle_cap: float) -> bool:
        with self._conn() as c:
            got = c.execute(
                "UPDATE drafter_sessions SET last_seen=%s WHERE id=%s AND %s - last_seen <= %s"
                " RETURNING id",
                (now, session, now, idle_cap),
            ).fetchone()
        return got is not None

    def seconds_spent(self) -> float:
        with self._conn() as c:
            got = c.execute(
                "SELECT COALESCE(SUM(last_seen - started), 0) FROM drafter_sessions WHERE store=%s",
                (self.store,),
            ).fetchone()
        return float(got[0]) if got else 0.0

    def sessions(self) -> list[tuple[str | None, float, float]]:
        with self._conn() as c:
            rows = c.execute(
                "SELECT analyst, started, last_seen FROM drafter_sessions WHERE store=%s"
                " ORDER BY id",
                (self.store,),
            ).fetchall()
        return [(a, float(s), float(e)) for a, s, e in rows]

    def add_session(self, analyst: str | None, started: float, last_seen: float) -> None:
        with self._conn() as c:
            c.execute(
                "INSERT INTO drafter_sessions(store, analyst, started, last_seen)"
                " VALUES (%s, %s, %s, %s)",
                (self.store, analyst, started, last_seen),
            )

    def get_setting(self, key: str) -> str | None:
        with self._conn() as c:
            got = c.execute(
                "SELECT value FROM drafter_meta WHERE store=%s AND key=%s",
                (self.store, f"ui.{key}"),
            ).fetchone()
        return None if got is None else str(got[0])

    def settings(self) -> dict[str, str]:
        with self._conn() as c:
            rows = c.execute(
                "SELECT key, value FROM drafter_meta WHERE store=%s AND key LIKE 'ui.%%'"
                " ORDER BY key",
                (self.store,),
            ).fetchall()
        return {str(k)[3:]: str(v) for k, v in rows}

    def set_setting(self, key: str, value: str) -> None:
        with self._conn() as c:
            c.execute(
                "INSERT INTO drafter_meta(store, key, value) VALUES (%s, %s, %s)"
                " ON CONFLICT (store, key) DO UPDATE SET value=excluded.value",
                (self.store, f"ui.{key}", value),
            )

    def close(self) -> None:
        self.pool.close()
