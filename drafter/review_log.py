"""The one seam between review decisions and where they are kept.

Why a protocol this small: everything a review needs from storage is to append a
decision, read the decisions back, mark one undone, count time in sessions, keep a
few view settings, and group writes in a transaction.  What the decisions mean (the
fold, edits, the export) is computed from the rows in :mod:`drafter.review_fold`, so a
backend is only this and the two implementations stay short: an SQLite file
(:mod:`drafter.review_log_sqlite`, the default, nothing to start) and a Postgres
database shared by a team (:mod:`drafter.review_log_pg`).

Rows carry a ``uid`` made by the writer, and appending a uid already stored is a
no-op: a decision sent again after a lost connection is stored once.

Schema versions: both backends write :data:`SCHEMA` and refuse a store whose version
is newer (made by a newer drafter); an older one is brought up to date in place.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Protocol

from drafter.errors import BadInput
from drafter.review_fold import DecisionRow

#: The decision log's schema version (1: no analyst, no uid; 2: both).
SCHEMA = 2


class StoreUnavailable(BadInput):
    """The store cannot be reached now (a server down, a network gone).

    A BadInput, so a command that cannot reach its store says so in one line and
    exits 2; the review app catches it instead and keeps decisions until it is back.
    """


def newer_schema(found: int, where: str) -> BadInput:
    return BadInput(
        f"review store schema {found} was made by a newer drafter (this one writes "
        f"{SCHEMA}); upgrade drafter to open it",
        where=where,
    )


class DecisionLog(Protocol):
    """Decisions about one draft, in the order they were stored."""

    #: what to show the user as the store's address (a password never appears in it)
    where: str

    def append(self, row: DecisionRow) -> int:
        """Store ``row`` (its ``seq`` is ignored) and return its sequence number; a
        row whose ``uid`` is stored already is not stored again (its seq is returned)."""
        ...

    def read(self, after: int = 0) -> list[DecisionRow]:
        """Every row (undone ones too) with a sequence number above ``after``."""
        ...

    def fingerprint(self) -> str:
        """Changes whenever a row is stored or undone: cheap, for polling.

        Not the highest sequence number alone: on a server, rows committed by
        concurrent writers may become visible out of sequence order, and an undo
        stores no row."""
        ...

    def mark_undone(self, uid: str) -> None:
        """Mark the row with this uid undone (again is a no-op)."""
        ...

    def latest_live(self, analyst: str | None) -> DecisionRow | None:
        """The newest row not undone, of this analyst or of no named analyst."""
        ...

    def has_batch_key(self, key: str) -> bool: ...

    def transaction(self) -> AbstractContextManager[None]:
        """Writes inside commit together; concurrent transactions on one store run
        one after the other (so read-then-write batches see each other)."""
        ...

    def start_session(self, analyst: str | None, now: float) -> int: ...

    def touch_session(self, session: int, now: float, idle_cap: float) -> bool:
        """Count activity up to ``now``; False when the gap exceeded ``idle_cap``
        (the caller starts a new session so the gap is not counted)."""
        ...

    def seconds_spent(self) -> float: ...

    def sessions(self) -> list[tuple[str | None, float, float]]:
        """(analyst, started, last seen) of every session, oldest first (for copying)."""
        ...

    def add_session(self, analyst: str | None, started: float, last_seen: float) -> None: ...

    def get_setting(self, key: str) -> str | None: ...

    def settings(self) -> dict[str, str]:
        """Every view setting (for copying)."""
        ...

    def set_setting(self, key: str, value: str) -> None: ...

    def close(self) -> None: ...
