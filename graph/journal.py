"""A durable journal of paid model calls, so a resumed run never pays twice.

LangGraph's checkpoint keeps the writes of finished tasks, but it saves them from a
worker pool bounded by the run's ``max_concurrency``: when every worker is busy with
a long model call, the writes of tasks that already finished wait in the queue, and a
``kill -9`` at that moment loses them (found by the SIGKILL test).  The journal closes
that gap at the one place money is spent: every successful response is committed to
SQLite, keyed by a hash of the exact request, before the proposer uses it.  A resumed
run re-executes the lost task, sends the very same request (inputs are pinned to the
revision), and gets the stored answer without a network call.

Tool answers are journalled too (a second table, keyed by tool, input and revision):
they are deterministic at a pinned revision, but storing them makes the claim "a
resumed conversation is the same conversation" hold even if an index or the survey
were rebuilt differently in between.

Within one run every request is distinct (record IDs are unique, corrective retries
carry the rejected answer, repair requests name their round), so the journal never
answers a call that was not made before.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path

from graph.jsontypes import JsonDict

#: The journal's tables and the name of each one's value column.
TABLES = {"calls": "response", "tools": "answer"}


def request_key(request: JsonDict) -> str:
    blob = json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


class CallJournal:
    """request hash → response JSON, committed synchronously (an SQLite file per run).

    The SQL is in :meth:`_fetch`, :meth:`_store` and :meth:`_count`, so a journal on a
    shared database (:class:`graph.checkpointer.PostgresCallJournal`) changes only those.
    """

    def __init__(self, path: Path):
        self.path = path
        self._conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=FULL")
        for table, col in TABLES.items():
            self._conn.execute(
                f"CREATE TABLE IF NOT EXISTS {table} (key TEXT PRIMARY KEY, {col} TEXT NOT NULL)"
            )
        self._lock = threading.Lock()
        self.replayed = 0
        self.tools_replayed = 0

    # -- storage (overridden by another backend) ---------------------------------------

    def _fetch(self, table: str, key: str) -> str | None:
        with self._lock:
            row = self._conn.execute(
                f"SELECT {TABLES[table]} FROM {table} WHERE key = ?", (key,)
            ).fetchone()
        return None if row is None else str(row[0])

    def _store(self, table: str, key: str, value: str) -> None:
        with self._lock:
            self._conn.execute(
                f"INSERT OR REPLACE INTO {table} (key, {TABLES[table]}) VALUES (?, ?)", (key, value)
            )

    def _count(self, table: str) -> int:
        with self._lock:
            return int(self._conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    # -- the journal ------------------------------------------------------------------

    def get(self, request: JsonDict) -> JsonDict | None:
        raw = self._fetch("calls", request_key(request))
        if raw is None:
            return None
        self.replayed += 1
        response: JsonDict = json.loads(raw)  # put() stored a dict
        return response

    def put(self, request: JsonDict, response: JsonDict) -> None:
        self._store("calls", request_key(request), json.dumps(response, ensure_ascii=False))

    def get_tool(self, call: JsonDict) -> JsonDict | None:
        raw = self._fetch("tools", request_key(call))
        if raw is None:
            return None
        self.tools_replayed += 1
        answer: JsonDict = json.loads(raw)  # put_tool() stored a dict
        return answer

    def put_tool(self, call: JsonDict, answer: JsonDict) -> None:
        self._store("tools", request_key(call), json.dumps(answer, ensure_ascii=False))

    def tool_count(self) -> int:
        return self._count("tools")

    def __len__(self) -> int:
        return self._count("calls")
