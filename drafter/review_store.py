"""The durable store of review decisions: what the app, the batch CLI, redraft and
reverify write through, whatever backend keeps the rows.

Why an event log and not a table of current states: undo needs history, a draft that
is regenerated needs to know what was decided about the *old* content of a record, and
two analysts who disagree must both be kept.  Rows are appended and only ever marked
undone; the current state is :func:`~drafter.review_fold.fold` over them.

Where the rows live is a :class:`~drafter.review_log.DecisionLog` chosen by the
store's locator (:mod:`drafter.store_locator`): an SQLite file, or a Postgres
database a team shares.  Every decision names its analyst (:func:`analyst_name`).

A server that goes away mid-review: a store opened with ``keep_offline`` (the review
app) keeps each decision in a local :class:`~drafter.review_outbox.Outbox` and shows
it as made; :meth:`ReviewStore.poll` sends them when the server is back.  Commands
without a screen are not given that: they say so in one line and exit 2.

This module is core: it imports nothing from ``tui``.
"""

from __future__ import annotations

import dataclasses
import getpass
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from drafter.errors import BadInput
from drafter.model import Record
from drafter.review_edits import (
    LABEL_FIELD,
    PART_OF_FIELD,
    apply_edit,
    editable_fields,
    field_value,
)
from drafter.review_fold import (
    IDLE_CAP,
    RECORD_ACTIONS,
    WITNESS_ACTIONS,
    Action,
    DecisionRow,
    DecisionSource,
    Mark,
    Progress,
    RecordState,
    fold_all,
    progress_of,
    record_hash,
    reviewed_record,
    witness_key,
)
from drafter.review_log import DecisionLog, StoreUnavailable
from drafter.review_outbox import Outbox, outbox_path
from drafter.store_locator import is_server, split_server

__all__ = [
    "IDLE_CAP",
    "LABEL_FIELD",
    "PART_OF_FIELD",
    "RECORD_ACTIONS",
    "WITNESS_ACTIONS",
    "Action",
    "DecisionRow",
    "DecisionSource",
    "Mark",
    "Progress",
    "RecordState",
    "ReviewStore",
    "analyst_name",
    "apply_edit",
    "editable_fields",
    "field_value",
    "open_log",
    "record_hash",
    "witness_key",
]

#: Seconds a writer waits for another process holding an SQLite store before giving
#: up with a one-line error (exit 2) that names the store; $DRAFTER_LOCK_WAIT overrides.
LOCK_WAIT_SECONDS = 10.0
ENV_LOCK_WAIT = "DRAFTER_LOCK_WAIT"
#: Who is deciding, when --analyst is not given (else the OS user).
ENV_ANALYST = "DRAFTER_ANALYST"


def _lock_wait_default() -> float:
    raw = os.environ.get(ENV_LOCK_WAIT)
    try:
        return max(0.0, float(raw)) if raw else LOCK_WAIT_SECONDS
    except ValueError:
        raise BadInput(f"${ENV_LOCK_WAIT} must be a number of seconds, not {raw!r}") from None


def analyst_name(given: str | None = None) -> str:
    """``--analyst``, then ``$DRAFTER_ANALYST``, then the OS user."""
    for raw in (given, os.environ.get(ENV_ANALYST)):
        if raw and raw.strip():
            name = raw.strip()
            if len(name) > 80 or any(not c.isprintable() for c in name):
                raise BadInput(f"analyst name {name[:40]!r}… must be printable, ≤ 80 characters")
            return name
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return f"uid{os.getuid()}"


def open_log(locator: str | os.PathLike[str], *, lock_wait: float | None = None) -> DecisionLog:
    """The backend a locator names (a server locator must name its store with ``#``)."""
    raw = str(locator)
    if is_server(raw):
        from drafter.review_log_pg import PostgresLog

        url, name = split_server(raw)
        if name is None:
            raise BadInput("a Postgres store locator needs its store's name (…#NAME)")
        return PostgresLog(url, name)
    from drafter.review_log_sqlite import SqliteLog

    return SqliteLog(raw, lock_wait=_lock_wait_default() if lock_wait is None else lock_wait)


class ReviewStore:
    """Decisions about one draft, durable from the moment each is made.

    ``clock`` is injectable so tests (and snapshot screenshots) see fixed times.
    """

    def __init__(
        self,
        locator: str | os.PathLike[str],
        *,
        clock: Callable[[], float] = time.time,
        lock_wait: float | None = None,
        analyst: str | None = None,
        lead: bool = False,
        keep_offline: bool = False,
        outbox_root: Path | None = None,
    ):
        self.locator = str(locator)
        self.clock = clock
        self.analyst = analyst_name(analyst)
        self.log: DecisionLog = open_log(self.locator, lock_wait=lock_wait)
        self.where = self.log.where
        self.path: Path | None = None if is_server(self.locator) else Path(self.locator)
        #: accepts and rejects made here are a lead's: they settle a conflict
        self.lead = lead
        self._session: int | None = None
        self._rows: list[DecisionRow] = []  # the last rows read (shown while offline)
        self._seen = ""  # the log's fingerprint when they were read
        self._in_tx = 0
        # the app polls from a worker thread while its screen decides
        self._lock = threading.RLock()
        self.outbox: Outbox | None = None
        if keep_offline and self.path is None:
            from drafter.config import data_dir

            self.outbox = Outbox(outbox_path(self.locator, outbox_root or data_dir()))
        #: why the store cannot be reached now (None when it can)
        self.offline: str | None = None
        if self.outbox is not None and len(self.outbox):
            self.offline = "decisions from an earlier session are waiting to be sent"
            self.flush()

    # -- lifecycle ----------------------------------------------------------------

    def close(self) -> None:
        self.log.close()

    def __enter__(self) -> ReviewStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def _db(self) -> object:
        """The SQLite connection (tests look at its pragmas)."""
        return getattr(self.log, "db", None)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction: everything inside commits together or not at all;
        concurrent transactions on one store run one after the other."""
        with self.log.transaction():
            self._in_tx += 1
            try:
                yield
            finally:
                self._in_tx -= 1

    # -- writing ------------------------------------------------------------------

    def _append(
        self,
        r: Record,
        action: Action,
        *,
        witness: str | None = None,
        field_name: str | None = None,
        text: str | None = None,
        batch_key: str | None = None,
        source: DecisionSource = DecisionSource.analyst,
    ) -> int:
        if self.lead and action in RECORD_ACTIONS and source == DecisionSource.analyst:
            source = DecisionSource.lead
        row = DecisionRow(
            seq=0, ts=self.clock(), record_id=r.id, record_hash=record_hash(r), action=action,
            witness=witness, field=field_name, text=text, source=source, analyst=self.analyst,
            uid=uuid.uuid4().hex, batch_key=batch_key,
        )  # fmt: skip
        return self.send(row)

    def send(self, row: DecisionRow) -> int:
        """Store ``row`` (or queue it while the server is away); its sequence number,
        0 when queued."""
        with self._lock:
            return self._send(row)

    def _send(self, row: DecisionRow) -> int:
        if self.offline is not None and self.outbox is not None and not self._in_tx:
            self.outbox.add("append", row)
            return 0
        try:
            seq = self.log.append(row)
            self.touch()
        except StoreUnavailable as exc:
            if self.outbox is None or self._in_tx:
                raise
            self.offline = str(exc)
            self.outbox.add("append", row)
            return 0
        return seq

    def accept(
        self,
        r: Record,
        note: str | None = None,
        *,
        batch_key: str | None = None,
        source: DecisionSource = DecisionSource.analyst,
    ) -> int:
        return self._append(r, Action.accept, text=note, batch_key=batch_key, source=source)

    def reject(
        self,
        r: Record,
        reason: str | None = None,
        *,
        batch_key: str | None = None,
        source: DecisionSource = DecisionSource.analyst,
    ) -> int:
        """Reject ``r``; the reason is optional.

        A reason is what ``drafter redraft`` sends back to the drafter, so a record
        rejected without one is simply left out (no redraft asked for).
        """
        text = (reason or "").strip() or None
        return self._append(r, Action.reject, text=text, batch_key=batch_key, source=source)

    def annotate(self, r: Record, text: str, *, batch_key: str | None = None) -> int:
        if not text.strip():
            raise BadInput(f"{r.id}: an annotation is empty")
        return self._append(r, Action.annotate, text=text.strip(), batch_key=batch_key)

    def edit(self, r: Record, field_name: str, value: str, *, batch_key: str | None = None) -> int:
        apply_edit(r, field_name, value)  # refuse bad values before storing them
        return self._append(r, Action.edit, field_name=field_name, text=value, batch_key=batch_key)

    def decide_witness(
        self,
        r: Record,
        index: int,
        accepted: bool,
        reason: str | None = None,
        *,
        batch_key: str | None = None,
    ) -> int:
        ws = r.witnesses
        if not 0 <= index < len(ws):
            raise BadInput(f"{r.id}: no witness #{index + 1} (record has {len(ws)})")
        action = Action.accept_witness if accepted else Action.reject_witness
        return self._append(
            r, action, witness=witness_key(ws[index]), text=reason, batch_key=batch_key
        )

    def undo(self) -> DecisionRow | None:
        """Mark this analyst's latest live decision undone and return it (None if there
        is nothing to undo).  Decisions of other analysts are theirs to undo."""
        with self._lock:
            return self._undo()

    def _undo(self) -> DecisionRow | None:
        if self.offline is not None and self.outbox is not None:
            mine = [
                row
                for row in self._view()
                if not row.undone and row.analyst in (self.analyst, None)
            ]
            if not mine:
                return None
            last = mine[-1]
            if not self.outbox.drop_append(last.uid):
                self.outbox.add("undo", last.uid)
            return last
        with self.transaction():
            row = self.log.latest_live(self.analyst)
            if row is None:
                return None
            self.log.mark_undone(row.uid)
            self.touch()
        return row

    def has_batch_key(self, key: str) -> bool:
        """Was the batch decision with this key stored already (live or undone)?"""
        return self.log.has_batch_key(key)

    # -- the server away and back ----------------------------------------------------

    def flush(self) -> bool:
        """Send what the outbox holds; True when it is empty (and the store reachable)."""
        if self.outbox is None:
            return True
        try:  # reachable?  asked outside the lock: it may wait for the timeout
            self.log.fingerprint()
        except StoreUnavailable as exc:
            self.offline = str(exc)
            return False
        with self._lock:
            return self._flush()

    def _flush(self) -> bool:
        assert self.outbox is not None
        try:
            for _, item in list(self.outbox.ops):
                if isinstance(item, DecisionRow):
                    self.log.append(item)  # a uid stored already is not stored again
                else:
                    self.log.mark_undone(item)
        except StoreUnavailable as exc:
            self.offline = str(exc)
            return False
        self.outbox.clear()
        self.offline = None
        return True

    def poll(self) -> bool:
        """Reconnect and send queued decisions if the server was away; True when the
        decisions changed since they were last read (another analyst decided)."""
        if self.offline is not None:
            was = self.offline
            if not self.flush():
                return False
            return bool(was)
        try:
            now = self.log.fingerprint()
        except StoreUnavailable as exc:
            if self.outbox is None:
                raise
            self.offline = str(exc)
            return True
        return now != self._seen

    # -- view state ----------------------------------------------------------------

    def get_setting(self, key: str) -> str | None:
        """A small piece of view state kept with the decisions (e.g. the last record)."""
        try:
            return self.log.get_setting(self._setting(key))
        except StoreUnavailable:
            if self.outbox is None:
                raise
            return None

    def set_setting(self, key: str, value: str) -> None:
        try:
            self.log.set_setting(self._setting(key), value)
        except StoreUnavailable:
            if self.outbox is None:
                raise

    def _setting(self, key: str) -> str:
        # on a shared server each analyst has their own place in the draft
        return f"{self.analyst}.{key}" if self.path is None else key

    # -- time ---------------------------------------------------------------------

    def start_session(self) -> None:
        try:
            self._session = self.log.start_session(self.analyst, self.clock())
        except StoreUnavailable:
            if self.outbox is None:
                raise

    def touch(self) -> None:
        """Record activity in the current session (counts towards time spent)."""
        if self._session is None:
            return
        try:
            if not self.log.touch_session(self._session, self.clock(), IDLE_CAP):
                # a long idle gap: start a fresh session so the gap is not counted
                self.start_session()
        except StoreUnavailable:
            if self.outbox is None:
                raise

    def seconds_spent(self) -> float:
        try:
            return self.log.seconds_spent()
        except StoreUnavailable:
            if self.outbox is None:
                raise
            return 0.0

    # -- reading ------------------------------------------------------------------

    def _view(self) -> list[DecisionRow]:
        """Every row, as stored plus as queued while the server is away."""
        with self._lock:
            return self._view_locked()

    def _view_locked(self) -> list[DecisionRow]:
        if self.offline is None:
            try:
                seen = self.log.fingerprint()
                self._rows, self._seen = self.log.read(), seen
            except StoreUnavailable as exc:
                if self.outbox is None:
                    raise
                self.offline = str(exc)
        if self.outbox is None or not len(self.outbox):
            return self._rows
        undone = {i for o, i in self.outbox.ops if o == "undo"}
        rows = [r if r.uid not in undone else _undone(r) for r in self._rows]
        rows += [i for o, i in self.outbox.ops if isinstance(i, DecisionRow)]
        return rows

    def all_rows(self) -> list[DecisionRow]:
        """Every row, undone ones too, in the order stored (for copying a store)."""
        return self.log.read()

    def rows(self, record_id: str | None = None) -> list[DecisionRow]:
        """Live (not undone) decisions in the order they were made."""
        return [r for r in self._view() if not r.undone and record_id in (None, r.record_id)]

    def state(self, r: Record) -> RecordState:
        return self.states([r])[r.id]

    def states(self, records: Iterable[Record]) -> dict[str, RecordState]:
        """Current state per record ID, folding live decisions over the record's content."""
        return fold_all(records, self._view())

    def progress(self, records: Iterable[Record]) -> Progress:
        return progress_of(self.states(records).values(), self.seconds_spent())

    # -- results ------------------------------------------------------------------

    def reviewed_record(self, r: Record, st: RecordState | None = None) -> Record:
        """The record with the analyst's edits applied and rejected witnesses removed."""
        return reviewed_record(r, st or self.state(r))


def _undone(r: DecisionRow) -> DecisionRow:
    return dataclasses.replace(r, undone=True)
