"""The decision rule of the coverage eval: which (gold record, draft record) pairs are
links, decided from features of each pair by a small fitted logistic model.

Why not a threshold on one mixed score (:class:`evals.coverage.Choice`): whether an
analyst accepts a link depends on the pair's place among its rivals as much as on its
score -- a draft record's best gold record at 0.40 is a link where the third at 0.21
is not, unless the three are about the same code.  So each pair gets features
(:func:`features`):

* the score parts (text, code, witness, path; :mod:`evals.coverage`), an unknown part
  as 0;
* what the two records are about (:mod:`evals.about`: shared functions either way,
  effect kinds, file names);
* rank structure: the pair's rank among the draft record's gold candidates and among
  the gold record's draft candidates, and its gap to the best of each (by the mean of
  text and code, the two parts every pair has); the gap of text and of code alone to
  the draft record's best;
* whether the two records are of different kinds.

A :class:`Rule` is a family (which of those features), a logistic model over the
standardised features, a probability threshold and a margin: a link is made when its
probability reaches the threshold and is within the margin of the best probability of
the draft record's gold candidates (a draft record may cover several gold records).

The family and the strength of the model's L2 penalty are chosen *inside* the fit by
leave-one-system-out over the training systems only (:func:`choose`), so an outer
held-out system (evals.fit.leave_one_out) still sees nothing of the choice made on it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

import numpy as np

from evals.about import ABOUT_PARTS

#: Score parts, as in evals.coverage.PARTS (repeated, not imported: coverage imports
#: this module).
SCORE_PARTS = ("text", "code", "witness", "path")
RANK = ("rank_draft", "gap_draft", "rank_gold", "gap_gold", "text_gap", "code_gap")

#: Kind structure of a pair (the report format's kinds, evals.witnesses.kind_key):
#: a part of a route (object, boundary, claim) under a gold route; a route under a
#: record of another kind; any other pair across kinds.
KINDS = ("part_of_route", "route_to_other", "cross_other")

#: Feature families the fit chooses among (inner leave-one-system-out).
FAMILIES: dict[str, tuple[str, ...]] = {
    "parts": (*SCORE_PARTS, *KINDS),
    "parts+rank": (*SCORE_PARTS, *KINDS, *RANK),
    "parts+about": (*SCORE_PARTS, *KINDS, *ABOUT_PARTS),
    "all": (*SCORE_PARTS, *KINDS, *ABOUT_PARTS, *RANK),
}
#: L2 penalties the fit chooses among, on standardised features.
PENALTIES = (0.1, 1.0, 10.0)
THRESHOLDS = tuple(round(0.05 * k, 2) for k in range(2, 19))
MARGINS = (0.0, 0.1, 0.2, 0.3, 1.0)
GOLD_THRESHOLDS: tuple[float | None, ...] = (None, 0.5, 0.7, 0.9)


def _rank(score: np.ndarray, axis: int) -> np.ndarray:
    """1 for the best along ``axis``, 1/2 for the second, ... (ties share the better;
    :func:`features` gives 0 where the score itself is 0)."""
    if axis == 0:  # better[i, j] = #{k: score[k, j] > score[i, j]}
        better = (score[None, :, :] > score[:, None, :]).sum(axis=1)
    else:  # better[i, j] = #{k: score[i, k] > score[i, j]}
        better = (score[:, None, :] > score[:, :, None]).sum(axis=2)
    return np.asarray(1.0 / (1.0 + better), dtype=np.float64)


def kind_features(gold_kinds: Sequence[str], draft_kinds: Sequence[str]) -> dict[str, np.ndarray]:
    """:data:`KINDS` from each record's kind key (``RT-RTE``, ``RT-OBJ`` ...).

    Why three and not one "cross-kind" flag: analysts accept an object, boundary or
    claim record under the route it belongs to, and almost never a route under an
    object or a component; one penalty for both loses the first (seen as links lost to
    the old cross-kind penalty).
    """
    g = np.array([k.rsplit("-", 1)[-1] for k in gold_kinds], dtype=object)[:, None]
    d = np.array([k.rsplit("-", 1)[-1] for k in draft_kinds], dtype=object)[None, :]
    g_full = np.array(list(gold_kinds), dtype=object)[:, None]
    d_full = np.array(list(draft_kinds), dtype=object)[None, :]
    cross = g_full != d_full
    part = cross & (g == "RTE") & np.isin(d, ["OBJ", "BAP", "CLM"])
    route = cross & (d == "RTE")
    shape = (len(gold_kinds), len(draft_kinds))
    return {
        "part_of_route": np.broadcast_to(part, shape).astype(np.float64),
        "route_to_other": np.broadcast_to(route, shape).astype(np.float64),
        "cross_other": np.broadcast_to(cross & ~part & ~route, shape).astype(np.float64),
    }


def features(
    parts: dict[str, np.ndarray], gold_kinds: Sequence[str], draft_kinds: Sequence[str]
) -> dict[str, np.ndarray]:
    """Every feature (gold x draft matrices) from the parts (score parts and about
    parts by name, NaN where unknown) and the records' kind keys."""
    out = {k: np.nan_to_num(v, nan=0.0) for k, v in parts.items()}
    out.update(kind_features(gold_kinds, draft_kinds))
    if out["text"].size == 0:
        for k in RANK:
            out[k] = np.zeros_like(out["text"])
        return out
    base = (out["text"] + out["code"]) / 2.0
    out["rank_draft"] = np.where(base > 0, _rank(base, 0), 0.0)
    out["gap_draft"] = _gap(base, 0)
    out["rank_gold"] = np.where(base > 0, _rank(base, 1), 0.0)
    out["gap_gold"] = _gap(base, 1)
    out["text_gap"] = _gap(out["text"], 0)
    out["code_gap"] = _gap(out["code"], 0)
    return out


def _gap(score: np.ndarray, axis: int) -> np.ndarray:
    """Difference to the best along ``axis``; -1 (the worst there is) where the score
    is 0.  Why: a record that shares nothing with any candidate has every candidate
    tied at 0, and "tied for best" must not read as "best" (a claim of no text and no
    names in common was linked to every route of a small report)."""
    gap = score - score.max(axis=axis, keepdims=True)
    return np.asarray(np.where(score > 0, gap, -1.0), dtype=np.float64)


@dataclass(frozen=True, slots=True)
class Rule:
    """A fitted decision rule (see the module text)."""

    family: str
    features: tuple[str, ...]
    coef: tuple[float, ...]  # on standardised features
    intercept: float
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    threshold: float
    margin: float
    penalty: float
    #: Links from the gold side: a gold record's best draft record at this probability
    #: or more (None: off).
    gold_threshold: float | None = None

    def prob(self, feats: dict[str, np.ndarray]) -> np.ndarray:
        """Probability of a link for every pair (gold x draft)."""
        shape = feats["text"].shape
        z = np.full(shape, self.intercept)
        for name, c, m, s in zip(self.features, self.coef, self.mean, self.scale, strict=True):
            z = z + c * (feats[name] - m) / s
        out: np.ndarray = 1.0 / (1.0 + np.exp(-z))
        return out

    def links(self, feats: dict[str, np.ndarray]) -> np.ndarray:
        return decide(self.prob(feats), self.threshold, self.margin, self.gold_threshold)

    def rounded(self, digits: int = 6) -> Rule:
        """The same rule with its numbers rounded (what is shipped as :data:`RULE`)."""

        def r(xs: tuple[float, ...]) -> tuple[float, ...]:
            return tuple(round(x, digits) for x in xs)

        return replace(
            self,
            coef=r(self.coef),
            intercept=round(self.intercept, digits),
            mean=r(self.mean),
            scale=r(self.scale),
        )

    def describe(self) -> str:
        top = sorted(zip(self.features, self.coef, strict=True), key=lambda x: -abs(x[1]))[:5]
        heavy = ", ".join(f"{n} {c:+.2f}" for n, c in top)
        gold = "off" if self.gold_threshold is None else f"{self.gold_threshold:g}"
        return (
            f"logistic over {self.family} (L2 {self.penalty:g}; heaviest {heavy}); "
            f"threshold {self.threshold:g}, margin {self.margin:g}, gold side {gold}"
        )


def decide(
    prob: np.ndarray, threshold: float, margin: float, gold_threshold: float | None = None
) -> np.ndarray:
    """Links: probability at least ``threshold`` and within ``margin`` of the best of
    the draft record's gold candidates; with ``gold_threshold``, also each gold
    record's best draft record when it reaches that (the draft record may have a
    better gold record of its own: it then covers both)."""
    if prob.size == 0:
        return np.zeros(prob.shape, dtype=bool)
    eps = 1e-12
    best = prob.max(axis=0, keepdims=True)
    out: np.ndarray = (prob + eps >= threshold) & (prob + margin + eps >= best)
    if gold_threshold is not None:
        best_g = prob.max(axis=1, keepdims=True)
        out = out | ((prob + eps >= best_g) & (prob + eps >= gold_threshold))
    return out


# -- fitting -------------------------------------------------------------------------


@dataclass(slots=True)
class Example:
    """One labelled pair's features and labels, as the fit sees them."""

    name: str
    system: str
    feats: dict[str, np.ndarray]
    accepted: np.ndarray  # bool, gold x draft


C = TypeVar("C")
D = TypeVar("D")

#: Scores a pair's links against its labels: (worst figure, mean figure), larger better.
Objective = Callable[[Sequence[tuple[np.ndarray, np.ndarray]]], tuple[float, float]]


def logistic(x: np.ndarray, y: np.ndarray, w: np.ndarray, penalty: float) -> np.ndarray:
    """Weighted L2-penalised logistic regression by Newton's method; returns
    [intercept, coef...].  Deterministic (no random start), so a fit is reproducible."""
    a = np.hstack([np.ones((x.shape[0], 1)), x])
    beta = np.zeros(a.shape[1])
    reg = penalty * np.eye(a.shape[1])
    reg[0, 0] = 0.0
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(a @ beta)))
        grad = a.T @ (w * (p - y)) + reg @ beta
        hess = (a * (w * p * (1 - p))[:, None]).T @ a + reg
        step = np.linalg.solve(hess + 1e-9 * np.eye(a.shape[1]), grad)
        beta = beta - step
        if float(np.abs(step).max()) < 1e-8:
            break
    return beta


def fit_family(train: Sequence[Example], family: str, penalty: float, objective: Objective) -> Rule:
    """Fit the family's model on ``train`` (each labelled pair weighs the same, its
    links and non-links half each), then the threshold and margin by ``objective``."""
    names = FAMILIES[family]
    xs, ys, ws = [], [], []
    for ex in train:
        x = np.stack([ex.feats[n].ravel() for n in names], axis=1)
        y = ex.accepted.ravel().astype(np.float64)
        pos = max(float(y.sum()), 1.0)
        neg = max(float((1 - y).sum()), 1.0)
        xs.append(x)
        ys.append(y)
        ws.append(np.where(y > 0, 0.5 / pos, 0.5 / neg) * 100.0)
    x_all, y_all, w_all = np.vstack(xs), np.concatenate(ys), np.concatenate(ws)
    mean = x_all.mean(axis=0)
    scale = x_all.std(axis=0)
    scale = np.where(scale > 1e-9, scale, 1.0)
    beta = logistic((x_all - mean) / scale, y_all, w_all, penalty)
    rule = Rule(
        family,
        names,
        tuple(float(b) for b in beta[1:]),
        float(beta[0]),
        tuple(float(m) for m in mean),
        tuple(float(s) for s in scale),
        0.5,
        0.0,
        penalty,
    )
    probs = [rule.prob(ex.feats) for ex in train]
    best: tuple[float, float] | None = None
    chosen = (0.5, 0.0)
    for t in THRESHOLDS:
        for m in MARGINS:
            key = objective(
                [(decide(p, t, m), ex.accepted) for p, ex in zip(probs, train, strict=True)]
            )
            if best is None or key > best:
                best, chosen = key, (t, m)
    return Rule(family, names, rule.coef, rule.intercept, rule.mean, rule.scale, *chosen, penalty)


def choose_inner(
    systems: Sequence[str],
    candidates: Sequence[C],
    fit_on: Callable[[C, list[int]], D],
    links_of: Callable[[D, int], np.ndarray],
    accepted: Sequence[np.ndarray],
    objective: Objective,
) -> D:
    """Choose among ``candidates`` by leave-one-system-out over the training items (item
    ``i`` is of system ``systems[i]``): each candidate is fitted (``fit_on``) on the
    items of all systems but one and scored (``links_of`` against ``accepted``) on the
    left-out one; the best by ``objective`` over all those held-out scores (first on
    ties) is then fitted on every item.  With one system there is nothing to leave out
    and the first candidate is fitted.

    Only the items given are read: the caller's own held-out system is not among them.
    """
    names = list(dict.fromkeys(systems))
    everything = list(range(len(systems)))
    if len(names) < 2:
        return fit_on(candidates[0], everything)
    best: tuple[float, float] | None = None
    chosen = candidates[0]
    for cand in candidates:
        held: list[tuple[np.ndarray, np.ndarray]] = []
        for s in names:
            inner = [i for i in everything if systems[i] != s]
            fitted = fit_on(cand, inner)
            held += [(links_of(fitted, i), accepted[i]) for i in everything if systems[i] == s]
        key = objective(held)
        if best is None or key > best:
            best, chosen = key, cand
    return fit_on(chosen, everything)


def choose(
    train: Sequence[Example],
    objective: Objective,
    families: Sequence[str] | None = None,
    penalties: Sequence[float] = PENALTIES,
) -> Rule:
    """The logistic family and penalty chosen by :func:`choose_inner` on ``train``,
    fitted on all of it."""
    cands = [(f, pen) for f in (families or list(FAMILIES)) for pen in penalties]
    return choose_inner(
        [ex.system for ex in train],
        cands,
        lambda c, idx: fit_family([train[i] for i in idx], c[0], c[1], objective),
        lambda rule, i: rule.links(train[i].feats),
        [ex.accepted for ex in train],
        objective,
    )


#: The shipped rule: ``benchmarks/loso.py --final`` chooses and fits it on every
#: labelled system (a test checks the fit gives it again); see evals.choices.HELD_OUT
#: for how far it carries to a system it was not fitted on.
RULE = Rule(
    family="parts+rank",
    features=(
        "text",
        "code",
        "witness",
        "path",
        "part_of_route",
        "route_to_other",
        "cross_other",
        "rank_draft",
        "gap_draft",
        "rank_gold",
        "gap_gold",
        "text_gap",
        "code_gap",
    ),
    coef=(
        0.027246,
        0.220033,
        0.408801,
        -0.155544,
        -0.11796,
        -0.089191,
        -0.566285,
        0.241597,
        0.262472,
        0.463442,
        0.906848,
        0.178247,
        0.47029,
    ),
    intercept=-2.516333,
    mean=(
        0.171406,
        0.07029,
        0.12374,
        0.282633,
        0.20262,
        0.171179,
        0.406987,
        0.18724,
        -0.375173,
        0.144798,
        -0.397443,
        -0.418074,
        -0.676977,
    ),
    scale=(
        0.158918,
        0.129313,
        0.222014,
        0.345172,
        0.401952,
        0.376665,
        0.491272,
        0.231773,
        0.294975,
        0.210041,
        0.277318,
        0.310768,
        0.386451,
    ),
    threshold=0.85,
    margin=0.2,
    penalty=10.0,
    gold_threshold=None,
)
