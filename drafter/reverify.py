"""Carry a reviewed draft to a new revision: re-anchor every witness at NEW.

Why: code moves on, and a report reviewed at one revision is worth carrying to the
next only if the analyst can see which of its quotes still hold.  Each witness is
looked up again, at the old revision (where it was) and at the new one (where it is
now), and falls in one of three cases:

- ``unchanged``: the quote is in the same file at the same lines;
- ``moved``: the quote is still there, at another line span (a cited line range is
  rewritten to the new span, so the carried draft verifies at NEW);
- ``stale``: the quote is gone at NEW (or no longer picks one place); the verifier's
  nearest real passages at NEW are kept on the witness for the analyst.

Records with a stale witness get a flag.  Review decisions carry over by record ID
and content hash (the new draft shares the old one's review identity); a record whose
only change is a re-anchored line range gets its decisions copied to its new content,
since re-anchoring is not a change the analyst has to judge again.

Core module: git objects through :class:`~drafter.snapshot.Snapshot`, verdicts from
:class:`~drafter.verify.Verifier`, nothing from ``graph`` or ``tui``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from drafter.model import (
    Anchor,
    Flag,
    FlagKind,
    LineRange,
    Passage,
    Record,
    Report,
    Verification,
    VerifyStatus,
    Witness,
)
from drafter.prose_refs import (
    ProseRef,
    RefCase,
    WitnessMove,
    carry_prose_refs,
    mask_refs,
    rewrite_prose,
)
from drafter.repository import location_of
from drafter.review_identity import derive_meta
from drafter.review_store import ReviewStore, witness_key
from drafter.snapshot import Snapshot
from drafter.verify import Verifier

#: ``meta.extra`` key naming the revision a draft was carried from.
FROM_KEY = "reverified_from"
#: Prefix of the flag put on a record with a stale witness.
STALE_FLAG = "stale witness"
#: Prefix of the flag put on a record whose prose names a line that is gone.
STALE_REF_FLAG = "stale line reference"


@dataclass(slots=True)
class Reanchored:
    """One witness's fate between the two revisions."""

    where: str  # record ID or account section title
    path: str
    quote: str
    anchor: Anchor
    old_lines: LineRange | None
    new_lines: LineRange | None
    nearest: list[Passage] = field(default_factory=list)
    message: str = ""


@dataclass(slots=True)
class ReverifyResult:
    report: Report
    rows: list[Reanchored]
    old_rev: str
    new_rev: str
    #: Line references in prose ("prepare.py:178") and what became of them.
    prose: list[ProseRef] = field(default_factory=list)

    def count(self, anchor: Anchor) -> int:
        return sum(r.anchor == anchor for r in self.rows)

    def prose_count(self, case: RefCase) -> int:
        return sum(p.case == case for p in self.prose)

    @property
    def stale_records(self) -> list[str]:
        out: list[str] = []
        for r in self.rows:
            if r.anchor == Anchor.stale and r.where not in out and "-" in r.where:
                out.append(r.where)
        return out


def _at_new(ver: Verifier, w: Witness, old: Verification) -> Verification:
    """The verdict at NEW, preferring the occurrence nearest the old span when the
    quote now occurs more than once and the witness cites lines."""
    v = ver.check(w.quote, w.path, None)
    if v.status == VerifyStatus.ambiguous and w.lines is not None:
        v = ver.check(w.quote, w.path, w.lines)
    return v


def classify(old: Verification, new: Verification) -> Anchor:
    """unchanged / moved / stale from the verdicts at the old and the new revision."""
    if new.status != VerifyStatus.verified:
        return Anchor.stale
    if old.status == VerifyStatus.verified and old.lines == new.lines:
        return Anchor.unchanged
    return Anchor.moved


def reanchor(report: Report, old: Snapshot, new: Snapshot, fmt: str = "json") -> ReverifyResult:
    """A copy of ``report`` pinned at ``new`` with every witness re-anchored there.

    ``fmt`` is the kind of file ``report`` was read from (see
    :func:`drafter.review_identity.draft_identity`), so the carried draft opens the
    same review store as its parent."""
    out = report.model_copy(deep=True)
    located = out.located_witnesses()
    old_ver, new_ver = Verifier(old), Verifier(new)
    old_ver.prefetch(w.path for _, w in located)
    new_ver.prefetch(w.path for _, w in located)
    rows: list[Reanchored] = []
    moves: list[WitnessMove] = []
    for where, w in located:
        before = old_ver.verify(w)
        after = _at_new(new_ver, w, before)
        anchor = classify(before, after)
        if anchor == Anchor.moved and w.lines is not None and after.lines is not None:
            w.lines = after.lines  # the cited span follows the quote
        was = f"lines {before.lines} at {old.sha[:12]}" if before.lines else f"at {old.sha[:12]}"
        if anchor == Anchor.moved:
            after = after.model_copy(update={"message": f"moved: was {was}", "anchor": anchor})
        elif anchor == Anchor.stale:
            msg = f"stale: {after.message} (was {was})"
            after = after.model_copy(update={"message": msg, "anchor": anchor})
        w.verification = after
        old_span = before.lines if before.status == VerifyStatus.verified else None
        moves.append(
            WitnessMove(where, w.path, old_span, after.lines if anchor != Anchor.stale else None)
        )
        rows.append(
            Reanchored(
                where=where,
                path=w.path,
                quote=w.quote,
                anchor=anchor,
                old_lines=before.lines if before.status == VerifyStatus.verified else None,
                new_lines=after.lines if anchor != Anchor.stale else None,
                nearest=list(after.nearest) if anchor == Anchor.stale else [],
                message=after.message,
            )
        )
    prose = carry_prose_refs(out, moves, old, new)
    _flag_stale(out, rows, new.sha)
    if out.source is not None:
        # the folder it was carried with is where later commands find it again
        update = {"revision": new.sha, "location": location_of(new.repo)}
        out.source = out.source.model_copy(update=update)
    out.meta = derive_meta(report, fmt)
    out.meta.extra[FROM_KEY] = old.sha
    out.meta.notes = [
        *out.meta.notes,
        f"reverified from {old.sha[:12]} to {new.sha[:12]}",
    ]
    _flag_stale_refs(out, prose, new.sha)
    return ReverifyResult(out, rows, old.sha, new.sha, prose)


def _flag_stale(report: Report, rows: list[Reanchored], new_sha: str) -> None:
    """One flag per stale witness; earlier stale flags are replaced, not piled up."""
    for rec in report.records:
        stale = [r for r in rows if r.where == rec.id and r.anchor == Anchor.stale]
        rec.flags = [f for f in rec.flags if f.kind != FlagKind.stale_witness]
        for row in stale:
            near = f"; nearest: {row.nearest[0].path}:{row.nearest[0].lines}" if row.nearest else ""
            text = f"{STALE_FLAG} at {new_sha[:12]}: {row.path}{near}"
            rec.flags.append(Flag(kind=FlagKind.stale_witness, text=text))


def _flag_stale_refs(report: Report, prose: list[ProseRef], new_sha: str) -> None:
    """A record whose prose names a line that is gone at NEW is flagged (an account
    section's stale reference is a note), so the analyst rewrites the sentence."""
    stale = [p for p in prose if p.case == RefCase.stale]
    for rec in report.records:
        rec.flags = [f for f in rec.flags if f.kind != FlagKind.stale_reference]
        for p in stale:
            if p.where == rec.id:
                text = f"{STALE_REF_FLAG} at {new_sha[:12]}: {p.old} in the prose"
                rec.flags.append(Flag(kind=FlagKind.stale_reference, text=text))
    if report.meta is not None:
        for p in stale:
            if report.record(p.where) is None:
                report.meta.notes.append(
                    f"{STALE_REF_FLAG} at {new_sha[:12]}: {p.old} in {p.where}"
                )


def carry_decisions(store: ReviewStore, old: Report, new: Report) -> int:
    """Copy decisions to records whose content changed only by re-anchoring.

    Records whose content is identical need nothing (decisions are keyed by content
    hash).  Returns how many records had decisions copied.
    """
    olds = {r.id: r for r in old.records}
    pairs = [(olds[r.id], r) for r in new.records if r.id in olds]
    old_states = store.states([o for o, _ in pairs])
    new_states = store.states([n for _, n in pairs])
    carried = 0
    for o, n in pairs:
        st, now = old_states[o.id], new_states[n.id]
        if st.record_hash == now.record_hash or now.decided or not _same_but_lines(o, n):
            continue
        for name, value in st.edits.items():
            store.edit(n, name, value)
        for note in st.notes:
            store.annotate(n, note)
        keys = [witness_key(w) for w in o.witnesses]
        for key, (ok, reason) in st.witnesses.items():
            if key in keys and keys.index(key) < len(n.witnesses):
                store.decide_witness(n, keys.index(key), ok, reason)
        if st.mark.value == "accepted":
            store.accept(n, st.reason)
        elif st.mark.value == "rejected":
            store.reject(n, st.reason or "rejected before re-anchoring")
        carried += 1 if st.decided or st.edits or st.notes else 0
    return carried


def _same_but_lines(a: Record, b: Record) -> bool:
    """True when ``a`` and ``b`` differ at most in their witnesses' cited line ranges."""

    def strip(r: Record) -> Record:
        c = r.model_copy(deep=True)
        for w in c.witnesses:
            w.lines = None
            w.verification = None
        rewrite_prose(list(c.blocks), mask_refs)  # references that followed their quote
        c.flags = []
        return c

    return strip(a) == strip(b)
