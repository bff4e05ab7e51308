"""Align draft records with gold records, one to one, per kind.

Why an optimal assignment and not "best match per gold record": two gold routes that
read alike would both claim the same draft route and the draft would be credited
twice.  ``scipy.optimize.linear_sum_assignment`` finds the pairing with the greatest
total similarity in which every record is used at most once.

Similarity of a gold record g and a draft record d (each in [0, 1])::

    text(g, d)    = similarity of "label + body" (see evals.similarity)
    witness(g, d) = symmetric mean of each located witness's best hit on the other
                    side: 1.0 same file and overlapping lines, 0.25 same file, 0.0 else
    score(g, d)   = TEXT_WEIGHT * text + (1 - TEXT_WEIGHT) * witness
                    or text alone when either record has no located witness

A pair is kept only if its score reaches the threshold (DEFAULT_THRESHOLD, or
``--threshold``).  Below it, both records count as unmatched: a forced pairing of
unrelated records would inflate precision and recall.

Calibration: on the offline draft of the shipped sample against its gold, same-file
credit of 0.5 let records that merely quote the same module pair up (e.g. a score
gate with a prompt route); 0.25 keeps those apart while every pair a reader would
accept still clears the threshold of 0.35.

Only records of the same prefix and kind are compared (RT-RTE with RT-RTE, EPI-OBJ
with EPI-OBJ).  Record IDs are never compared: a draft is free to name its records.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linear_sum_assignment

from drafter.model import Record
from evals.similarity import TextSimilarity, record_text
from evals.witnesses import LocatedWitness, kind_key

TEXT_WEIGHT = 0.5
DEFAULT_THRESHOLD = 0.35
SAME_FILE = 0.25
OVERLAP = 1.0


@dataclass(slots=True)
class Side:
    """One report's records with their located witnesses (same order)."""

    records: list[Record]
    witnesses: list[list[LocatedWitness]]


@dataclass(slots=True)
class Pair:
    gold: Record
    draft: Record
    gold_index: int
    draft_index: int
    score: float
    text: float
    witness: float | None


@dataclass(slots=True)
class KindAlignment:
    key: str
    gold: list[int] = field(default_factory=list)  # indices into Side.records
    draft: list[int] = field(default_factory=list)
    pairs: list[Pair] = field(default_factory=list)
    unmatched_gold: list[int] = field(default_factory=list)
    unmatched_draft: list[int] = field(default_factory=list)


def _best_hit(w: LocatedWitness, others: Sequence[LocatedWitness]) -> float:
    best = 0.0
    for o in others:
        if w.overlaps(o):
            return OVERLAP
        if w.same_file(o):
            best = SAME_FILE
    return best


def witness_overlap(
    gold: Sequence[LocatedWitness], draft: Sequence[LocatedWitness]
) -> float | None:
    """Symmetric witness agreement of two records; None when either side has none located."""
    g = [w for w in gold if w.present]
    d = [w for w in draft if w.present]
    if not g or not d:
        return None
    g_to_d = sum(_best_hit(w, d) for w in g) / len(g)
    d_to_g = sum(_best_hit(w, g) for w in d) / len(d)
    return (g_to_d + d_to_g) / 2.0


def combine(text: float, witness: float | None, text_weight: float = TEXT_WEIGHT) -> float:
    if witness is None:
        return text
    return text_weight * text + (1.0 - text_weight) * witness


def kinds_in(*sides: Side) -> list[str]:
    """Kind keys present on either side, in report order (CMP OBJ RTE CLM BAP)."""
    order = {"CMP": 0, "OBJ": 1, "RTE": 2, "CLM": 3, "BAP": 4}
    keys = {kind_key(r.id) for s in sides for r in s.records}
    return sorted(keys, key=lambda k: (k.split("-")[0] != "RT", order.get(k.split("-")[1], 9), k))


def align(
    gold: Side,
    draft: Side,
    text_similarity: TextSimilarity,
    threshold: float = DEFAULT_THRESHOLD,
    text_weight: float = TEXT_WEIGHT,
) -> dict[str, KindAlignment]:
    """Optimal one-to-one alignment of records per kind, keeping pairs >= threshold."""
    out: dict[str, KindAlignment] = {}
    for key in kinds_in(gold, draft):
        ka = KindAlignment(key)
        ka.gold = [i for i, r in enumerate(gold.records) if kind_key(r.id) == key]
        ka.draft = [i for i, r in enumerate(draft.records) if kind_key(r.id) == key]
        out[key] = ka
        if not ka.gold or not ka.draft:
            ka.unmatched_gold = list(ka.gold)
            ka.unmatched_draft = list(ka.draft)
            continue
        text = np.asarray(
            text_similarity(
                [record_text(gold.records[i]) for i in ka.gold],
                [record_text(draft.records[j]) for j in ka.draft],
            ),
            dtype=np.float64,
        )
        wit: list[list[float | None]] = [
            [witness_overlap(gold.witnesses[i], draft.witnesses[j]) for j in ka.draft]
            for i in ka.gold
        ]
        score = np.array(
            [
                [combine(float(text[a, b]), wit[a][b], text_weight) for b in range(len(ka.draft))]
                for a in range(len(ka.gold))
            ]
        )
        rows, cols = linear_sum_assignment(score, maximize=True)
        paired_g: set[int] = set()
        paired_d: set[int] = set()
        for a, b in zip(rows.tolist(), cols.tolist(), strict=True):
            if score[a, b] + 1e-12 < threshold:
                continue
            gi, dj = ka.gold[a], ka.draft[b]
            ka.pairs.append(
                Pair(
                    gold.records[gi],
                    draft.records[dj],
                    gi,
                    dj,
                    float(score[a, b]),
                    float(text[a, b]),
                    wit[a][b],
                )
            )
            paired_g.add(gi)
            paired_d.add(dj)
        ka.pairs.sort(key=lambda p: p.gold_index)
        ka.unmatched_gold = [i for i in ka.gold if i not in paired_g]
        ka.unmatched_draft = [j for j in ka.draft if j not in paired_d]
    return out
