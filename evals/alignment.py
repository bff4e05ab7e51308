"""Align draft records with gold records.

Two methods (``drafter eval --alignment``): ``best-gold`` (the default, see
:func:`align_best_gold`: each draft record answers its best gold record of any kind)
and ``one-to-one`` (the original method, described here).  Both were scored against
hand labels (tests/data/eval_labels/); the one-to-one method makes few wrong pairs
but misses most draft records that answer a gold record, because it allows neither a
split nor a record filed under another kind.

One-to-one, per kind.

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

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linear_sum_assignment

from drafter.kinds import order_of
from drafter.model import Record
from evals.choices import DEFAULT_METHOD as DEFAULT_METHOD
from evals.choices import DEFAULT_THRESHOLD as DEFAULT_THRESHOLD
from evals.choices import METHODS as METHODS
from evals.choices import ONE_TO_ONE_THRESHOLD as ONE_TO_ONE_THRESHOLD
from evals.similarity import TextSimilarity, code_similarity, record_text
from evals.structure import CodeMap, credit_matrix
from evals.witnesses import Landing, LocatedWitness, kind_key

TEXT_WEIGHT = 0.5
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

    @property
    def cross_kind(self) -> bool:
        """The draft record answers a gold record of another kind (kind confusion)."""
        return kind_key(self.gold.id) != kind_key(self.draft.id)


@dataclass(slots=True)
class KindAlignment:
    key: str
    gold: list[int] = field(default_factory=list)  # indices into Side.records
    draft: list[int] = field(default_factory=list)
    pairs: list[Pair] = field(default_factory=list)
    unmatched_gold: list[int] = field(default_factory=list)
    unmatched_draft: list[int] = field(default_factory=list)


_HIT_WEIGHT: dict[Landing, float] = {"line": OVERLAP, "file": SAME_FILE, None: 0.0}


def _best_hit(w: LocatedWitness, others: Sequence[LocatedWitness]) -> float:
    return _HIT_WEIGHT[w.landing(others)]


def witness_overlap(
    gold: Sequence[LocatedWitness], draft: Sequence[LocatedWitness]
) -> float | None:
    """Symmetric witness agreement of two records; None when either side has none located."""
    parts = witness_directions(gold, draft)
    return None if parts is None else (parts[0] + parts[1]) / 2.0


def witness_directions(
    gold: Sequence[LocatedWitness],
    draft: Sequence[LocatedWitness],
    hit: Callable[[LocatedWitness, Sequence[LocatedWitness]], float] = _best_hit,
    gold_copies: Sequence[LocatedWitness] = (),
    draft_copies: Sequence[LocatedWitness] = (),
) -> tuple[float, float] | None:
    """(gold covered by draft, draft landing on gold); None when either side has none.

    ``*_copies`` are the same witnesses at the matching lines of copied files
    (:meth:`evals.structure.CodeMap.copied`): the other side's quotes may land on
    them, but only a record's own witnesses are counted.
    """
    g = [w for w in gold if w.present]
    d = [w for w in draft if w.present]
    if not g or not d:
        return None
    d_all = [*d, *(w for w in draft_copies if w.present)]
    g_all = [*g, *(w for w in gold_copies if w.present)]
    g_to_d = sum(hit(w, d_all) for w in g) / len(g)
    d_to_g = sum(hit(w, g_all) for w in d) / len(d)
    return g_to_d, d_to_g


def combine(text: float, witness: float | None, text_weight: float = TEXT_WEIGHT) -> float:
    if witness is None:
        return text
    return text_weight * text + (1.0 - text_weight) * witness


def kinds_in(*sides: Side) -> list[str]:
    """Kind keys present on either side, runtime first, then in report order."""
    keys = {kind_key(r.id) for s in sides for r in s.records}
    return sorted(keys, key=lambda k: (k.split("-")[0] != "RT", order_of(k.split("-")[1]), k))


def kind_slots(gold: Side, draft: Side) -> dict[str, KindAlignment]:
    """One empty :class:`KindAlignment` per kind key, in :func:`kinds_in` order, holding
    the indices of each side's records of that kind: records align only within a kind."""
    out: dict[str, KindAlignment] = {}
    for key in kinds_in(gold, draft):
        ka = KindAlignment(key)
        ka.gold = [i for i, r in enumerate(gold.records) if kind_key(r.id) == key]
        ka.draft = [j for j, r in enumerate(draft.records) if kind_key(r.id) == key]
        out[key] = ka
    return out


def align(
    gold: Side,
    draft: Side,
    text_similarity: TextSimilarity,
    threshold: float = ONE_TO_ONE_THRESHOLD,
    text_weight: float = TEXT_WEIGHT,
) -> dict[str, KindAlignment]:
    """Optimal one-to-one alignment of records per kind, keeping pairs >= threshold."""
    out = kind_slots(gold, draft)
    for ka in out.values():
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


# -- many-to-one alignment across kinds ------------------------------------------------

#: Alignment methods ``drafter eval --alignment`` offers.
#: Subtracted from the score of a draft/gold pair of different kinds (see align_best_gold).
CROSS_KIND_PENALTY = 0.2
#: Weights of the parts of the best-gold score (text, code names, witness overlap).
BEST_GOLD_WEIGHTS = {"text": 0.4, "code": 0.3, "witness": 0.3}
#: Weight of the call-path part when the repository's code map is at hand (the other
#: parts keep their proportions in the rest); chosen on the sample pair only.
PATH_WEIGHT = 0.1


def with_path(weights: dict[str, float], path_weight: float = PATH_WEIGHT) -> dict[str, float]:
    """``weights`` scaled to ``1 - path_weight`` plus the call-path part."""
    out = {k: v * (1.0 - path_weight) for k, v in weights.items()}
    out["path"] = path_weight
    return out


#: Best-gold witness credit fades from 1 (overlapping lines) to SAME_FILE over this many
#: lines between two spans of one file (see near_hit).  Chosen on the sample pair only.
NEAR_LINES = 40


def near_hit(w: LocatedWitness, others: Sequence[LocatedWitness]) -> float:
    """Best credit of ``w`` against ``others``: 1 for overlapping lines, else
    ``1 - gap / NEAR_LINES`` for a span of the same file ``gap`` lines away (at least
    SAME_FILE), 0 for another file.

    Why: two reports about one function quote different lines of it -- the gold the
    condition, the draft the call or the write a few lines below.  A flat same-file
    credit treats those like quotes at both ends of a long module.  The same text in a
    sibling copy (:meth:`LocatedWitness.equivalent`) counts as overlapping.
    """
    best = 0.0
    a = w.span
    for o in others:
        if w.overlaps(o) or w.equivalent(o):
            return OVERLAP
        if not w.same_file(o):
            continue
        credit = SAME_FILE
        b = o.span
        if a is not None and b is not None:
            gap = max(a.start - b.end, b.start - a.end, 0)
            credit = max(credit, 1.0 - gap / NEAR_LINES)
        best = max(best, credit)
    return best


def draft_witness_score(
    gold: Sequence[LocatedWitness],
    draft: Sequence[LocatedWitness],
    gold_copies: Sequence[LocatedWitness] = (),
    draft_copies: Sequence[LocatedWitness] = (),
) -> float | None:
    """Witness agreement for many-to-one alignment.

    A draft that splits one gold record into several quotes only part of the gold
    record's witnesses, so the symmetric mean punishes exactly the split the analyst
    accepts.  The better of the symmetric mean and "how much of the draft lands on
    the gold" keeps a split part's credit while a record quoting everything still
    scores by both directions.  Hits use :func:`near_hit` (nearby lines of one file
    earn partial credit); with ``*_copies`` (see :func:`witness_directions`) a quote
    of one copied file lands on the matching lines of its copies.
    """
    parts = witness_directions(gold, draft, near_hit, gold_copies, draft_copies)
    if parts is None:
        return None
    g_to_d, d_to_g = parts
    return max((g_to_d + d_to_g) / 2.0, d_to_g)


def witness_matrix(
    gold: Side, draft: Side, code_map: CodeMap | None = None
) -> list[list[float | None]]:
    """:func:`draft_witness_score` of every gold record (rows) against every draft
    record; with the revision's ``code_map`` quotes also land across copied files."""
    if code_map is None:
        return [[draft_witness_score(gw, dw) for dw in draft.witnesses] for gw in gold.witnesses]
    g_copies = [code_map.copied(gw) for gw in gold.witnesses]
    d_copies = [code_map.copied(dw) for dw in draft.witnesses]
    return [
        [
            draft_witness_score(gw, dw, gc, dc)
            for dw, dc in zip(draft.witnesses, d_copies, strict=True)
        ]
        for gw, gc in zip(gold.witnesses, g_copies, strict=True)
    ]


def mix(parts: dict[str, float | None], weights: dict[str, float]) -> float:
    """Weighted mean of the parts that are known (a record without located
    witnesses is scored on the rest, its weight shared out)."""
    known = {k: v for k, v in parts.items() if v is not None and weights.get(k, 0.0) > 0}
    total = sum(weights[k] for k in known)
    return sum(weights[k] * v for k, v in known.items()) / total if total else 0.0


def score_matrix(
    gold: Side,
    draft: Side,
    text_similarity: TextSimilarity,
    weights: dict[str, float] | None = None,
    cross_kind_penalty: float = CROSS_KIND_PENALTY,
    code_map: CodeMap | None = None,
) -> tuple[np.ndarray, np.ndarray, list[list[float | None]]]:
    """(combined, text, witness) for every gold record (rows) against every draft record.

    With a ``code_map`` of the revision a fourth part, :func:`evals.structure.path_credit`
    (the draft record's code on the call path of the gold record's code), joins the
    mix at PATH_WEIGHT.
    """
    w = weights or (with_path(BEST_GOLD_WEIGHTS) if code_map is not None else BEST_GOLD_WEIGHTS)
    n_g, n_d = len(gold.records), len(draft.records)
    if not n_g or not n_d:
        empty = np.zeros((n_g, n_d))
        return empty, empty, [[None] * n_d for _ in range(n_g)]
    text = np.asarray(
        text_similarity(
            [record_text(r) for r in gold.records], [record_text(r) for r in draft.records]
        ),
        dtype=np.float64,
    )
    code = code_similarity(gold.records, draft.records)
    wit = witness_matrix(gold, draft, code_map)
    path: list[list[float | None]] = (
        credit_matrix(gold.witnesses, draft.witnesses, code_map)
        if code_map is not None
        else [[None] * n_d for _ in range(n_g)]
    )
    combined = np.zeros_like(text)
    for a, g in enumerate(gold.records):
        for b, d in enumerate(draft.records):
            parts = {
                "text": float(text[a, b]),
                "code": float(code[a, b]),
                "witness": wit[a][b],
                "path": path[a][b],
            }
            value = mix(parts, w)
            if kind_key(g.id) != kind_key(d.id):
                value -= cross_kind_penalty
            combined[a, b] = value
    return combined, text, wit


def align_best_gold(
    gold: Side,
    draft: Side,
    text_similarity: TextSimilarity,
    threshold: float = DEFAULT_THRESHOLD,
    weights: dict[str, float] | None = None,
    cross_kind_penalty: float = CROSS_KIND_PENALTY,
    code_map: CodeMap | None = None,
) -> dict[str, KindAlignment]:
    """Each draft record answers its best-scoring gold record of any kind, if >= threshold.

    Why not one to one: an analyst accepts a draft that splits one gold record into
    several (one route per benchmark where the gold wrote one route), and a draft
    record filed under another kind (a prompt object where the gold has a
    behavioural-authority path) still answers that gold record.  One-to-one per kind
    leaves both unmatched and under-counts drafts of systems nobody tuned on.  A small
    penalty keeps a same-kind answer ahead of an equally close other-kind one.

    Pairs are filed under the gold record's kind; a kind's ``unmatched_draft`` lists
    its draft records that answer no gold record at all.

    The score mixes three parts (BEST_GOLD_WEIGHTS): text similarity of label and
    lead, TF-IDF similarity of the code names both records mention or quote (paths,
    functions, constants: what an analyst's prose and a machine draft share), and
    witness overlap; with the revision's ``code_map`` a fourth, the call path
    (evals.structure): a draft object, tool or claim whose code sits in functions the
    gold route's functions call, or are called by, belongs to that route even when
    it shares no prose, names or lines with it.  Weights, penalty and threshold were
    chosen on the labelled sample pair alone (best F1 against the labels over a small
    grid, ties broken by the sample's ranking AUC) and reported on the other labelled
    pairs without change; see tests/test_eval_labels.py.
    """
    combined, text, wit = score_matrix(
        gold, draft, text_similarity, weights, cross_kind_penalty, code_map
    )
    out = kind_slots(gold, draft)
    paired_g: set[int] = set()
    paired_d: set[int] = set()
    for j, d in enumerate(draft.records):
        if not gold.records:
            break
        i = int(np.argmax(combined[:, j]))
        if combined[i, j] + 1e-12 < threshold:
            continue
        g = gold.records[i]
        out[kind_key(g.id)].pairs.append(
            Pair(g, d, i, j, float(combined[i, j]), float(text[i, j]), wit[i][j])
        )
        paired_g.add(i)
        paired_d.add(j)
    for ka in out.values():
        ka.pairs.sort(key=lambda p: (p.gold_index, p.draft_index))
        ka.unmatched_gold = [i for i in ka.gold if i not in paired_g]
        ka.unmatched_draft = [j for j in ka.draft if j not in paired_d]
    return out
