"""Coverage alignment: which draft records cover which gold records.

Why coverage and not a pairing: an analyst asks of every reference record "does some
draft record say this?", and of every draft record "does it say something the
reference says?".  One draft record often covers several reference records (a
"generated code exec" record covers the forward-execution route, the generated
``forward`` path and the ARC sub-agent code), and several draft records can share
one reference record (a draft that writes one route per benchmark).  Crediting each
draft record to one gold record (best-gold) or pairing them one to one leaves the
rest uncovered and under-counts recall.

A link (gold g, draft d) is made when the pair's score is within ``margin`` of the
best score of d's gold records and reaches ``threshold`` (d covers g, perhaps among
others), or is within ``margin`` of the best score of g's draft records and reaches
``gold_threshold`` (g is covered by d, perhaps among others).  The score mixes the same
parts as best-gold (:func:`score_parts`: text of label and lead, shared code names,
witness overlap with nearby-line and sibling-copy credit, and with the revision's
code map the call path), minus a penalty across kinds.

Record recall is then coverage (gold records with a link / gold records) and
precision the share of draft records that cover something.

The weights, penalty, threshold and margin (:data:`COVERAGE`) are fitted by
:mod:`evals.fit` on the labelled systems; ``benchmarks/loso.py`` fits them leaving each
system out in turn and reports the held-out agreement with analysts' labels
(:data:`HELD_OUT`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from evals.about import about, about_parts
from evals.alignment import (
    KindAlignment,
    Pair,
    Side,
    kind_slots,
    witness_matrix,
)
from evals.choices import COVERAGE_THRESHOLD
from evals.choices import HELD_OUT as HELD_OUT
from evals.rule import RULE, Rule, decide, features
from evals.similarity import TextSimilarity, code_similarity, record_text
from evals.structure import CodeMap, credit_matrix
from evals.witnesses import kind_key

PARTS = ("text", "code", "witness", "path")


@dataclass(frozen=True, slots=True)
class Choice:
    """Everything the coverage rule needs besides the two reports."""

    weights: dict[str, float] = field(hash=False)
    cross_kind_penalty: float
    threshold: float
    margin: float
    #: Threshold of links made from the gold side (g's best draft record); None: off.
    gold_threshold: float | None = None

    def with_threshold(self, threshold: float) -> Choice:
        """``--threshold``: moves both thresholds by the same amount."""
        shift = threshold - self.threshold
        gold = None if self.gold_threshold is None else self.gold_threshold + shift
        return replace(self, threshold=threshold, gold_threshold=gold)

    def describe(self) -> str:
        w = ", ".join(f"{k} {self.weights.get(k, 0.0):g}" for k in PARTS)
        gold = "off" if self.gold_threshold is None else f"{self.gold_threshold:g}"
        return (
            f"weights {w}; cross-kind -{self.cross_kind_penalty:g}; "
            f"threshold {self.threshold:g}, gold side {gold}; margin {self.margin:g}"
        )


#: The shipped choice: fitted by ``benchmarks/loso.py --final`` on every labelled
#: system (sample, auto-harness, dgm, ADAS); see HELD_OUT for how far it carries.
COVERAGE = Choice(
    weights={"text": 0.3, "code": 0.6, "witness": 0.0, "path": 0.1},
    cross_kind_penalty=0.1,
    threshold=COVERAGE_THRESHOLD,
    margin=0.1,
    gold_threshold=0.3,
)


@dataclass(slots=True)
class Parts:
    """Each part of the score for every gold record (rows) and draft record (columns);
    NaN where a part cannot say (no located witness, no code on either side)."""

    text: np.ndarray
    code: np.ndarray
    witness: np.ndarray
    path: np.ndarray
    cross: np.ndarray  # True where the two records are of different kinds

    def part(self, name: str) -> np.ndarray:
        out: np.ndarray = getattr(self, name)
        return out


def _nan(rows: list[list[float | None]]) -> np.ndarray:
    return np.array([[np.nan if v is None else v for v in r] for r in rows], dtype=np.float64)


def score_parts(
    gold: Side, draft: Side, text_similarity: TextSimilarity, code_map: CodeMap | None = None
) -> Parts:
    """The four parts, computed once; mixing them for a choice is cheap (:func:`mixed`)."""
    n_g, n_d = len(gold.records), len(draft.records)
    if not n_g or not n_d:
        z = np.zeros((n_g, n_d))
        return Parts(z, z, z, z, z.astype(bool))
    text = np.asarray(
        text_similarity(
            [record_text(r) for r in gold.records], [record_text(r) for r in draft.records]
        ),
        dtype=np.float64,
    )
    code = np.asarray(code_similarity(gold.records, draft.records), dtype=np.float64)
    wit = _nan(witness_matrix(gold, draft, code_map))
    path = (
        _nan(credit_matrix(gold.witnesses, draft.witnesses, code_map))
        if code_map is not None
        else np.full((n_g, n_d), np.nan)
    )
    gk = [kind_key(r.id) for r in gold.records]
    dk = [kind_key(r.id) for r in draft.records]
    cross = np.array([[a != b for b in dk] for a in gk], dtype=bool)
    return Parts(text, code, wit, path, cross)


def mixed(parts: Parts, weights: dict[str, float], cross_kind_penalty: float) -> np.ndarray:
    """Weighted mean of the known parts (a part that cannot say gives its weight to
    the rest), minus the penalty across kinds."""
    num = np.zeros_like(parts.text)
    den = np.zeros_like(parts.text)
    for name in PARTS:
        w = weights.get(name, 0.0)
        if w <= 0:
            continue
        v = parts.part(name)
        known = ~np.isnan(v)
        num += np.where(known, w * np.nan_to_num(v), 0.0)
        den += np.where(known, w, 0.0)
    out = np.divide(num, den, out=np.zeros_like(num), where=den > 0)
    result: np.ndarray = out - cross_kind_penalty * parts.cross
    return result


def links(
    score: np.ndarray, threshold: float, margin: float, gold_threshold: float | None = None
) -> np.ndarray:
    """Boolean matrix of the links the coverage rule makes (see the module text)."""
    if score.size == 0:
        return np.zeros(score.shape, dtype=bool)
    eps = 1e-12
    best_for_draft = score.max(axis=0, keepdims=True)
    by_draft: np.ndarray = (score + margin + eps >= best_for_draft) & (score + eps >= threshold)
    if gold_threshold is None:
        return by_draft
    best_for_gold = score.max(axis=1, keepdims=True)
    by_gold = (score + margin + eps >= best_for_gold) & (score + eps >= gold_threshold)
    result: np.ndarray = by_draft | by_gold
    return result


def align_coverage(
    gold: Side,
    draft: Side,
    text_similarity: TextSimilarity,
    choice: Choice = COVERAGE,
    code_map: CodeMap | None = None,
    parts: Parts | None = None,
) -> dict[str, KindAlignment]:
    """Every coverage link of a mixed-score :class:`Choice` as a :class:`Pair`, filed
    under the gold record's kind (``--alignment coverage-mixed``).

    A kind's ``unmatched_gold`` lists its gold records no draft record covers, its
    ``unmatched_draft`` the draft records of that kind that cover nothing.
    """
    p = parts if parts is not None else score_parts(gold, draft, text_similarity, code_map)
    score = mixed(p, choice.weights, choice.cross_kind_penalty)
    made = links(score, choice.threshold, choice.margin, choice.gold_threshold)
    return file_links(gold, draft, p, score, made)


def rule_features(
    gold: Side, draft: Side, parts: Parts, code_map: CodeMap | None
) -> dict[str, np.ndarray]:
    """The decision rule's features of every pair (:func:`evals.rule.features`)."""
    ab = about_parts(
        [about(r, w, code_map) for r, w in zip(gold.records, gold.witnesses, strict=True)],
        [about(r, w, code_map) for r, w in zip(draft.records, draft.witnesses, strict=True)],
    )
    named = {k: parts.part(k) for k in PARTS}
    return features(
        {**named, **ab},
        [kind_key(r.id) for r in gold.records],
        [kind_key(r.id) for r in draft.records],
    )


def align_rule(
    gold: Side,
    draft: Side,
    text_similarity: TextSimilarity,
    rule: Rule = RULE,
    code_map: CodeMap | None = None,
) -> dict[str, KindAlignment]:
    """Every link the fitted decision rule makes (the default, ``--alignment
    coverage``), filed like :func:`align_coverage`; a pair's score is its probability."""
    p = score_parts(gold, draft, text_similarity, code_map)
    prob = rule.prob(rule_features(gold, draft, p, code_map))
    made = decide(prob, rule.threshold, rule.margin, rule.gold_threshold)
    return file_links(gold, draft, p, prob, made)


def file_links(
    gold: Side, draft: Side, p: Parts, score: np.ndarray, made: np.ndarray
) -> dict[str, KindAlignment]:
    """Links ``made`` (gold rows, draft columns) as :class:`Pair` s under the gold
    record's kind, whoever decided them (a rule, a judge, an analyst's labels)."""
    out = kind_slots(gold, draft)
    covered: set[int] = set()
    covering: set[int] = set()
    for i, j in zip(*np.nonzero(made), strict=True):
        gi, dj = int(i), int(j)
        g, d = gold.records[gi], draft.records[dj]
        wit = p.witness[gi, dj]
        out[kind_key(g.id)].pairs.append(
            Pair(
                g,
                d,
                gi,
                dj,
                float(score[gi, dj]),
                float(p.text[gi, dj]),
                None if np.isnan(wit) else float(wit),
            )
        )
        covered.add(gi)
        covering.add(dj)
    for ka in out.values():
        ka.pairs.sort(key=lambda q: (q.gold_index, q.draft_index))
        ka.unmatched_gold = [i for i in ka.gold if i not in covered]
        ka.unmatched_draft = [j for j in ka.draft if j not in covering]
    return out
