"""The durable store of an analyst's review decisions.

Why SQLite with WAL and ``synchronous=FULL``: a decision is an analyst's judgement and
must survive a ``kill -9`` the instant after the key was pressed.  Every decision is one
committed row; with FULL synchronous mode the commit returns only after the WAL is on
disk, so whatever the screen showed as decided is there when the store is reopened.

Why an event log and not a table of current states: undo needs history, and a draft
that is regenerated needs to know what was decided about the *old* content of a record.
Rows are appended and only ever marked undone; the current state is a fold over them.

Keys: every row names the record ID and a hash of the record's *content* (label,
part-of and blocks, without the verifier's verdicts, which change on re-verification
without the analyst's text changing).  When a regenerated draft keeps a record's
content, its decisions carry over; when the content changed, the record shows as
"changed since review" until it is decided again.  Witness decisions are keyed by a
hash of the witness (path, quote, line range), so they follow the quote, not its
position.

This module is core: it imports nothing from ``tui``; the TUI, the batch CLI and the
tests all write through the same :class:`ReviewStore`.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from drafter.errors import BadInput
from drafter.model import Bullet, Paragraph, Record, RecordSection, Report, Witness, WitnessBlock
from drafter.sqlite_open import first_open

STORE_SCHEMA = 1

#: Seconds of inactivity after which time stops counting as review time.
IDLE_CAP = 300.0

#: Seconds a writer waits for another process holding the store before giving up with
#: a one-line error (exit 2) that names the store; $DRAFTER_LOCK_WAIT overrides it.
LOCK_WAIT_SECONDS = 10.0
ENV_LOCK_WAIT = "DRAFTER_LOCK_WAIT"


def _lock_wait_default() -> float:
    raw = os.environ.get(ENV_LOCK_WAIT)
    try:
        return max(0.0, float(raw)) if raw else LOCK_WAIT_SECONDS
    except ValueError:
        raise BadInput(f"${ENV_LOCK_WAIT} must be a number of seconds, not {raw!r}") from None


class Action(StrEnum):
    """What a decision row does."""

    accept = "accept"
    reject = "reject"
    annotate = "annotate"
    edit = "edit"
    accept_witness = "accept_witness"
    reject_witness = "reject_witness"


class DecisionSource(StrEnum):
    """Who made a decision: the analyst, or a batch rule applied for them.

    Why: code that must treat a batch acceptance differently (the export leaves its
    note out) reads this, never the note's wording."""

    analyst = "analyst"
    accept_verified = "accept_verified"


class Mark(StrEnum):
    """A record's review status as the reviewer sees it."""

    pending = "pending"
    accepted = "accepted"
    rejected = "rejected"
    changed = "changed"  # decided before, but the record's content changed since


RECORD_ACTIONS = (Action.accept, Action.reject)
WITNESS_ACTIONS = (Action.accept_witness, Action.reject_witness)


def _canonical(obj: object) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def witness_key(w: Witness) -> str:
    """A short stable hash of a witness's content (not its verification)."""
    lines = [w.lines.start, w.lines.end] if w.lines else None
    return hashlib.sha256(_canonical([w.path, w.quote, lines])).hexdigest()[:16]


def record_hash(r: Record) -> str:
    """A stable hash of what the analyst reviews: ID, label, part-of and blocks.

    Witness verdicts and machine flags are left out: re-running the verifier must not
    make a reviewed record look changed.
    """
    data = r.model_dump(mode="json", exclude={"flags"})
    for b in data["blocks"]:
        if b.get("type") == "witness":
            b["witness"].pop("verification", None)
    return hashlib.sha256(_canonical(data)).hexdigest()[:16]


# -- editable fields ------------------------------------------------------------------

LABEL_FIELD = "Label"
PART_OF_FIELD = "Part of"


def editable_fields(r: Record) -> list[str]:
    """Fields an analyst can edit in place: label, part-of, named bullets, paragraphs."""
    out = [LABEL_FIELD, PART_OF_FIELD]
    out.extend(b.name for b in r.blocks if isinstance(b, Bullet) and b.name is not None)
    n = sum(1 for b in r.blocks if isinstance(b, Paragraph))
    out.extend(f"Paragraph {i + 1}" for i in range(n))
    return list(dict.fromkeys(out))  # first occurrence of each, in order


def field_value(r: Record, name: str) -> str:
    """The current value of an editable field (empty if absent)."""
    if name == LABEL_FIELD:
        return r.label
    if name == PART_OF_FIELD:
        return r.part_of or ""
    if name.startswith("Paragraph "):
        idx = _paragraph_index(name)
        paras = r.paragraphs
        return paras[idx] if idx is not None and idx < len(paras) else ""
    return r.fields.get(name, "")


def _paragraph_index(name: str) -> int | None:
    try:
        return int(name.removeprefix("Paragraph ")) - 1
    except ValueError:
        return None


def apply_edit(r: Record, name: str, value: str) -> Record:
    """A copy of ``r`` with one field replaced; an absent bullet field is appended.

    Raises BadInput for values the report model refuses (an empty label, a part-of
    that is not a record ID), so a bad edit is refused when it is made, not at export.
    """
    new = r.model_copy(deep=True)
    try:
        if name == LABEL_FIELD:
            return Record.model_validate({**new.model_dump(), "label": value})
        if name == PART_OF_FIELD:
            return Record.model_validate({**new.model_dump(), "part_of": value.strip() or None})
    except ValueError as exc:
        raise BadInput(f"{r.id}: cannot set {name}: {_first_error(exc)}") from None
    if name.startswith("Paragraph "):
        idx = _paragraph_index(name)
        paras = [i for i, b in enumerate(new.blocks) if isinstance(b, Paragraph)]
        if idx is None or not 0 <= idx < len(paras):
            raise BadInput(f"{r.id}: no field {name!r}")
        new.blocks[paras[idx]] = Paragraph(text=value)
        return new
    for i, b in enumerate(new.blocks):
        if isinstance(b, Bullet) and b.name == name:
            new.blocks[i] = Bullet(name=name, value=value)
            return new
    if not name.strip() or ":" in name:
        raise BadInput(f"{r.id}: {name!r} is not a field name")
    # place a new field after the last bullet, else before the first witness
    at = max((i + 1 for i, b in enumerate(new.blocks) if isinstance(b, Bullet)), default=None)
    if at is None:
        at = next(
            (i for i, b in enumerate(new.blocks) if isinstance(b, WitnessBlock)), len(new.blocks)
        )
    new.blocks.insert(at, Bullet(name=name, value=value))
    return new


def _first_error(exc: ValueError) -> str:
    errs = getattr(exc, "errors", None)
    if callable(errs):
        try:
            return str(errs()[0]["msg"])
        except Exception:  # noqa: BLE001 - fall back to the plain message
            pass
    return str(exc).splitlines()[0]


# -- state ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DecisionRow:
    """One stored decision."""

    seq: int
    ts: float
    record_id: str
    record_hash: str
    action: Action
    witness: str | None
    field: str | None
    text: str | None
    source: DecisionSource = DecisionSource.analyst


@dataclass(slots=True)
class RecordState:
    """The fold of every live decision about one record, for its current content."""

    record_id: str
    record_hash: str
    mark: Mark = Mark.pending
    reason: str | None = None
    #: who made the accept or reject that set ``mark``
    source: DecisionSource = DecisionSource.analyst
    #: every note to show, those about an earlier version of the record marked so
    notes: list[str] = field(default_factory=list)
    #: the notes written about the record as it is now (what a redraft is sent)
    current_notes: list[str] = field(default_factory=list)
    edits: dict[str, str] = field(default_factory=dict)
    #: witness key -> (accepted?, reason)
    witnesses: dict[str, tuple[bool, str | None]] = field(default_factory=dict)
    #: the decision made about an older version of the record, if it changed since
    previous: Mark | None = None

    @property
    def decided(self) -> bool:
        return self.mark in (Mark.accepted, Mark.rejected)

    def witness_decision(self, w: Witness) -> bool | None:
        got = self.witnesses.get(witness_key(w))
        return None if got is None else got[0]


@dataclass(frozen=True, slots=True)
class Progress:
    total: int
    accepted: int
    rejected: int
    changed: int
    seconds: float

    @property
    def reviewed(self) -> int:
        return self.accepted + self.rejected


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
);
"""


class ReviewStore:
    """Decisions about one draft, durable from the moment each is made.

    ``clock`` is injectable so tests (and snapshot screenshots) see fixed times.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        clock: Callable[[], float] = time.time,
        lock_wait: float | None = None,
    ):
        self.path = Path(path)
        self.clock = clock
        self.lock_wait = _lock_wait_default() if lock_wait is None else lock_wait
        self._depth = 0  # nesting of transaction()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BadInput(
                f"cannot create the review store's folder: {exc.strerror}", where=str(self.path)
            ) from None
        try:
            self._db = sqlite3.connect(
                str(self.path), isolation_level=None, check_same_thread=False,
                timeout=self.lock_wait,
            )  # fmt: skip
            first_open(self._db, self._open_steps, wait=self.lock_wait)
        except sqlite3.OperationalError as exc:
            raise self._db_error(exc) from None
        except sqlite3.DatabaseError as exc:
            raise BadInput(
                f"review store is not a usable SQLite file: {exc}", where=str(self.path)
            ) from None
        self._session: int | None = None

    def _open_steps(self) -> None:
        """WAL, full sync, then the schema in one write transaction; run again by
        :func:`first_open` when another process opening the same fresh store at the
        same moment makes a step fail at once with "locked"."""
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        with self._write():
            for stmt in _DDL.split(";"):
                if stmt.strip():
                    self._db.execute(stmt)
            self._migrate()
            self._check_schema()

    def _db_error(self, exc: sqlite3.Error) -> BadInput:
        """One line naming the store for an SQLite failure (locked, read-only, corrupt)."""
        msg = str(exc)
        if "locked" in msg or "busy" in msg:
            return BadInput(
                f"review store is locked by another process (waited {self.lock_wait:g} s); "
                "try again when it has finished",
                where=str(self.path),
            )
        if "readonly" in msg or "read-only" in msg:
            return BadInput("review store is read-only", where=str(self.path))
        if "unable to open" in msg:
            return BadInput("cannot open the review store", where=str(self.path))
        return BadInput(f"review store is not usable: {msg}", where=str(self.path))

    def _migrate(self) -> None:
        """Add the batch key column (idempotent batches) and the decision source to
        stores made before they existed."""
        cols = {r[1] for r in self._db.execute("PRAGMA table_info(decisions)")}
        if "batch_key" not in cols:
            self._db.execute("ALTER TABLE decisions ADD COLUMN batch_key TEXT")
        if "source" not in cols:
            self._db.execute("ALTER TABLE decisions ADD COLUMN source TEXT")
            # before the column, an --accept-verified acceptance was known by its note
            self._db.execute(
                "UPDATE decisions SET source=? WHERE action=? AND text='accept-verified'",
                (DecisionSource.accept_verified.value, Action.accept.value),
            )
        self._db.execute(
            "CREATE UNIQUE INDEX IF NOT EXISTS decisions_batch_key ON decisions(batch_key)"
            " WHERE batch_key IS NOT NULL"
        )

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction: everything inside commits together or not at all.

        ``BEGIN IMMEDIATE`` takes the write lock before anything is read, so two
        processes running a batch serialise: the second sees what the first wrote.
        Nested use joins the outer transaction.  A lock SQLite could not get in time
        is the one-line "locked" error.
        """
        try:
            with self._write():
                yield
        except sqlite3.OperationalError as exc:
            raise self._db_error(exc) from None

    @contextmanager
    def _write(self) -> Iterator[None]:
        """:meth:`transaction` with SQLite's own errors, for the opening steps, which
        retry a lock conflict instead of reporting it."""
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        self._db.execute("BEGIN IMMEDIATE")
        self._depth = 1
        try:
            yield
        except BaseException:
            self._depth = 0
            self._rollback()
            raise
        self._depth = 0
        try:
            self._db.execute("COMMIT")
        except sqlite3.OperationalError:
            self._rollback()
            raise

    def _rollback(self) -> None:
        try:
            self._db.execute("ROLLBACK")
        except sqlite3.Error:
            pass  # the failure that brought us here already ended the transaction

    def has_batch_key(self, key: str) -> bool:
        """Was the batch decision with this key stored already (live or undone)?"""
        row = self._db.execute("SELECT 1 FROM decisions WHERE batch_key=?", (key,)).fetchone()
        return row is not None

    def _check_schema(self) -> None:
        row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        if row is None:
            self._db.execute(
                "INSERT INTO meta(key, value) VALUES ('schema', ?)", (str(STORE_SCHEMA),)
            )
        elif row[0] != str(STORE_SCHEMA):
            raise BadInput(
                f"review store schema {row[0]} is not supported (expected {STORE_SCHEMA})",
                where=str(self.path),
            )

    # -- lifecycle ----------------------------------------------------------------

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ReviewStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

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
        now = self.clock()
        try:
            with self.transaction():
                cur = self._db.execute(
                    "INSERT INTO decisions(ts, record_id, record_hash, action, witness, field,"
                    " text, batch_key, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (now, r.id, record_hash(r), action.value, witness, field_name, text,
                     batch_key, source.value),
                )  # fmt: skip
                self.touch()
        except sqlite3.OperationalError as exc:
            raise self._db_error(exc) from None
        return int(cur.lastrowid or 0)

    def accept(
        self,
        r: Record,
        note: str | None = None,
        *,
        batch_key: str | None = None,
        source: DecisionSource = DecisionSource.analyst,
    ) -> int:
        return self._append(r, Action.accept, text=note, batch_key=batch_key, source=source)

    def reject(self, r: Record, reason: str | None = None, *, batch_key: str | None = None) -> int:
        """Reject ``r``; the reason is optional.

        A reason is what ``drafter redraft`` sends back to the drafter, so a record
        rejected without one is simply left out (no redraft asked for).
        """
        text = (reason or "").strip() or None
        return self._append(r, Action.reject, text=text, batch_key=batch_key)

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
        """Mark the latest live decision undone and return it (None if nothing to undo)."""
        with self.transaction():
            row = self._db.execute(
                "SELECT seq, ts, record_id, record_hash, action, witness, field, text, source"
                " FROM decisions WHERE undone=0 ORDER BY seq DESC LIMIT 1"
            ).fetchone()
            if row is None:
                return None
            self._db.execute("UPDATE decisions SET undone=1 WHERE seq=?", (row[0],))
            self.touch()
        return _row(row)

    # -- view state ----------------------------------------------------------------

    def get_setting(self, key: str) -> str | None:
        """A small piece of view state kept with the decisions (e.g. the last record)."""
        row = self._db.execute("SELECT value FROM meta WHERE key=?", (f"ui.{key}",)).fetchone()
        return None if row is None else str(row[0])

    def set_setting(self, key: str, value: str) -> None:
        self._db.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?)"
            " ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (f"ui.{key}", value),
        )

    # -- time ---------------------------------------------------------------------

    def start_session(self) -> None:
        now = self.clock()
        cur = self._db.execute("INSERT INTO sessions(started, last_seen) VALUES (?, ?)", (now, now))
        self._session = int(cur.lastrowid or 0)

    def touch(self) -> None:
        """Record activity in the current session (counts towards time spent)."""
        if self._session is None:
            return
        now = self.clock()
        row = self._db.execute(
            "SELECT last_seen FROM sessions WHERE id=?", (self._session,)
        ).fetchone()
        if row is not None and now - row[0] > IDLE_CAP:
            # a long idle gap: start a fresh session so the gap is not counted
            self.start_session()
            return
        self._db.execute("UPDATE sessions SET last_seen=? WHERE id=?", (now, self._session))

    def seconds_spent(self) -> float:
        row = self._db.execute(
            "SELECT COALESCE(SUM(last_seen - started), 0) FROM sessions"
        ).fetchone()
        return float(row[0])

    # -- reading ------------------------------------------------------------------

    def rows(self, record_id: str | None = None) -> list[DecisionRow]:
        """Live (not undone) decisions in the order they were made."""
        q = (
            "SELECT seq, ts, record_id, record_hash, action, witness, field, text, source"
            " FROM decisions WHERE undone=0"
        )
        args: tuple[str, ...] = ()
        if record_id is not None:
            q += " AND record_id=?"
            args = (record_id,)
        return [_row(r) for r in self._db.execute(q + " ORDER BY seq", args)]

    def state(self, r: Record) -> RecordState:
        return self.states([r])[r.id]

    def states(self, records: Iterable[Record]) -> dict[str, RecordState]:
        """Current state per record ID, folding live decisions over the record's content."""
        records = list(records)
        by_id: dict[str, list[DecisionRow]] = {r.id: [] for r in records}
        for row in self.rows():
            if row.record_id in by_id:
                by_id[row.record_id].append(row)
        return {r.id: _fold(r, by_id[r.id]) for r in records}

    def progress(self, records: Iterable[Record]) -> Progress:
        states = self.states(records).values()
        return Progress(
            total=len(states),
            accepted=sum(s.mark == Mark.accepted for s in states),
            rejected=sum(s.mark == Mark.rejected for s in states),
            changed=sum(s.mark == Mark.changed for s in states),
            seconds=self.seconds_spent(),
        )

    # -- results ------------------------------------------------------------------

    def reviewed_record(self, r: Record, st: RecordState | None = None) -> Record:
        """The record with the analyst's edits applied and rejected witnesses removed."""
        st = st or self.state(r)
        out = r
        for name, value in st.edits.items():
            out = apply_edit(out, name, value)
        rejected = {k for k, (ok, _) in st.witnesses.items() if not ok}
        if rejected:
            out = out.model_copy(deep=True)
            out.blocks = [
                b
                for b in out.blocks
                if not (isinstance(b, WitnessBlock) and witness_key(b.witness) in rejected)
            ]
        return out

    def accepted_report(self, report: Report) -> Report:
        """The report with only accepted records (edits applied), sections kept in order."""
        states = self.states(report.records)
        new = report.model_copy(deep=True)
        sections: list[RecordSection] = []
        for s in report.sections:
            kept = [
                self.reviewed_record(r, states[r.id])
                for r in s.records
                if states[r.id].mark == Mark.accepted
            ]
            if kept or not s.records:
                sections.append(RecordSection(title=s.title, records=kept, note=s.note))
            else:
                sections.append(
                    RecordSection(title=s.title, records=[], note="none accepted in review")
                )
        new.sections = sections
        return new


def _row(t: tuple[Any, ...]) -> DecisionRow:
    source = DecisionSource(t[8]) if t[8] else DecisionSource.analyst
    return DecisionRow(int(t[0]), float(t[1]), t[2], t[3], Action(t[4]), t[5], t[6], t[7], source)


def _fold(r: Record, rows: list[DecisionRow]) -> RecordState:
    h = record_hash(r)
    st = RecordState(record_id=r.id, record_hash=h)
    current_keys = {witness_key(w) for w in r.witnesses}
    old_mark: Mark | None = None
    for row in rows:
        if row.action in WITNESS_ACTIONS:
            # witness decisions follow the quote, even across record changes
            if row.witness in current_keys:
                st.witnesses[row.witness or ""] = (row.action == Action.accept_witness, row.text)
            continue
        if row.record_hash != h:
            if row.action in RECORD_ACTIONS:
                old_mark = Mark.accepted if row.action == Action.accept else Mark.rejected
            elif row.action == Action.annotate and row.text:
                # notes stay visible, marked as written about an earlier version
                st.notes.append(f"(earlier version) {row.text}")
            continue
        if row.action == Action.accept:
            st.mark, st.reason, st.source = Mark.accepted, row.text, row.source
        elif row.action == Action.reject:
            st.mark, st.reason, st.source = Mark.rejected, row.text, row.source
        elif row.action == Action.annotate and row.text:
            st.notes.append(row.text)
            st.current_notes.append(row.text)
        elif row.action == Action.edit and row.field:
            st.edits[row.field] = row.text or ""
    if st.mark == Mark.pending and old_mark is not None:
        st.mark, st.previous = Mark.changed, old_mark
    return st
