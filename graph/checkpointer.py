"""Where a run's checkpoints and its journal of paid calls live: chosen once, here.

Default: one SQLite file per run under ``<data dir>/runs`` (checkpoint) with the call
journal beside it.  With a locator ``postgresql://…`` (``draft --checkpoint`` or
``$DRAFTER_CHECKPOINT``) both live in that database: LangGraph's Postgres saver for the
checkpoints, and the journal in a table keyed by thread, so ``--resume THREAD`` works
from any machine or data dir that can reach the database, and a resumed run answers
every call an earlier process paid for from the journal instead of paying again.

Why one module: the runner(s) only ask :func:`open_checkpointer` for a saver and a
journal; which backend it is, how it is created and how "no such run" is told apart
stay out of the workflow code.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from drafter.errors import BadInput
from drafter.store_locator import is_server, redact
from graph.journal import TABLES, CallJournal
from graph.jsontypes import JsonDict
from graph.run import checkpoint_path, existing_checkpoint, journal_path, stored_values
from graph.runkind import WorkflowKind, record_kind

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from langgraph.graph import StateGraph

#: Environment variable naming the checkpointer locator when --checkpoint is not given.
ENV_CHECKPOINT = "DRAFTER_CHECKPOINT"


@dataclass
class OpenRun:
    """A run's saver and journal, and where they are (a path, or a redacted URL)."""

    saver: BaseCheckpointSaver[Any]
    journal: CallJournal
    where: Path | str


def _unreachable(exc: Exception, url: str, what: str = "unreachable") -> BadInput:
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return BadInput(f"checkpoint database {what}: {redact(first)}", where=redact(url))


class PostgresCallJournal(CallJournal):
    """The call journal in a Postgres table, one row per (thread, request hash)."""

    def __init__(self, url: str, thread_id: str):
        import psycopg

        self.path = Path(thread_id)
        self.thread = thread_id
        self.replayed = 0
        self.tools_replayed = 0
        self._lock = threading.Lock()
        try:
            self._pg = psycopg.connect(url, autocommit=True, connect_timeout=5)
        except psycopg.Error as exc:
            raise _unreachable(exc, url) from None
        for table, col in TABLES.items():
            self._pg.execute(
                f"CREATE TABLE IF NOT EXISTS drafter_journal_{table} (thread TEXT NOT NULL,"
                f" key TEXT NOT NULL, {col} TEXT NOT NULL, PRIMARY KEY (thread, key))"
            )

    def _fetch(self, table: str, key: str) -> str | None:
        with self._lock:
            row = self._pg.execute(
                f"SELECT {TABLES[table]} FROM drafter_journal_{table} WHERE thread=%s AND key=%s",
                (self.thread, key),
            ).fetchone()
        return None if row is None else str(row[0])

    def _store(self, table: str, key: str, value: str) -> None:
        col = TABLES[table]
        with self._lock:
            self._pg.execute(
                f"INSERT INTO drafter_journal_{table} (thread, key, {col}) VALUES (%s, %s, %s)"
                f" ON CONFLICT (thread, key) DO UPDATE SET {col}=excluded.{col}",
                (self.thread, key, value),
            )

    def _count(self, table: str) -> int:
        with self._lock:
            row = self._pg.execute(
                f"SELECT COUNT(*) FROM drafter_journal_{table} WHERE thread=%s", (self.thread,)
            ).fetchone()
        return int(row[0]) if row else 0

    def close(self) -> None:
        with self._lock:
            self._pg.close()


@contextmanager
def open_checkpointer(
    locator: str | None,
    thread_id: str,
    data_dir: Path | None,
    *,
    resume: bool,
    kind: WorkflowKind = WorkflowKind.runtime,
    shared: bool = True,
) -> Iterator[OpenRun]:
    """The saver and journal of run ``thread_id``: a new run's, or (``resume``) one
    that must exist already (BadInput in one line when it does not).  No locator:
    ``$DRAFTER_CHECKPOINT``, else SQLite in the data dir; not ``shared``: SQLite."""
    locator = (locator or os.environ.get(ENV_CHECKPOINT) or None) if shared else None
    if locator and is_server(locator):
        with _postgres(locator, thread_id, resume=resume) as run:
            yield run
        return
    from langgraph.checkpoint.sqlite import SqliteSaver

    path = (
        existing_checkpoint(thread_id, data_dir) if resume else checkpoint_path(thread_id, data_dir)
    )
    if not resume:
        record_kind(path, kind)
    with SqliteSaver.from_conn_string(str(path)) as saver:
        journal = CallJournal(journal_path(thread_id, data_dir))
        try:
            yield OpenRun(saver, journal, path)
        finally:
            journal.close()


@contextmanager
def _postgres(url: str, thread_id: str, *, resume: bool) -> Iterator[OpenRun]:
    import psycopg
    from langgraph.checkpoint.postgres import PostgresSaver

    try:
        cm = PostgresSaver.from_conn_string(url)
        saver = cm.__enter__()
    except psycopg.Error as exc:
        raise _unreachable(exc, url) from None
    try:
        try:
            saver.setup()
        except psycopg.Error as exc:  # e.g. no right to create the checkpoint tables
            raise _unreachable(exc, url, "refused") from None
        if resume and saver.get_tuple({"configurable": {"thread_id": thread_id}}) is None:
            raise BadInput(f"no run {thread_id!r} to resume in {redact(url)}")
        journal = PostgresCallJournal(url, thread_id)
        try:
            yield OpenRun(saver, journal, redact(url))
        finally:
            journal.close()
    finally:
        cm.__exit__(None, None, None)


def stored_run_values(
    locator: str | None, thread_id: str, graph: StateGraph[Any, Any], data_dir: Path | None
) -> JsonDict:
    """The last saved state of a run (for ``--resume``), wherever it is kept."""
    locator = locator or os.environ.get(ENV_CHECKPOINT) or None
    if not (locator and is_server(locator)):
        return stored_values(thread_id, graph, data_dir)
    with _postgres(locator, thread_id, resume=True) as run:
        app = graph.compile(checkpointer=run.saver)
        values = dict(app.get_state({"configurable": {"thread_id": thread_id}}).values or {})
    if not values:
        raise BadInput(f"run {thread_id!r} stopped before its first step was saved; start again")
    return values
