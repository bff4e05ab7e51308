"""The reviewed report: what an export of a review contains.

Why a module of its own: an export is more than "the accepted records".  The analyst's
notes, rejection reasons, witness rejections and edits are part of the report's record
of review, and the report format has one place for such free text — the
``Annotations`` section — so they go there, in every output format (text, Markdown
and JSON all render the same :class:`~drafter.model.Report`).  The runtime account
was written about the whole draft; a sentence of it that names a record the analyst
did not accept would assert something the export no longer backs, so such sentences
are left out (and the annotations say how many), together with the quotes that follow
them: a quote stands under the sentence it supports, and once that sentence is gone it
would stand alone (``if __name__ == "__main__": --- DGM_outer.py`` in an account).  An
accepted record that names a record not accepted keeps its text, with the ID rewritten
as that record's label and the words "left out of this export" (an ID with no record
behind it would be a dangling reference), and its annotation says which were rewritten.
Empty record sections are written the way the format writes them: "Evidenced
absences" keeps the format's own "none declared in this member", other sections keep
only their title.

Core module: it reads the decision states and the report model, nothing else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from drafter.model import (
    CITED_ID_RE,
    AccountSection,
    Block,
    Bullet,
    Heading,
    NumberedItem,
    Paragraph,
    Record,
    RecordSection,
    Report,
    Table,
    WitnessBlock,
)
from drafter.review_edits import field_value
from drafter.review_fold import (
    DecisionSource,
    Mark,
    RecordState,
    resolve_conflicts,
    reviewed_record,
    witness_key,
)
from drafter.review_store import ReviewStore
from drafter.text import clip, collapse

#: The format's line for an "Evidenced absences" section with no records.
NO_ABSENCES = "none declared in this member"
ABSENCES = "Evidenced absences"

_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'`*_\[])")
#: Longest old value quoted in an edit annotation.
OLD_VALUE_CHARS = 160
#: Longest label standing in for the ID of a record left out of an export.
LABEL_CHARS = 80


@dataclass(frozen=True, slots=True)
class Pruned:
    """What leaving out sentences about records not accepted removed."""

    sentences: int = 0
    rows: int = 0
    quotes: int = 0


def _names(text: str, ids: set[str]) -> bool:
    return any(m.group(0) in ids for m in CITED_ID_RE.finditer(text))


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
    """Account sections with every sentence (and table row) naming ``ids`` left out,
    and the quotes right after a text block that lost a sentence left out with it
    (which sentence a quote supports is not recorded, so none of them is kept)."""
    out: list[AccountSection] = []
    sentences = rows = quotes = 0
    for sec in account:
        blocks: list[Block] = []
        cut = False  # the last text block lost a sentence: its quotes go too
        for b in sec.blocks:
            if isinstance(b, WitnessBlock):
                if cut:
                    quotes += 1
                else:
                    blocks.append(b)
                continue
            nb, p = _prune_block(b, ids)
            sentences += p.sentences
            rows += p.rows
            cut = p.sentences > 0
            if nb is not None:
                blocks.append(nb)
        out.append(sec.model_copy(update={"blocks": blocks}))
    return out, Pruned(sentences=sentences, rows=rows, quotes=quotes)


def left_out_phrase(label: str | None) -> str:
    """What stands in an accepted record for the ID of a record left out of the export
    (``label`` None: an ID the draft itself has no record for)."""
    if label is None:
        return "a record this draft does not contain"
    return f"“{clip(collapse(label), LABEL_CHARS)}” (a record left out of this export)"


def rewrite_mentions(r: Record, labels: dict[str, str | None]) -> tuple[Record, list[str]]:
    """``r`` with every ID of ``labels`` in its label and text blocks replaced by
    :func:`left_out_phrase`; (record, IDs rewritten).  Quotes are never touched: they
    must stay verbatim to verify."""
    found: list[str] = []

    def sub(text: str) -> str:
        def one(m: re.Match[str]) -> str:
            rid = m.group(0)
            if rid not in labels:
                return rid
            if rid not in found:
                found.append(rid)
            return left_out_phrase(labels[rid])

        return CITED_ID_RE.sub(one, text)

    if not any(_names(t, set(labels)) for t in _texts(r)):
        return r, []
    out = r.model_copy(deep=True)
    out.label = sub(out.label)
    blocks: list[Block] = []
    for b in out.blocks:
        if isinstance(b, Paragraph | NumberedItem | Heading):
            b = b.model_copy(update={"text": sub(b.text)})
        elif isinstance(b, Bullet):
            b = b.model_copy(update={"value": sub(b.value)})
        elif isinstance(b, Table):
            b = b.model_copy(update={"rows": [[sub(c) for c in row] for row in b.rows]})
        blocks.append(b)
    out.blocks = blocks
    return out, found


def _texts(r: Record) -> list[str]:
    out = [r.label]
    for b in r.blocks:
        if isinstance(b, Paragraph | NumberedItem | Heading):
            out.append(b.text)
        elif isinstance(b, Bullet):
            out.append(b.value)
        elif isinstance(b, Table):
            out.extend(c for row in b.rows for c in row)
    return out


def record_annotation(
    r: Record,
    st: RecordState,
    not_accepted: frozenset[str] = frozenset(),
    rewritten: tuple[str, ...] = (),
) -> str | None:
    """One paragraph with everything the analyst wrote about ``r`` (and what the
    export rewrote in it); None if nothing."""
    parts: list[str] = []
    if st.mark == Mark.rejected and st.reason:
        parts.append(f"rejection reason: {collapse(st.reason)}")
    elif st.mark == Mark.accepted and st.reason and st.source != DecisionSource.accept_verified:
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
    left = [rid for rid in rewritten if rid in not_accepted]
    if left:
        its = "their labels" if len(left) > 1 else "its label"
        parts.append(f"mentions of {', '.join(left)} (not accepted) rewritten as {its}")
    unknown = [rid for rid in rewritten if rid not in not_accepted]
    if unknown:
        parts.append(f"mentions of {', '.join(unknown)} (no record of this draft) replaced")
    if not parts:
        return None
    state = {Mark.accepted: "accepted", Mark.rejected: "rejected"}.get(st.mark, "not decided")
    return f"{r.id} ({state}) — " + "; ".join(parts) + "."


def review_annotations(
    report: Report,
    states: dict[str, RecordState],
    pruned: Pruned,
    rewritten: dict[str, list[str]] | None = None,
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
        if (
            a := record_annotation(
                r, states[r.id], not_accepted, tuple((rewritten or {}).get(r.id, ()))
            )
        )
        is not None
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
            f"{'were' if (pruned.sentences + pruned.rows) != 1 else 'was'} left out"
        )
        if pruned.quotes:
            n = pruned.quotes
            summary += (
                f", with the {n} quote{'s' * (n != 1)} that followed {'them' if n != 1 else 'it'}"
            )
        summary += "."
    if per_record or acc != total:
        paras.append(summary)
    paras.extend(per_record)
    return "\n\n".join(paras) if paras else None


def reviewed_report(store: ReviewStore, report: Report, resolve: str | None = None) -> Report:
    """The export of the review in ``store``: :func:`build_export` over its states,
    once every conflict between analysts is settled (by a lead's decision or by
    ``resolve``, see :func:`~drafter.review_fold.resolve_conflicts`); an unsettled
    conflict is refused."""
    states = resolve_conflicts(store.states(report.records), resolve, store.analyst)
    return build_export(report, states)


def build_export(report: Report, states: dict[str, RecordState]) -> Report:
    """The export of a review: accepted records (edits applied, rejected witnesses
    removed), the account without sentences about records not accepted, and the
    analyst's decisions as annotations.  The one builder of an accepted report: the
    CLI's and the app's exports and the epistemic draft's runtime input all use it."""
    accepted = {rid for rid, st in states.items() if st.mark == Mark.accepted}
    not_accepted = {r.id for r in report.records} - accepted
    # IDs of this report's own kind that name no record of it: dangling already
    unknown = _own_ids(report) - {r.id for r in report.records}
    labels: dict[str, str | None] = {r.id: r.label for r in report.records if r.id in not_accepted}
    labels.update(dict.fromkeys(unknown))
    rewritten: dict[str, list[str]] = {}
    sections: list[RecordSection] = []
    for s in report.sections:
        kept = []
        for r in s.records:
            if r.id not in accepted:
                continue
            new_r, found = rewrite_mentions(reviewed_record(r, states[r.id]), labels)
            if found:
                rewritten[r.id] = found
            if new_r.part_of in labels:
                new_r.part_of = None  # the parent was not accepted; the note records why
            kept.append(new_r)
        note = s.note if (kept or not s.records) else None
        if not kept and s.title == ABSENCES:
            note = NO_ABSENCES
        sections.append(RecordSection(title=s.title, records=kept, note=note))
    account, pruned = prune_account(report.account, set(labels))
    new = report.model_copy(deep=True)
    new.sections = sections
    new.account = account
    new.annotations = review_annotations(report, states, pruned, rewritten)
    return new


def _own_ids(report: Report) -> set[str]:
    """Record IDs of the report's own prefix named anywhere in its account or records
    (an epistemic report's ``RT-`` IDs name another report's records: not counted)."""
    prefix = f"{report.own_prefix}-"
    texts = [t for r in report.records for t in _texts(r)]
    texts += [r.part_of for r in report.records if r.part_of]
    for sec in report.account:
        for b in sec.blocks:
            if isinstance(b, Paragraph | NumberedItem | Heading):
                texts.append(b.text)
            elif isinstance(b, Bullet):
                texts.append(b.value)
            elif isinstance(b, Table):
                texts.extend(c for row in b.rows for c in row)
    return {
        m.group(0) for t in texts for m in CITED_ID_RE.finditer(t) if m.group(0).startswith(prefix)
    }
