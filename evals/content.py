"""Content agreement of matched records: do the draft and the gold say the same thing?

Why: a field being present says nothing (the offline drafter writes all nine route
fields for every route).  For each matched pair this compares what each named field
says and files it under one of three outcomes:

* ``unknown``  -- both sides give nothing, or both say they do not know
  (:data:`UNKNOWN_WORDS`);
* ``same``     -- both give a value and the values agree: conclusion statuses by
  exact value, prose fields by text similarity >= :data:`SAME_THRESHOLD`;
* ``disagree`` -- everything else, including one side knowing and the other not.

Agreement = same / (same + disagree); pairs where both sides are unknown are counted
apart and left out, so that two reports that both shrug do not look like agreement.

Route pairs are compared on the nine route fields; every matched pair is also compared
on the lead fields of the gold record's kind (identity, form, substrate for components
and objects; endpoints for routes; the claimed operation for claims; consumer,
channel, force, horizon for behavioural-authority paths).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from drafter.model import NINE_ROUTE_FIELDS, STATUS_FIELDS, Record
from evals.alignment import KindAlignment, Pair
from evals.similarity import TextSimilarity
from evals.witnesses import kind_key

UNKNOWN, SAME, DISAGREE = "unknown", "same", "disagree"
#: Rescaled similarity at or above which two prose values say the same thing.
SAME_THRESHOLD = 0.5
#: A value that opens with one of these says "not known" rather than a finding.
UNKNOWN_WORDS = (
    "unknown",
    "uninspected",
    "unresolved",
    "not inspected",
    "not determined",
    "not established",
    "unclear",
    "n/a",
    "tbd",
)

#: Lead fields by the gold record's kind: short name -> labels that give it.
LEAD_FIELDS: dict[str, dict[str, tuple[str, ...]]] = {
    "CMP": {
        "identity": ("Source-native identity",),
        "form": ("Representational form",),
        "substrate": ("Storage substrate",),
    },
    "OBJ": {
        "identity": ("Source-native identity",),
        "form": ("Representational form",),
        "substrate": ("Storage substrate",),
    },
    "RTE": {"endpoints": ("Endpoints/progression", "Endpoints")},
    "CLM": {"claimed operation": ("Claimed operation",)},
    "BAP": {
        "consumer": ("Consumer",),
        "channel": ("Channel",),
        "force": ("Force",),
        "horizon": ("Horizon",),
    },
}


def is_unknown(value: str | None) -> bool:
    """Nothing given, or a value that says it does not know."""
    if value is None:
        return True
    v = value.strip().strip(".;:—- ").lower()
    return not v or v.startswith(UNKNOWN_WORDS)


def route_values(rec: Record) -> dict[str, str | None]:
    """The nine route fields' values: statuses from status lines, others from bullets."""
    fields = {k.lower(): v for k, v in rec.fields.items()}
    out: dict[str, str | None] = {}
    for name in NINE_ROUTE_FIELDS:
        if name in STATUS_FIELDS:
            out[name] = rec.status(name)
        else:
            out[name] = fields.get(name.lower())
    return out


def lead_values(rec: Record, gold_kind: str) -> dict[str, str | None]:
    """Lead fields of the gold record's kind, read from ``rec`` whatever its own kind
    (a cross-kind answer is read with the gold kind's labels).

    Labels match case-insensitively: analysts write "Representational form: …; storage
    substrate: …" in one sentence as often as two.  A value runs to the next label of
    its paragraph or, for the last one, to the end of its sentence; never into the next
    paragraph (read across paragraphs, a lead whose last sentence is followed by one
    starting in lower case -- "max_tokens is …" -- took the whole next paragraph in).
    """
    spec = LEAD_FIELDS.get(gold_kind, {})
    labels = {lab.lower(): name for name, labs in spec.items() for lab in labs}
    out: dict[str, str | None] = dict.fromkeys(spec)
    if not labels:
        return out
    pattern = re.compile(
        r"\b("
        + "|".join(re.escape(lab) for lab in sorted(labels, key=len, reverse=True))
        + r"):\s*",
        re.IGNORECASE,
    )
    for text in rec.paragraphs:
        hits = list(pattern.finditer(text))
        for n, m in enumerate(hits):
            end = hits[n + 1].start() if n + 1 < len(hits) else len(text)
            value = text[m.end() : end].strip()
            if n + 1 == len(hits):
                cut = re.search(r"(?<=[.;])\s+(?=[A-Z])", value)
                value = value[: cut.start()] if cut else value
            name = labels[m.group(1).lower()]
            if out[name] is None and value.strip(" .;"):
                out[name] = value.rstrip(" ;")
    return out


#: Lead fields compared on their leading statement (see :func:`compared_value`).
HEAD_FIELDS = frozenset({"form", "substrate"})
_HEAD_END = re.compile(r";|\s[—–]\s|(?<=[.!?])\s+")


def compared_value(field_name: str, value: str) -> str:
    """What is compared of a field's value: for the form and the substrate, the value's
    leading statement (up to the first ``;``, dash or sentence end); else all of it.

    Why: both are short category statements ("distributed-parametric", "a local JSON
    file") that a report may follow with detail ("; each request is the growing
    msg_list …").  Compared whole, a long qualification outweighs the category.
    """
    if field_name not in HEAD_FIELDS:
        return value
    head = _HEAD_END.split(value.strip(), maxsplit=1)[0].strip().rstrip(".")
    return head or value


@dataclass(slots=True)
class FieldAgreement:
    """Outcome counts for one field over all compared pairs."""

    name: str
    unknown: int = 0
    same: int = 0
    disagree: int = 0

    @property
    def agreement(self) -> float | None:
        n = self.same + self.disagree
        return self.same / n if n else None

    def count(self, outcome: str) -> None:
        setattr(self, outcome, getattr(self, outcome) + 1)

    def to_dict(self) -> dict[str, Any]:
        return {
            "unknown": self.unknown,
            "same": self.same,
            "disagree": self.disagree,
            "agreement": self.agreement,
        }


@dataclass(slots=True)
class Comparison:
    """One field of one pair (kept so the HTML page and JSON can show the evidence)."""

    table: str  # "route" or "lead"
    kind: str  # the gold record's kind key, e.g. RT-RTE
    gold_id: str
    draft_id: str
    field: str
    gold: str | None
    draft: str | None
    outcome: str
    similarity: float | None = None


@dataclass(slots=True)
class ContentAgreement:
    """Per-field outcomes for route fields and lead fields, with every comparison."""

    route: dict[str, FieldAgreement] = field(default_factory=dict)
    lead: dict[str, FieldAgreement] = field(default_factory=dict)
    comparisons: list[Comparison] = field(default_factory=list)

    @staticmethod
    def _total(rows: dict[str, FieldAgreement]) -> FieldAgreement:
        t = FieldAgreement("all")
        for r in rows.values():
            t.unknown += r.unknown
            t.same += r.same
            t.disagree += r.disagree
        return t

    @property
    def route_agreement(self) -> float | None:
        return self._total(self.route).agreement

    @property
    def lead_agreement(self) -> float | None:
        return self._total(self.lead).agreement

    def to_dict(self) -> dict[str, Any]:
        return {
            "route_fields": {k: v.to_dict() for k, v in self.route.items()},
            "route_all": self._total(self.route).to_dict(),
            "lead_fields": {k: v.to_dict() for k, v in self.lead.items()},
            "lead_all": self._total(self.lead).to_dict(),
            "comparisons": [
                {
                    "gold": c.gold_id,
                    "draft": c.draft_id,
                    "field": c.field,
                    "outcome": c.outcome,
                    "similarity": None if c.similarity is None else round(c.similarity, 4),
                }
                for c in self.comparisons
            ],
        }


def _pending(pairs: Sequence[Pair]) -> list[Comparison]:
    """Every comparison to make, values filled, outcome not yet decided."""
    todo: list[Comparison] = []
    for p in pairs:
        key = kind_key(p.gold.id)
        if p.gold.kind == "RTE":
            g, d = route_values(p.gold), route_values(p.draft)
            for name in NINE_ROUTE_FIELDS:
                todo.append(
                    Comparison("route", key, p.gold.id, p.draft.id, name, g[name], d[name], "")
                )
        g2, d2 = lead_values(p.gold, p.gold.kind), lead_values(p.draft, p.gold.kind)
        for name in LEAD_FIELDS.get(p.gold.kind, {}):
            todo.append(
                Comparison("lead", key, p.gold.id, p.draft.id, name, g2[name], d2[name], "")
            )
    return todo


def content_agreement(
    alignment: dict[str, KindAlignment],
    text_similarity: TextSimilarity,
    same_threshold: float = SAME_THRESHOLD,
) -> ContentAgreement:
    """Compare every matched pair's route and lead fields (see module docstring)."""
    pairs = [p for ka in alignment.values() for p in ka.pairs]
    todo = _pending(pairs)
    prose = [
        c
        for c in todo
        if c.field not in STATUS_FIELDS and not is_unknown(c.gold) and not is_unknown(c.draft)
    ]
    sims = _pairwise(
        text_similarity,
        [compared_value(c.field, c.gold or "") for c in prose],
        [compared_value(c.field, c.draft or "") for c in prose],
    )
    for c, s in zip(prose, sims, strict=True):
        c.similarity = s
    out = ContentAgreement()
    for c in todo:
        c.outcome = _outcome(c, same_threshold)
        rows = out.route if c.table == "route" else out.lead
        rows.setdefault(c.field, FieldAgreement(c.field)).count(c.outcome)
        out.comparisons.append(c)
    return out


def _outcome(c: Comparison, same_threshold: float) -> str:
    gu, du = is_unknown(c.gold), is_unknown(c.draft)
    if gu and du:
        return UNKNOWN
    if gu or du:
        return DISAGREE
    if c.field in STATUS_FIELDS:
        same = (c.gold or "").strip().lower() == (c.draft or "").strip().lower()
        return SAME if same else DISAGREE
    return SAME if (c.similarity or 0.0) + 1e-12 >= same_threshold else DISAGREE


def _pairwise(sim: TextSimilarity, a: list[str], b: list[str]) -> list[float]:
    """Similarity of a[k] with b[k] for each k (one matrix call, its diagonal)."""
    if not a:
        return []
    m = np.asarray(sim(a, b), dtype=np.float64)
    return [float(m[k, k]) for k in range(len(a))]
