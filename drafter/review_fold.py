"""What a review's decisions mean: the fold of the log's rows into record states.

Why pure functions over rows: the decision log has more than one backend (an SQLite
file, a Postgres database shared by a team), and what a decision *means* must not
depend on where it is kept.  The backends store and return :class:`DecisionRow`
values; everything here reads them and nothing here touches a database.

Keys: every row names the record ID and a hash of the record's *content* (label,
part-of and blocks, without the verifier's verdicts, which change on re-verification
without the analyst's text changing).  When a regenerated draft keeps a record's
content, its decisions carry over; when the content changed, the record shows as
"changed since review" until it is decided again.  Witness decisions are keyed by a
hash of the witness (path, quote, line range), so they follow the quote.

Who decided: each row names its analyst.  Each analyst's latest accept or reject of
the record as it is now is that analyst's *vote*; votes that disagree are a conflict,
kept and shown, never settled silently by the last write.  A lead's decision settles
the votes made before it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from enum import StrEnum

from drafter.errors import BadInput
from drafter.model import Record, Witness, WitnessBlock
from drafter.review_edits import apply_edit

#: Seconds of inactivity after which time stops counting as review time.
IDLE_CAP = 300.0

#: The name shown for decisions stored before decisions named their analyst.
UNNAMED = "(unnamed)"


class Action(StrEnum):
    """What a decision row does."""

    accept = "accept"
    reject = "reject"
    annotate = "annotate"
    edit = "edit"
    accept_witness = "accept_witness"
    reject_witness = "reject_witness"


class DecisionSource(StrEnum):
    """How a decision was made: by the analyst, by a batch rule applied for them, or
    by the team's lead settling a conflict.

    Why: a note's wording is not a fact about how a decision was made; code that must
    treat a batch acceptance (``--accept-verified``) differently (the export leaves its
    note out) reads this, and a lead's decision must be known as one to settle a
    conflict."""

    analyst = "analyst"
    accept_verified = "accept_verified"
    lead = "lead"


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


@dataclass(frozen=True, slots=True)
class DecisionRow:
    """One stored decision, as every backend returns it.

    ``uid`` is made where the decision is made, so sending it twice (a retry after the
    database came back) stores it once; ``seq`` is the backend's order of arrival.
    """

    seq: int
    ts: float
    record_id: str
    record_hash: str
    action: Action
    witness: str | None
    field: str | None
    text: str | None
    source: DecisionSource = DecisionSource.analyst
    analyst: str | None = None
    uid: str = ""
    undone: bool = False
    batch_key: str | None = None


@dataclass(frozen=True, slots=True)
class Vote:
    """One analyst's latest accept or reject of a record as it is now."""

    analyst: str
    mark: Mark
    reason: str | None
    ts: float
    lead: bool = False


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
    #: analyst -> that analyst's vote (since the last lead decision, which is one too)
    votes: dict[str, Vote] = field(default_factory=dict)

    @property
    def decided(self) -> bool:
        return self.mark in (Mark.accepted, Mark.rejected)

    @property
    def conflict(self) -> bool:
        """Do analysts disagree about the record as it is now?"""
        return len({v.mark for v in self.votes.values()}) > 1

    def who_said(self) -> str:
        """``alice accepted, bob rejected`` (in the order the votes were cast)."""
        votes = sorted(self.votes.values(), key=lambda v: v.ts)
        return ", ".join(f"{v.analyst}{' (lead)' if v.lead else ''} {v.mark.value}" for v in votes)

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
    conflicts: int = 0

    @property
    def reviewed(self) -> int:
        return self.accepted + self.rejected


def _vote(row: DecisionRow) -> Vote:
    mark = Mark.accepted if row.action == Action.accept else Mark.rejected
    return Vote(
        row.analyst or UNNAMED, mark, row.text, row.ts, lead=row.source == DecisionSource.lead
    )


def fold(r: Record, rows: Iterable[DecisionRow]) -> RecordState:
    """The state of ``r`` from its live rows, in the order they were stored."""
    h = record_hash(r)
    st = RecordState(record_id=r.id, record_hash=h)
    current_keys = {witness_key(w) for w in r.witnesses}
    old_mark: Mark | None = None
    for row in rows:
        if row.undone or row.record_id != r.id:
            continue
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
        if row.action in RECORD_ACTIONS:
            vote = _vote(row)
            if vote.lead:
                st.votes = {}  # a lead's decision settles the votes before it
            st.votes[vote.analyst] = vote
            st.mark, st.reason, st.source = vote.mark, row.text, row.source
        elif row.action == Action.annotate and row.text:
            st.notes.append(row.text)
            st.current_notes.append(row.text)
        elif row.action == Action.edit and row.field:
            st.edits[row.field] = row.text or ""
    if st.mark == Mark.pending and old_mark is not None:
        st.mark, st.previous = Mark.changed, old_mark
    return st


def fold_all(records: Iterable[Record], rows: Iterable[DecisionRow]) -> dict[str, RecordState]:
    """State per record ID, folding the live rows over each record's content."""
    records = list(records)
    by_id: dict[str, list[DecisionRow]] = {r.id: [] for r in records}
    for row in rows:
        if not row.undone and row.record_id in by_id:
            by_id[row.record_id].append(row)
    return {r.id: fold(r, by_id[r.id]) for r in records}


def progress_of(states: Iterable[RecordState], seconds: float) -> Progress:
    states = list(states)
    return Progress(
        total=len(states),
        accepted=sum(s.mark == Mark.accepted for s in states),
        rejected=sum(s.mark == Mark.rejected for s in states),
        changed=sum(s.mark == Mark.changed for s in states),
        seconds=seconds,
        conflicts=sum(s.conflict for s in states),
    )


def reviewed_record(r: Record, st: RecordState) -> Record:
    """The record with the analyst's edits applied and rejected witnesses removed."""
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


# -- settling conflicts for an export ------------------------------------------------

#: The ``--resolve`` policies that are not an analyst's name.
RESOLVE_POLICIES = ("latest", "mine", "reject")
#: Longest list of conflicting records named in the refusal.
SHOWN_CONFLICTS = 3


def resolve_conflicts(
    states: dict[str, RecordState], policy: str | None, me: str
) -> dict[str, RecordState]:
    """States with every conflict settled by ``policy``, or BadInput naming them.

    ``latest``: the latest vote stands; ``mine``: ``me``'s vote stands; ``reject``: a
    disputed record is left out; any other word is an analyst whose vote stands.  A
    conflict the policy cannot settle (``mine`` where I did not vote) is refused.
    """
    out = dict(states)
    left: list[RecordState] = []
    for rid, st in states.items():
        if not st.conflict:
            continue
        vote = _settle(st, policy, me)
        if vote is None:
            left.append(st)
            continue
        source = DecisionSource.lead if vote.lead else DecisionSource.analyst
        out[rid] = replace(st, mark=vote.mark, reason=vote.reason, source=source, votes={})
    if left:
        named = "; ".join(f"{s.record_id}: {s.who_said()}" for s in left[:SHOWN_CONFLICTS])
        more = f" and {len(left) - SHOWN_CONFLICTS} more" if len(left) > SHOWN_CONFLICTS else ""
        how = (
            "settle them in review (a lead's decision) or pass "
            f"--resolve {'|'.join(RESOLVE_POLICIES)}|ANALYST"
        )
        raise BadInput(
            f"export refused: {len(left)} record{'s' * (len(left) != 1)} with conflicting "
            f"decisions ({named}{more}); {how}"
        )
    return out


def _settle(st: RecordState, policy: str | None, me: str) -> Vote | None:
    if policy is None:
        return None
    votes = sorted(st.votes.values(), key=lambda v: v.ts)
    if policy == "latest":
        return votes[-1]
    if policy == "reject":
        return Vote(me, Mark.rejected, "conflicting decisions", votes[-1].ts)
    who = me if policy == "mine" else policy
    return st.votes.get(who)
