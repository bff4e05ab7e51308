"""Decisions without a terminal: ``--accept-verified`` and ``--decisions FILE``.

They write through the same :class:`~drafter.review_store.ReviewStore` as the app, so
a scripted pass and a later interactive one see one history (and undo works across
them).  A decisions file is JSON lines, one decision per line::

    {"record": "RT-RTE-x", "action": "accept"}
    {"record": "RT-RTE-x", "action": "reject", "reason": "wrong entry point"}
    {"record": "RT-RTE-y", "action": "reject"}
    {"record": "RT-RTE-x", "action": "annotate", "text": "check the retry path"}
    {"record": "RT-RTE-x", "action": "edit", "field": "Label", "value": "Nightly run"}
    {"record": "RT-RTE-x", "action": "accept_witness", "witness": 1}
    {"record": "RT-RTE-x", "action": "reject_witness", "witness": 2, "reason": "too broad"}

``witness`` is 1-based, as shown in the app.  A rejection's ``"reason"`` is optional:
``drafter redraft`` drafts again only the records rejected with one.  An optional
``"hash"`` (the record's content hash) makes the decision refuse to apply to a record
that changed since.
The whole file is checked before anything is written, so a typo on line 40 does not
leave 39 decisions applied; then it is written in one transaction, so a batch killed
half-way leaves nothing, and a line already stored (same content, same record
content) is skipped, so rerunning the file never duplicates a decision.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from drafter.errors import BadInput
from drafter.model import Record, Report
from drafter.reportio import json_problem
from drafter.review_store import (
    Action,
    DecisionSource,
    Mark,
    ReviewStore,
    apply_edit,
    record_hash,
)
from tui.session import witness_ok

_ACTIONS = {a.value for a in Action}
MAX_DECISION_LINE = 100_000


@dataclass(frozen=True, slots=True)
class BatchResult:
    applied: int
    skipped: int


def _text(
    obj: dict[str, object], key: str, where: str, line: int, required: bool = True
) -> str | None:
    v = obj.get(key)
    if v is None and not required:
        return None
    if not isinstance(v, str) or (required and not v.strip()):
        raise BadInput(f'"{key}" must be a non-empty string', where=where, line=line)
    return v


#: One checked decision: how to store it, given the key that makes it idempotent.
Op = Callable[[ReviewStore, str], object]


def batch_key(obj: dict[str, object], r: Record, occurrence: int) -> str:
    """Identity of one decision line: its content, the record's content, and which
    repetition of an identical line it is (two identical notes in one file are two)."""
    canon = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    digest = hashlib.sha256(f"{canon}\n{record_hash(r)}".encode()).hexdigest()[:32]
    return f"batch:{digest}#{occurrence}"


def _parse(path: Path, report: Report) -> list[tuple[Op, str]]:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise BadInput(f"cannot read decisions: {exc.strerror}", where=str(path)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BadInput("decisions file is not UTF-8 text", where=str(path)) from None
    where = str(path)
    ops: list[tuple[Op, str]] = []
    seen: dict[str, int] = {}
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if len(line) > MAX_DECISION_LINE:
            raise BadInput("line is too long for a decision", where=where, line=n)
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError) as exc:  # a 5,000-digit number is a ValueError
            raise BadInput(f"not JSON: {json_problem(exc)}", where=where, line=n) from None
        if not isinstance(obj, dict):
            raise BadInput("a decision must be a JSON object", where=where, line=n)
        rid = _text(obj, "record", where, n)
        action = _text(obj, "action", where, n)
        if action is None or action not in _ACTIONS:
            raise BadInput(
                f"unknown action {action!r}; use one of {', '.join(sorted(_ACTIONS))}",
                where=where,
                line=n,
            )
        r = report.record(rid or "")
        if r is None:
            raise BadInput(f"no record {rid!r} in the draft", where=where, line=n)
        want = obj.get("hash")
        if want is not None and want != record_hash(r):
            raise BadInput(
                f"{rid} changed since this decision was written (hash {want} ≠ {record_hash(r)})",
                where=where,
                line=n,
            )
        base = batch_key(obj, r, 0)
        seen[base] = seen.get(base, 0) + 1
        ops.append((_op(obj, r, Action(action), where, n), batch_key(obj, r, seen[base])))
    return ops


def _op(obj: dict[str, object], r: Record, action: Action, where: str, n: int) -> Op:
    if action == Action.accept:
        return lambda s, k: s.accept(r, batch_key=k)
    if action == Action.reject:
        # optional: only a rejection with a reason is sent back by redraft
        reason = _text(obj, "reason", where, n, required=False)
        return lambda s, k: s.reject(r, reason, batch_key=k)
    if action == Action.annotate:
        note = _text(obj, "text", where, n) or ""
        return lambda s, k: s.annotate(r, note, batch_key=k)
    if action == Action.edit:
        name = _text(obj, "field", where, n) or ""
        value = obj.get("value")
        if not isinstance(value, str):
            raise BadInput('"value" must be a string', where=where, line=n)
        try:
            apply_edit(r, name, value)
        except BadInput as exc:
            raise BadInput(str(exc), where=where, line=n) from None
        return lambda s, k: s.edit(r, name, value, batch_key=k)
    idx = obj.get("witness")
    if not isinstance(idx, int) or isinstance(idx, bool) or not 1 <= idx <= len(r.witnesses):
        raise BadInput(
            f'"witness" must be a number from 1 to {len(r.witnesses)} for {r.id}',
            where=where,
            line=n,
        )
    why = _text(obj, "reason", where, n, required=False)  # optional for a witness
    ok = action == Action.accept_witness
    return lambda s, k: s.decide_witness(r, idx - 1, ok, why, batch_key=k)


def apply_decisions_file(store: ReviewStore, report: Report, path: Path) -> BatchResult:
    """Check every line, then store every decision in order, in ONE transaction.

    A batch killed half-way leaves nothing applied; a decision line already stored
    (same content, same record content) is skipped, so rerunning a file never
    duplicates a note.  A concurrent writer waits for the transaction to end.
    """
    ops = _parse(path, report)
    applied = skipped = 0
    with store.transaction():
        for op, key in ops:
            if store.has_batch_key(key):
                skipped += 1
                continue
            op(store, key)
            applied += 1
    return BatchResult(applied=applied, skipped=skipped)


def accept_verified(store: ReviewStore, report: Report) -> BatchResult:
    """Accept each pending record whose witnesses (at least one) all verified.

    Records already decided are left alone: a script must not overrule an analyst.
    """
    applied = skipped = 0
    with store.transaction():  # read and write under one lock: two runs serialise
        states = store.states(report.records)
        for r in report.records:
            ws = r.witnesses
            if (
                states[r.id].mark in (Mark.pending, Mark.changed)
                and ws
                and all(witness_ok(w) for w in ws)
            ):
                store.accept(r, note="accept-verified", source=DecisionSource.accept_verified)
                applied += 1
            else:
                skipped += 1
    return BatchResult(applied=applied, skipped=skipped)
