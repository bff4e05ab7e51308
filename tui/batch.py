"""Decisions without a terminal: ``--accept-verified`` and ``--decisions FILE``.

They write through the same :class:`~drafter.review_store.ReviewStore` as the app, so
a scripted pass and a later interactive one see one history (and undo works across
them).  A decisions file is JSON lines, one decision per line::

    {"record": "RT-RTE-x", "action": "accept"}
    {"record": "RT-RTE-x", "action": "reject", "reason": "wrong entry point"}
    {"record": "RT-RTE-x", "action": "annotate", "text": "check the retry path"}
    {"record": "RT-RTE-x", "action": "edit", "field": "Label", "value": "Nightly run"}
    {"record": "RT-RTE-x", "action": "accept_witness", "witness": 1}
    {"record": "RT-RTE-x", "action": "reject_witness", "witness": 2, "reason": "too broad"}

``witness`` is 1-based, as shown in the app.  An optional ``"hash"`` (the record's
content hash) makes the decision refuse to apply to a record that changed since.
The whole file is checked before anything is written, so a typo on line 40 does not
leave 39 decisions applied.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from drafter.errors import BadInput
from drafter.model import Record, Report
from drafter.review_store import Mark, ReviewStore, apply_edit, record_hash
from tui.session import witness_ok

_ACTIONS = {"accept", "reject", "annotate", "edit", "accept_witness", "reject_witness"}
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


def _parse(path: Path, report: Report) -> list[Callable[[ReviewStore], object]]:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise BadInput(f"cannot read decisions: {exc.strerror}", where=str(path)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BadInput("decisions file is not UTF-8 text", where=str(path)) from None
    where = str(path)
    ops: list[Callable[[ReviewStore], object]] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if len(line) > MAX_DECISION_LINE:
            raise BadInput("line is too long for a decision", where=where, line=n)
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BadInput(f"not JSON: {exc.msg}", where=where, line=n) from None
        if not isinstance(obj, dict):
            raise BadInput("a decision must be a JSON object", where=where, line=n)
        rid = _text(obj, "record", where, n)
        action = _text(obj, "action", where, n)
        if action not in _ACTIONS:
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
        ops.append(_op(obj, r, action or "", where, n))
    return ops


def _op(
    obj: dict[str, object], r: Record, action: str, where: str, n: int
) -> Callable[[ReviewStore], object]:
    if action == "accept":
        return lambda s: s.accept(r)
    if action == "reject":
        reason = _text(obj, "reason", where, n) or ""
        return lambda s: s.reject(r, reason)
    if action == "annotate":
        note = _text(obj, "text", where, n) or ""
        return lambda s: s.annotate(r, note)
    if action == "edit":
        name = _text(obj, "field", where, n) or ""
        value = obj.get("value")
        if not isinstance(value, str):
            raise BadInput('"value" must be a string', where=where, line=n)
        try:
            apply_edit(r, name, value)
        except BadInput as exc:
            raise BadInput(str(exc), where=where, line=n) from None
        return lambda s: s.edit(r, name, value)
    idx = obj.get("witness")
    if not isinstance(idx, int) or isinstance(idx, bool) or not 1 <= idx <= len(r.witnesses):
        raise BadInput(
            f'"witness" must be a number from 1 to {len(r.witnesses)} for {r.id}',
            where=where,
            line=n,
        )
    reason = _text(obj, "reason", where, n, required=False)
    ok = action == "accept_witness"
    return lambda s: s.decide_witness(r, idx - 1, ok, reason)


def apply_decisions_file(store: ReviewStore, report: Report, path: Path) -> BatchResult:
    """Check every line, then store every decision in order."""
    ops = _parse(path, report)
    for op in ops:
        op(store)
    return BatchResult(applied=len(ops), skipped=0)


def accept_verified(store: ReviewStore, report: Report) -> BatchResult:
    """Accept each pending record whose witnesses (at least one) all verified.

    Records already decided are left alone: a script must not overrule an analyst.
    """
    states = store.states(report.records)
    applied = skipped = 0
    for r in report.records:
        ws = r.witnesses
        if (
            states[r.id].mark in (Mark.pending, Mark.changed)
            and ws
            and all(witness_ok(w) for w in ws)
        ):
            store.accept(r, note="accept-verified")
            applied += 1
        else:
            skipped += 1
    return BatchResult(applied=applied, skipped=skipped)
