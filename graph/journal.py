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


def request_key(request: JsonDict) -> str:
    blob = json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


class CallJournal:
    """request hash → response JSON, committed synchronously."""

    def __init__(self, path: Path):
        self.path = path
        self._conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=FULL")
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS calls (key TEXT PRIMARY KEY, response TEXT NOT NULL)"
        )
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS tools (key TEXT PRIMARY KEY, answer TEXT NOT NULL)"
        )
        self._lock = threading.Lock()
        self.replayed = 0
        self.tools_replayed = 0

    def get(self, request: JsonDict) -> JsonDict | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT response FROM calls WHERE key = ?", (request_key(request),)
            ).fetchone()
        if row is None:
            return None
        self.replayed += 1
        response: JsonDict = json.loads(row[0])  # put() stored a dict
        return response

    def put(self, request: JsonDict, response: JsonDict) -> None:
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO calls (key, response) VALUES (?, ?)",
                (request_key(request), json.dumps(response, ensure_ascii=False)),
            )

    def get_tool(self, call: JsonDict) -> JsonDict | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT answer FROM tools WHERE key = ?", (request_key(call),)
            ).fetchone()
        if row is None:
            return None
        self.tools_replayed += 1
        answer: JsonDict = json.loads(row[0])  # put_tool() stored a dict
        return answer

    def put_tool(self, call: JsonDict, answer: JsonDict) -> None:
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO tools (key, answer) VALUES (?, ?)",
                (request_key(call), json.dumps(answer, ensure_ascii=False)),
            )

    def tool_count(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM tools").fetchone()[0])

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM calls").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()
