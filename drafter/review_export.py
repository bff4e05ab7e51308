"""The reviewed report: what an export of a review contains.

Why a module of its own: an export is more than "the accepted records".  The analyst's
notes, rejection reasons, witness rejections and edits are part of the report's record
of review, and the report format has one place for such free text — the
``Annotations`` section — so they go there, in every output format (text, Markdown
and JSON all render the same :class:`~drafter.model.Report`).  The runtime account
was written about the whole draft; a sentence of it that names a record the analyst
did not accept would assert something the export no longer backs, so such sentences
are left out (and the annotations say how many).  Empty record sections are written
the way the format writes them: "Evidenced absences" keeps the format's own
"none declared in this member", other sections keep only their title.

Core module: it reads the decision store and the report model, nothing else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from drafter.model import (
    AccountSection,
    Block,
    Bullet,
    NumberedItem,
    Paragraph,
    Record,
    RecordSection,
    Report,
    Table,
)
from drafter.review_store import Mark, RecordState, ReviewStore, field_value, witness_key
from drafter.text import clip, collapse

#: The format's line for an "Evidenced absences" section with no records.
NO_ABSENCES = "none declared in this member"
ABSENCES = "Evidenced absences"

_ID_RE = re.compile(r"\b(?:RT|EPI)-(?:CMP|OBJ|RTE|CLM|BAP)-[a-z0-9](?:[a-z0-9-]*[a-z0-9])?")
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'`*_\[])")
#: Longest old value quoted in an edit annotation.
OLD_VALUE_CHARS = 160


@dataclass(frozen=True, slots=True)
class Pruned:
    """What leaving out sentences about records not accepted removed."""

    sentences: int = 0
    rows: int = 0


def _names(text: str, ids: set[str]) -> bool:
    return any(m.group(0) in ids for m in _ID_RE.finditer(text))


def prune_text(text: str, ids: set[str]) -> tuple[str, int]:
    """``text`` without its sentences that name one of ``ids``; (text, sentences dropped)."""
    if not _names(text, ids):
        return text, 0
    sentences = _SENTENCE_RE.split(text)
    kept = [s for s in sentences if not _names(s, ids)]
    return " ".join(kept).strip(), len(sentences) - len(kept)


def _prune_block(b: Block, ids: set[str]) -> tuple[Block | None, Pruned]:
    if isinstance(b, Paragraph | NumberedItem):
        text, n = prune_text(b.text, ids)
        if not n:
            return b, Pruned()
        return (b.model_copy(update={"text": text}) if text else None), Pruned(sentences=n)
    if isinstance(b, Bullet):
        text, n = prune_text(b.value, ids)
        if not n:
            return b, Pruned()
        return (b.model_copy(update={"value": text}) if text else None), Pruned(sentences=n)
    if isinstance(b, Table):
        rows = [row for row in b.rows if not any(_names(c, ids) for c in row)]
        dropped = len(b.rows) - len(rows)
        return (b.model_copy(update={"rows": rows}) if dropped else b), Pruned(rows=dropped)
    return b, Pruned()


def prune_account(
    account: list[AccountSection], ids: set[str]
) -> tuple[list[AccountSection], Pruned]:
    """Account sections with every sentence (and table row) naming ``ids`` left out."""
    out: list[AccountSection] = []
    sentences = rows = 0
    for sec in account:
        blocks: list[Block] = []
        for b in sec.blocks:
            nb, p = _prune_block(b, ids)
            sentences += p.sentences
            rows += p.rows
            if nb is not None:
                blocks.append(nb)
        out.append(sec.model_copy(update={"blocks": blocks}))
    return out, Pruned(sentences=sentences, rows=rows)


def record_annotation(
    r: Record, st: RecordState, not_accepted: frozenset[str] = frozenset()
) -> str | None:
    """One paragraph with everything the analyst wrote about ``r``; None if nothing."""
    parts: list[str] = []
    if st.mark == Mark.rejected and st.reason:
        parts.append(f"rejection reason: {collapse(st.reason)}")
    elif st.mark == Mark.accepted and st.reason and st.reason != "accept-verified":
        parts.append(f"acceptance note: {collapse(st.reason)}")
    parts.extend(f"note: {collapse(n)}" for n in st.notes)
    for name, value in st.edits.items():
        old = field_value(r, name)
        if old == value:
            continue
        was = f' (was "{clip(old, OLD_VALUE_CHARS)}")' if old else " (added)"
        parts.append(f"edited {name}{was}")
    by_key = {witness_key(w): w for w in r.witnesses}
    for key, (ok, reason) in st.witnesses.items():
        w = by_key.get(key)
        if w is None or ok:
            continue
        why = f": {collapse(reason)}" if reason else ""
        parts.append(f"witness from {w.anchor} rejected{why}")
    if st.mark == Mark.accepted and r.part_of in not_accepted:
        parts.append(f"Part of {r.part_of} left out (that record was not accepted)")
    if not parts:
        return None
    state = {Mark.accepted: "accepted", Mark.rejected: "rejected"}.get(st.mark, "not decided")
    return f"{r.id} ({state}) — " + "; ".join(parts) + "."


def review_annotations(
    report: Report, states: dict[str, RecordState], pruned: Pruned
) -> str | None:
    """The Annotations text: the draft's own, a summary line, then one paragraph per record."""
    paras: list[str] = []
    own = (report.annotations or "").strip()
    if own and own.lower() != "none":
        paras.append(own)
    not_accepted = frozenset(rid for rid, st in states.items() if st.mark != Mark.accepted)
    per_record = [
        a
        for r in report.records
        if (a := record_annotation(r, states[r.id], not_accepted)) is not None
    ]
    total = len(report.records)
    acc = sum(s.mark == Mark.accepted for s in states.values())
    rej = sum(s.mark == Mark.rejected for s in states.values())
    summary = (
        f"Review: {acc} of {total} drafted records accepted, {rej} rejected, "
        f"{total - acc - rej} not decided; only accepted records are exported."
    )
    if pruned.sentences or pruned.rows:
        left = []
        if pruned.sentences:
            left.append(f"{pruned.sentences} sentence{'s' * (pruned.sentences != 1)}")
        if pruned.rows:
            left.append(f"{pruned.rows} table row{'s' * (pruned.rows != 1)}")
        summary += (
            f" {' and '.join(left)} of the account naming records not accepted "
            f"{'were' if (pruned.sentences + pruned.rows) != 1 else 'was'} left out."
        )
    if per_record or acc != total:
        paras.append(summary)
    paras.extend(per_record)
    return "\n\n".join(paras) if paras else None


def reviewed_report(store: ReviewStore, report: Report) -> Report:
    """The export of a review: accepted records (edits applied, rejected witnesses
    removed), the account without sentences about records not accepted, and the
    analyst's decisions as annotations."""
    states = store.states(report.records)
    accepted = {rid for rid, st in states.items() if st.mark == Mark.accepted}
    not_accepted = {r.id for r in report.records} - accepted
    sections: list[RecordSection] = []
    for s in report.sections:
        kept = [store.reviewed_record(r, states[r.id]) for r in s.records if r.id in accepted]
        for r in kept:
            if r.part_of in not_accepted:
                r.part_of = None  # the parent was not accepted; the note records why
        note = s.note if (kept or not s.records) else None
        if not kept and s.title == ABSENCES:
            note = NO_ABSENCES
        sections.append(RecordSection(title=s.title, records=kept, note=note))
    account, pruned = prune_account(report.account, not_accepted)
    new = report.model_copy(deep=True)
    new.sections = sections
    new.account = account
    new.annotations = review_annotations(report, states, pruned)
    return new
