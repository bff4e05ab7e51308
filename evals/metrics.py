"""Scores of a draft against a gold report, per kind and overall.

Definitions (the tests recompute each by hand):

Records (per kind key, overall = sums over kinds)
    precision = draft records that answer some gold record / draft records,
    recall = gold records that some draft record answers / gold records,
    F1 = harmonic mean.  (With the one-to-one alignment both counts are the number of
    pairs.)  A pair is counted under the gold record's kind for recall and under the
    draft record's kind for precision.  A draft with no records of a kind the gold
    has gets precision 0 (an empty draft scores 0, not "undefined"); recall over a
    kind the gold does not have is not applicable (None), and so is its F1.

Witnesses (account witnesses form their own row, "account"; overall = all)
    A witness is *located* when the verifier finds its quote at the revision
    (verified, or ambiguous = present more than once).  Gold witnesses that are not
    located are *absent*: listed apart and left out of recall.
    gold file recall  = located gold witnesses whose file some located draft witness
                        also quotes / located gold witnesses
    gold line recall  = located gold witnesses overlapped (same file, overlapping
                        lines) by some located draft witness / located gold witnesses
    equivalent recall = located gold witnesses not overlapped but whose text a draft
                        witness quotes in a sibling copy (another path, same file name,
                        a shared long line; LocatedWitness.equivalent), or -- with the
                        revision's code map -- whose lines a draft witness quotes at
                        the same text of a copied file (evals.copies) / located gold
                        witnesses -- reported apart: line recall + equivalent recall
                        is the share an analyst would accept
    draft line precision = draft witnesses overlapping some located gold witness /
                        all draft witnesses (an unlocated witness cites nothing)
    draft validity    = verified draft witnesses / all draft witnesses
    Hits are counted against the whole other report, not only the aligned partner:
    a quote is right wherever the draft put it.

Matched pairs
    status agreement = of the two conclusion statuses (implementation, operation)
                       that the gold record gives, the share the draft record gives
                       with the same value (case-insensitive).
    route fields     = over matched route pairs, of the nine route fields the gold
                       record gives, the share the draft record also gives (presence
                       only; kept for comparison with older runs).
    route agreement  = over matched route pairs and the nine fields, same / (same +
                       disagree); see evals.content for what "same" means.
    lead agreement   = the same over the lead fields of every matched pair.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from drafter.model import NINE_ROUTE_FIELDS, STATUS_FIELDS, Record
from evals.alignment import KindAlignment
from evals.content import ContentAgreement
from evals.structure import CodeMap
from evals.witnesses import ACCOUNT, Landing, LocatedWitness

# hit levels of a gold witness, and of a draft witness
LINE, FILE, MISS, ABSENT, INVALID = "line", "file", "miss", "absent", "unlocated"
_LEVEL: dict[Landing, str] = {"line": LINE, "file": FILE, None: MISS}


def ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def share_or_zero(num: int, den: int, other_side: int) -> float | None:
    """num/den; 0.0 when den is empty but the other side is not; None when both are."""
    if den:
        return num / den
    return 0.0 if other_side else None


def f1(p: float | None, r: float | None) -> float | None:
    if p is None or r is None:
        return None
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


@dataclass(slots=True)
class KindScore:
    """Counts and scores for one kind key (or "account", or "overall")."""

    key: str
    gold_records: int = 0
    draft_records: int = 0
    matched: int = 0  # links (pairs) filed under this kind: one record may have several
    #: records of this kind matched by one of the same kind: what the kind's R and P count
    gold_matched: int = 0
    draft_matched: int = 0
    #: records of this kind matched only by records of another kind (kind confusion):
    #: never credited in the kind's own row; the overall row counts them as found
    gold_cross_matched: int = 0
    draft_cross_matched: int = 0
    gold_witnesses: int = 0
    gold_absent: int = 0
    gold_file_hits: int = 0
    gold_line_hits: int = 0
    gold_equivalent_hits: int = 0
    draft_witnesses: int = 0
    draft_verified: int = 0
    draft_line_hits: int = 0
    draft_equivalent_hits: int = 0
    status_compared: int = 0
    status_agreed: int = 0
    route_pairs: int = 0
    route_fields_expected: int = 0
    route_fields_present: int = 0
    route_same: int = 0
    route_disagree: int = 0
    route_unknown: int = 0
    lead_same: int = 0
    lead_disagree: int = 0
    lead_unknown: int = 0

    @property
    def gold_located(self) -> int:
        return self.gold_witnesses - self.gold_absent

    @property
    def precision(self) -> float | None:
        return share_or_zero(self.draft_matched, self.draft_records, self.gold_records)

    @property
    def recall(self) -> float | None:
        return ratio(self.gold_matched, self.gold_records)

    @property
    def f1(self) -> float | None:
        return f1(self.precision, self.recall)

    @property
    def file_recall(self) -> float | None:
        return ratio(self.gold_file_hits, self.gold_located)

    @property
    def line_recall(self) -> float | None:
        return ratio(self.gold_line_hits, self.gold_located)

    @property
    def equivalent_recall(self) -> float | None:
        return ratio(self.gold_equivalent_hits, self.gold_located)

    @property
    def line_precision(self) -> float | None:
        return share_or_zero(self.draft_line_hits, self.draft_witnesses, self.gold_located)

    @property
    def validity(self) -> float | None:
        return ratio(self.draft_verified, self.draft_witnesses)

    @property
    def status_agreement(self) -> float | None:
        return ratio(self.status_agreed, self.status_compared)

    @property
    def route_field_presence(self) -> float | None:
        return ratio(self.route_fields_present, self.route_fields_expected)

    @property
    def route_agreement(self) -> float | None:
        return ratio(self.route_same, self.route_same + self.route_disagree)

    @property
    def lead_agreement(self) -> float | None:
        return ratio(self.lead_same, self.lead_same + self.lead_disagree)

    def add(self, other: KindScore) -> None:
        for name in (
            "gold_records",
            "draft_records",
            "matched",
            "gold_matched",
            "draft_matched",
            "gold_cross_matched",
            "draft_cross_matched",
            "gold_witnesses",
            "gold_absent",
            "gold_file_hits",
            "gold_line_hits",
            "gold_equivalent_hits",
            "draft_witnesses",
            "draft_verified",
            "draft_line_hits",
            "draft_equivalent_hits",
            "status_compared",
            "status_agreed",
            "route_pairs",
            "route_fields_expected",
            "route_fields_present",
            "route_same",
            "route_disagree",
            "route_unknown",
            "lead_same",
            "lead_disagree",
            "lead_unknown",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    SCORES = (
        "precision",
        "recall",
        "f1",
        "file_recall",
        "line_recall",
        "equivalent_recall",
        "line_precision",
        "validity",
        "status_agreement",
        "route_field_presence",
        "route_agreement",
        "lead_agreement",
    )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = asdict(self)
        for name in self.SCORES:
            out[name] = getattr(self, name)
        out["gold_located"] = self.gold_located
        return out


def gold_hit(w: LocatedWitness, draft: list[LocatedWitness]) -> str:
    """How well the draft covers one gold witness: line, file, miss, or absent."""
    if not w.present:
        return ABSENT
    return _LEVEL[w.landing(draft)]


def draft_hit(w: LocatedWitness, gold: list[LocatedWitness]) -> str:
    """How well one draft witness lands on gold: line, file, miss, or unlocated."""
    if not w.present:
        return INVALID
    return _LEVEL[w.landing(gold)]


def equivalent_hit(
    w: LocatedWitness,
    level: str,
    others: list[LocatedWitness],
    copied: Sequence[LocatedWitness] = (),
) -> bool:
    """Not on the same lines as any of ``others``, but the same text as one of them in
    a sibling copy, or overlapping one of ``copied`` (``others`` at the same text of a
    copied file, CodeMap.copied with ``exact``).  An exact line hit is never also
    counted as equivalent."""
    if level not in (FILE, MISS):
        return False
    return any(w.equivalent(o) for o in others) or any(w.overlaps(c) for c in copied)


def status_agreement(gold: Record, draft: Record) -> tuple[int, int]:
    """(compared, agreed) over the two conclusion statuses the gold record gives."""
    compared = agreed = 0
    for name in STATUS_FIELDS:
        g = gold.status(name)
        if g is None:
            continue
        compared += 1
        d = draft.status(name)
        if d is not None and d.strip().lower() == g.strip().lower():
            agreed += 1
    return compared, agreed


def route_fields(gold: Record, draft: Record) -> tuple[int, int]:
    """(expected, present): the nine route fields the gold gives, and how many the draft does."""
    g = gold.route_fields_present
    d = draft.route_fields_present
    expected = [f for f in NINE_ROUTE_FIELDS if g.get(f)]
    return len(expected), sum(1 for f in expected if d.get(f))


@dataclass(slots=True)
class WitnessHits:
    """Hit level of every witness, in ReportWitnesses.all() order."""

    gold: list[tuple[LocatedWitness, str]] = field(default_factory=list)
    draft: list[tuple[LocatedWitness, str]] = field(default_factory=list)
    #: Per witness, in the same order: an equivalent hit (see equivalent_hit).
    gold_equivalent: list[bool] = field(default_factory=list)
    draft_equivalent: list[bool] = field(default_factory=list)


def witness_hits(
    gold: list[LocatedWitness], draft: list[LocatedWitness], code_map: CodeMap | None = None
) -> WitnessHits:
    """Hit levels of every witness; with the revision's ``code_map`` a quote of the same
    text in a copied file is an equivalent hit too (see :func:`equivalent_hit`)."""
    g_present = [w for w in gold if w.present]
    d_present = [w for w in draft if w.present]
    g_levels = [(w, gold_hit(w, d_present)) for w in gold]
    d_levels = [(w, draft_hit(w, g_present)) for w in draft]
    g_copied = code_map.copied(g_present, exact=True) if code_map is not None else []
    d_copied = code_map.copied(d_present, exact=True) if code_map is not None else []
    return WitnessHits(
        gold=g_levels,
        draft=d_levels,
        gold_equivalent=[equivalent_hit(w, lv, d_present, d_copied) for w, lv in g_levels],
        draft_equivalent=[equivalent_hit(w, lv, g_present, g_copied) for w, lv in d_levels],
    )


def score(
    alignment: dict[str, KindAlignment],
    hits: WitnessHits,
    content: ContentAgreement | None = None,
) -> tuple[dict[str, KindScore], KindScore]:
    """Per-kind scores (kind keys plus "account" when it has witnesses) and the overall row."""
    kinds: dict[str, KindScore] = {}

    def row(key: str) -> KindScore:
        if key not in kinds:
            kinds[key] = KindScore(key)
        return kinds[key]

    same_gold = {p.gold_index for ka in alignment.values() for p in ka.pairs if not p.cross_kind}
    same_draft = {p.draft_index for ka in alignment.values() for p in ka.pairs if not p.cross_kind}
    for key, ka in alignment.items():
        ks = row(key)
        ks.gold_records = len(ka.gold)
        ks.draft_records = len(ka.draft)
        ks.matched = len(ka.pairs)  # links filed under this kind (may exceed either side)
        # a kind's R and P credit matches within the kind only: a gold claim "found" by a
        # draft route is kind confusion, not a claim found
        any_gold = set(ka.gold) - set(ka.unmatched_gold)
        any_draft = set(ka.draft) - set(ka.unmatched_draft)
        ks.gold_matched = len(any_gold & same_gold)
        ks.draft_matched = len(any_draft & same_draft)
        ks.gold_cross_matched = len(any_gold - same_gold)
        ks.draft_cross_matched = len(any_draft - same_draft)
        for p in ka.pairs:
            c, a = status_agreement(p.gold, p.draft)
            ks.status_compared += c
            ks.status_agreed += a
            if p.gold.kind == "RTE":
                e, pr = route_fields(p.gold, p.draft)
                ks.route_pairs += 1
                ks.route_fields_expected += e
                ks.route_fields_present += pr
    for cmp in content.comparisons if content else []:
        ks = row(cmp.kind)
        table = "route" if cmp.table == "route" else "lead"
        name = f"{table}_{cmp.outcome}"
        setattr(ks, name, getattr(ks, name) + 1)
    g_equiv = hits.gold_equivalent or [False] * len(hits.gold)
    d_equiv = hits.draft_equivalent or [False] * len(hits.draft)
    for (w, level), equiv in zip(hits.gold, g_equiv, strict=True):
        ks = row(w.kind)
        ks.gold_witnesses += 1
        ks.gold_absent += level == ABSENT
        ks.gold_file_hits += level in (LINE, FILE)
        ks.gold_line_hits += level == LINE
        ks.gold_equivalent_hits += equiv
    for (w, level), equiv in zip(hits.draft, d_equiv, strict=True):
        ks = row(w.kind)
        ks.draft_witnesses += 1
        ks.draft_verified += w.verified
        ks.draft_line_hits += level == LINE
        ks.draft_equivalent_hits += equiv
    overall = KindScore("overall")
    for ks in kinds.values():
        overall.add(ks)
    # overall, a record matched by one of another kind is still found
    overall.gold_matched += overall.gold_cross_matched
    overall.draft_matched += overall.draft_cross_matched
    ordered = {k: kinds[k] for k in alignment if k in kinds}
    for k, v in kinds.items():
        if k not in ordered and k != ACCOUNT:
            ordered[k] = v
    if ACCOUNT in kinds:
        ordered[ACCOUNT] = kinds[ACCOUNT]
    return ordered, overall
