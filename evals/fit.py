"""Fit the coverage rule on some labelled systems and report it on the others.

Why: a rule tuned on the pairs it is then scored on agrees with analysts by
construction.  Here the choice (weights, cross-kind penalty, threshold, margin; see
:class:`evals.coverage.Choice`) is made on the training systems only, and the figures
of the held-out system are computed after the choice is fixed, by code that never
hands held-out labels to the fit (:func:`leave_one_out`).

Agreement with the labels (:class:`Agreement`, counts pooled over a system's pairs):

    link precision = links made that the labels accept / links made
    link recall    = links the labels accept that were made / links the labels accept
    gold P / R     = of the gold records the eval calls covered, those covered by an
                     accepted link / of those the labels call covered, the same
    draft P / R    = the same for "this draft record covers some gold record"

Record recall and precision on a scorecard are the gold and draft claims, so the fit
maximises, over the training pairs, the worst of the four claim figures; ties go to
the higher mean, then to the earlier choice of :func:`grid`.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from drafter.errors import BadInput
from evals import rule as rule_mod
from evals.about import about, about_parts
from evals.alignment import Side
from evals.coverage import PARTS, Choice, Parts, links, mixed, score_parts
from evals.gold import load
from evals.labels import LabelSet, check_complete, load_labels
from evals.located import cached_fingerprint, cached_locate
from evals.rule import FAMILIES, PENALTIES, Example, Rule, features
from evals.similarity import TextSimilarity
from evals.structure import load as load_code_map
from evals.witnesses import kind_key, locate_report

#: Counts kept per pair and pooled per system (see :func:`tally`).
COUNTS = (
    "links_right",
    "links_made",
    "links_labelled",
    "gold_right",
    "gold_claimed",
    "gold_labelled",
    "draft_right",
    "draft_claimed",
    "draft_labelled",
)


def tally(made: np.ndarray, accepted: np.ndarray) -> np.ndarray:
    """The :data:`COUNTS` of one pair: links, then the eval's two record claims.

    "gold g is covered" is right when one of g's links is accepted; "draft d covers
    something" likewise.  A claim that holds only through a wrong link is wrong.
    """
    ok = made & accepted
    return np.array(
        [
            ok.sum(),
            made.sum(),
            accepted.sum(),
            ok.any(axis=1).sum(),
            made.any(axis=1).sum(),
            accepted.any(axis=1).sum(),
            ok.any(axis=0).sum(),
            made.any(axis=0).sum(),
            accepted.any(axis=0).sum(),
        ],
        dtype=np.int64,
    )


@dataclass(frozen=True, slots=True)
class Agreement:
    """Precision and recall against the labels: of links, of "gold record covered"
    claims (what record recall counts) and of "draft record covers" claims (what
    record precision counts)."""

    link_p: float
    link_r: float
    gold_p: float
    gold_r: float
    draft_p: float
    draft_r: float

    @classmethod
    def of(cls, c: np.ndarray) -> Agreement:
        def div(a: int, b: int) -> float:
            return float(a / b) if b else 0.0

        return cls(
            div(c[0], c[1]),
            div(c[0], c[2]),
            div(c[3], c[4]),
            div(c[3], c[5]),
            div(c[6], c[7]),
            div(c[6], c[8]),
        )

    @property
    def claims_worst(self) -> float:
        return min(self.gold_p, self.gold_r, self.draft_p, self.draft_r)

    @property
    def claims_mean(self) -> float:
        return (self.gold_p + self.gold_r + self.draft_p + self.draft_r) / 4


@dataclass(slots=True)
class LabelledPair:
    """One labelled draft/gold pair with its score parts computed once."""

    name: str
    system: str
    labels: LabelSet
    parts: Parts
    accepted: np.ndarray  # bool, gold x draft: links the labels accept
    gold_ids: list[str]
    draft_ids: list[str]
    #: What each record is about, compared (evals.about.about_parts).
    about: dict[str, np.ndarray] = field(default_factory=dict)
    _example: Example | None = field(default=None, repr=False)

    def made(self, choice: Choice) -> np.ndarray:
        score = mixed(self.parts, choice.weights, choice.cross_kind_penalty)
        return links(score, choice.threshold, choice.margin, choice.gold_threshold)

    def counts(self, choice: Choice | Rule) -> np.ndarray:
        return tally(self.made_by(choice), self.accepted)

    def made_by(self, choice: Choice | Rule) -> np.ndarray:
        """Links made by a mixed-score choice or a fitted rule."""
        if isinstance(choice, Rule):
            return choice.links(self.example().feats)
        return self.made(choice)

    def example(self) -> Example:
        """This pair's features and labels for :mod:`evals.rule` (computed once)."""
        if self._example is None:
            named = {k: self.parts.part(k) for k in PARTS}
            self._example = Example(
                self.name,
                self.system,
                features(
                    {**named, **self.about},
                    [kind_key(g) for g in self.gold_ids],
                    [kind_key(d) for d in self.draft_ids],
                ),
                self.accepted,
            )
        return self._example

    def coverage(self, choice: Choice | Rule) -> dict[str, float]:
        """Record recall/precision as the eval reports them, beside the labels' own."""
        made = self.made_by(choice)
        n_g, n_d = made.shape
        return {
            "recall": float(made.any(axis=1).sum() / n_g),
            "precision": float(made.any(axis=0).sum() / n_d),
            "label_recall": float(self.accepted.any(axis=1).sum() / n_g),
            "label_precision": float(self.accepted.any(axis=0).sum() / n_d),
        }


_REVISION = re.compile(r"^(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}$")


@dataclass(frozen=True, slots=True)
class PairName:
    """A labelled pair found in a data folder (:func:`discover`)."""

    name: str
    system: str
    fitted: bool


def system_of(name: str) -> str:
    """The system a pair belongs to: its name up to the revision
    (``auto-harness-bf052bc-offline`` -> ``auto-harness``), or without its last part
    when it names no revision (``sample-offline`` -> ``sample``)."""
    tokens = name.split("-")
    for i, tok in enumerate(tokens):
        if i and _REVISION.match(tok):
            return "-".join(tokens[:i])
    return "-".join(tokens[:-1]) or name


def discover(data: Path) -> list[PairName]:
    """Every ``*.labels.json`` of ``data``, by system then name.  A label file with a
    ``"control"`` entry (why it is a control) is reported but never fitted on."""
    out: list[PairName] = []
    for path in sorted(data.glob("*.labels.json")):
        name = path.name.removesuffix(".labels.json")
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise BadInput(f"{path}: cannot read labels: {exc}") from None
        control = isinstance(raw, dict) and "control" in raw
        out.append(PairName(name, system_of(name), not control))
    return out


def load_pair(
    data: Path, name: str, system: str, gold_dir: Path, text_similarity: TextSimilarity
) -> LabelledPair:
    """A saved pair of ``data`` (``NAME.labels.json``, its draft, ``NAME.locations.json``
    and ``REPO-REV.codemap.json``), located from the saved answers."""
    labels = load_labels(data / f"{name}.labels.json")
    gold = load(labels.gold_path(gold_dir), "gold")
    draft = load(labels.draft_path, "draft")
    check_complete(labels, gold, draft)
    saved = data / f"{name}.locations.json"
    locate, text = cached_locate(saved), cached_fingerprint(saved)
    gw, dw = locate_report(gold, locate, text=text), locate_report(draft, locate, text=text)
    cmap, _ = load_code_map(data / f"{name.rsplit('-', 1)[0]}.codemap.json")
    parts = score_parts(
        Side(gold.records, gw.by_record), Side(draft.records, dw.by_record), text_similarity, cmap
    )
    gold_ids = [r.id for r in gold.records]
    draft_ids = [r.id for r in draft.records]
    ok = labels.links
    accepted = np.array([[(g, d) in ok for d in draft_ids] for g in gold_ids], dtype=bool)
    ab = about_parts(
        [about(r, w, cmap) for r, w in zip(gold.records, gw.by_record, strict=True)],
        [about(r, w, cmap) for r, w in zip(draft.records, dw.by_record, strict=True)],
    )
    return LabelledPair(name, system, labels, parts, accepted, gold_ids, draft_ids, ab)


def grid() -> Iterator[Choice]:
    """Candidate choices: weights on a 0.1 simplex over the four parts (text at least
    0.2), penalty, thresholds and margin on small steps (no gold-side links first)."""
    steps = [round(0.1 * k, 1) for k in range(11)]
    for text, code, witness in itertools.product(steps, repeat=3):
        path = round(1.0 - text - code - witness, 1)
        if text < 0.2 or path < 0:
            continue
        weights = dict(zip(PARTS, (text, code, witness, path), strict=True))
        for penalty in (0.0, 0.1, 0.2):
            for margin in (0.0, 0.05, 0.1, 0.15):
                for k in range(15, 41, 5):
                    for gold in (None, 0.3, 0.4, 0.5):
                        yield Choice(weights, penalty, k / 100, margin, gold)


def system_agreement(pairs: Iterable[LabelledPair], choice: Choice | Rule) -> dict[str, Agreement]:
    """:class:`Agreement` per system, counts pooled over its pairs."""
    pooled: dict[str, np.ndarray] = {}
    for pair in pairs:
        c = pair.counts(choice)
        pooled[pair.system] = pooled.get(pair.system, np.zeros_like(c)) + c
    return {s: Agreement.of(c) for s, c in pooled.items()}


def objective(agreement: dict[str, Agreement]) -> tuple[float, float]:
    """(worst claim figure over the training pairs, mean claim figure): larger is better.

    Per pair, not pooled per system: pooled, a system's good draft hides its poor one
    (the README's design notes give the case).

    The claims -- "this gold record is covered", "this draft record covers something"
    -- are what the scorecard's record recall and precision count, so the fit aims at
    those; link precision and recall are reported beside them.
    """
    worst = min(a.claims_worst for a in agreement.values())
    mean = sum(a.claims_mean for a in agreement.values()) / len(agreement)
    return worst, mean


def fit(train: Sequence[LabelledPair], candidates: Iterable[Choice] | None = None) -> Choice:
    """The candidate with the best :func:`objective` on ``train`` (first one on ties).

    Mixing is done once per (weights, penalty) and shared by thresholds and margins.
    """
    best: Choice | None = None
    best_key = (-1.0, -1.0)
    mix_key: tuple[object, ...] | None = None
    scores: list[np.ndarray] = []
    for choice in candidates if candidates is not None else grid():
        key_now = (tuple(sorted(choice.weights.items())), choice.cross_kind_penalty)
        if key_now != mix_key:
            scores = [mixed(p.parts, choice.weights, choice.cross_kind_penalty) for p in train]
            mix_key = key_now
        pooled = {}
        for pair, sc in zip(train, scores, strict=True):
            made = links(sc, choice.threshold, choice.margin, choice.gold_threshold)
            pooled[pair.name] = tally(made, pair.accepted)
        key = objective({s: Agreement.of(c) for s, c in pooled.items()})
        if key > best_key:
            best, best_key = choice, key
    assert best is not None, "empty grid"
    return best


@dataclass(slots=True)
class HeldOut:
    """One row of the leave-one-system-out table."""

    system: str
    choice: Choice
    agreement: Agreement  # pooled over the held-out system's fitted pairs
    pairs: dict[str, Agreement]  # every held-out pair


def leave_one_out(
    pairs: Sequence[LabelledPair],
    fitted: Sequence[str] | None = None,
    candidates: Sequence[Choice] | None = None,
) -> list[HeldOut]:
    """For each system: fit on the pairs of the other systems (only those named in
    ``fitted``, default all), then -- and only then -- score the held-out system."""
    systems = list(dict.fromkeys(p.system for p in pairs))
    use = set(fitted) if fitted is not None else {p.name for p in pairs}
    rows: list[HeldOut] = []
    for held in systems:
        train = [p for p in pairs if p.system != held and p.name in use]
        choice = fit(train, candidates)
        test = [p for p in pairs if p.system == held]
        pooled = system_agreement([t for t in test if t.name in use], choice)[held]
        per_pair = {t.name: Agreement.of(t.counts(choice)) for t in test}
        rows.append(HeldOut(held, choice, pooled, per_pair))
    return rows


# -- the fitted decision rule (evals.rule) ---------------------------------------------


def rule_objective(items: Sequence[tuple[np.ndarray, np.ndarray]]) -> tuple[float, float]:
    """(mean over the pairs of each pair's worst figure, mean of all figures), larger
    better; the figures are all six of :class:`Agreement` -- links and both record
    claims, precision and recall: the rule decides links, and the scorecard's record
    figures are counted from them, so both must agree with the labels.

    Why the mean of each pair's worst and not the worst over all pairs (as
    :func:`objective`): the hardest pair (an early offline draft whose records few
    labels accept) then decides every threshold alone, and the rule chosen is the one
    least bad there rather than one good on most systems.
    """
    figures = []
    for made, accepted in items:
        a = Agreement.of(tally(made, accepted))
        figures.append((a.link_p, a.link_r, a.gold_p, a.gold_r, a.draft_p, a.draft_r))
    arr = np.array(figures)
    return float(arr.min(axis=1).mean()), float(arr.mean())


#: A decision of the coverage eval: the fitted logistic rule or the mixed-score choice.
Decider = Rule | Choice

#: The mixed-score family among the candidates of :func:`fit_rule`.
MIXED = ("mixed",)


def fit_rule(
    train: Sequence[LabelledPair],
    families: Sequence[str] | None = None,
    mixed_grid: Sequence[Choice] | None = None,
    with_mixed: bool = True,
) -> Decider:
    """The decision chosen and fitted on ``train`` only: every logistic family and
    penalty of :mod:`evals.rule` and (``with_mixed``) the mixed score fitted on its grid
    (``mixed_grid``, default :func:`grid`) compete by leave-one-system-out inside ``train``
    (:func:`evals.rule.choose_inner`, scored by :func:`rule_objective`); the winner is
    fitted on all of ``train``."""
    cands: list[tuple[object, ...]] = [
        ("logistic", f, pen) for f in (families or list(FAMILIES)) for pen in PENALTIES
    ]
    if with_mixed:
        cands.append(MIXED)

    def fit_on(cand: tuple[object, ...], idx: list[int]) -> Decider:
        pairs = [train[i] for i in idx]
        if cand == MIXED:
            return fit(pairs, mixed_grid)
        _, family, penalty = cand
        examples = [p.example() for p in pairs]
        return rule_mod.fit_family(examples, str(family), float(penalty), rule_objective)  # type: ignore[arg-type]

    return rule_mod.choose_inner(
        [p.system for p in train],
        cands,
        fit_on,
        lambda d, i: train[i].made_by(d),
        [p.accepted for p in train],
        rule_objective,
    )


@dataclass(slots=True)
class HeldOutRule:
    """One row of the leave-one-system-out table of the fitted rule."""

    system: str
    rule: Decider
    agreement: Agreement
    pairs: dict[str, Agreement]


def leave_one_out_rule(
    pairs: Sequence[LabelledPair],
    fitted: Sequence[str] | None = None,
    families: Sequence[str] | None = None,
    mixed_grid: Sequence[Choice] | None = None,
    with_mixed: bool = True,
) -> list[HeldOutRule]:
    """For each system: choose and fit the rule on the pairs of the other systems (only
    those named in ``fitted``), then -- and only then -- score the held-out system."""
    systems = list(dict.fromkeys(p.system for p in pairs))
    use = set(fitted) if fitted is not None else {p.name for p in pairs}
    rows: list[HeldOutRule] = []
    for held in systems:
        train = [p for p in pairs if p.system != held and p.name in use]
        rule = fit_rule(train, families, mixed_grid, with_mixed)
        test = [p for p in pairs if p.system == held]
        pooled = system_agreement([t for t in test if t.name in use], rule)[held]
        per_pair = {t.name: Agreement.of(t.counts(rule)) for t in test}
        rows.append(HeldOutRule(held, rule, pooled, per_pair))
    return rows
