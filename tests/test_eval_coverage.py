"""Coverage alignment, equivalent witnesses and the leave-one-system-out fit.

The labelled pairs are the saved ones in tests/data/eval_labels/ (sample, auto-harness,
dgm and the two ADAS drafts an analyst labelled; ADAS drafts redacted like the others,
labels trimmed of their reasons).  Witness locations, quote fingerprints and code maps
were saved from the real repositories, so nothing here needs a clone.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from drafter.errors import BadInput
from drafter.model import LineRange, Verification, VerifyStatus, Witness
from evals import fit as fitmod
from evals.coverage import COVERAGE, Choice, Parts, links, mixed
from evals.fit import (
    Agreement,
    LabelledPair,
    discover,
    leave_one_out,
    leave_one_out_rule,
    load_pair,
    tally,
)
from evals.labels import LabelSet, check_complete, load_labels
from evals.metrics import witness_hits
from evals.similarity import backend
from evals.witnesses import LocatedWitness, fingerprint

DATA = Path(__file__).parent / "data" / "eval_labels"
#: (name, system, fitted on) of every saved labelled pair (evals.fit.discover).
PAIRS = tuple((f.name, f.system, f.fitted) for f in discover(DATA))
SYSTEMS = list(dict.fromkeys(s for _, s, _ in PAIRS))
FITTED = [n for n, _, f in PAIRS if f]


@pytest.fixture(scope="module")
def labelled(gold_dir: Path) -> dict[str, LabelledPair]:
    sim = backend("embed")
    return {n: load_pair(DATA, n, s, gold_dir, sim) for n, s, _ in PAIRS}


# -- coverage: one draft record may cover several gold records ------------------------


def _parts(score: list[list[float]]) -> Parts:
    a = np.asarray(score, dtype=np.float64)
    nan = np.full(a.shape, np.nan)
    return Parts(a, nan, nan, nan, np.zeros(a.shape, dtype=bool))


def test_a_draft_record_covering_two_gold_records_is_credited_twice() -> None:
    """gold g0, g1, g2; draft d0 covers g0 and g1 (0.70, 0.66), d1 covers g2; nothing
    covers nothing else.  Coverage links d0 to both, so recall is 3/3, not 2/3."""
    parts = _parts([[0.70, 0.05], [0.66, 0.10], [0.05, 0.60]])
    choice = Choice({"text": 1.0}, 0.0, threshold=0.3, margin=0.1)
    made = links(mixed(parts, choice.weights, 0.0), choice.threshold, choice.margin)
    assert made.tolist() == [[True, False], [True, False], [False, True]]
    assert made.any(axis=1).sum() == 3  # every gold record found
    accepted = made.copy()
    a = Agreement.of(tally(made, accepted))
    assert (a.link_p, a.link_r, a.gold_r, a.draft_p) == (1.0, 1.0, 1.0, 1.0)
    # one link per draft record (the best-gold rule) would credit d0 once: g1 missed
    one_each = links(mixed(parts, choice.weights, 0.0), choice.threshold, margin=0.0)
    assert one_each.any(axis=1).sum() == 2


def test_gold_side_links_need_their_own_threshold() -> None:
    # g1's best draft record is d0 (0.35) but d0 is much closer to g0 (0.80)
    parts = _parts([[0.80], [0.35]])
    score = mixed(parts, {"text": 1.0}, 0.0)
    assert links(score, 0.3, 0.1).tolist() == [[True], [False]]
    assert links(score, 0.3, 0.1, gold_threshold=0.3).tolist() == [[True], [True]]
    assert links(score, 0.3, 0.1, gold_threshold=0.4).tolist() == [[True], [False]]


def test_labelled_pairs_credit_multiple_coverage(labelled: dict[str, LabelledPair]) -> None:
    """On the ADAS model-path draft "archive into meta prompt" covers two reference
    records (the archive-reuse route and the archive-context path); the analyst says
    so, and the shipped eval credits both.  ("generated code exec" covers three; the
    shipped margin credits one of them: 0.40 against 0.25 and 0.21.)"""
    pair = labelled["adas-2702bee-model"]
    j = pair.draft_ids.index("RT-BAP-archive-into-meta-prompt")
    want = {pair.gold_ids[i] for i in np.nonzero(pair.accepted[:, j])[0]}
    assert want == {"RT-RTE-archive-reuse", "RT-BAP-archive-context"}
    made = pair.made(COVERAGE)
    assert {pair.gold_ids[i] for i in np.nonzero(made[:, j])[0]} == want
    # and in all: the eval credits some draft record with several gold records
    assert int((made.sum(axis=0) >= 2).sum()) >= 2


#: The mixed-score choice (--alignment coverage-mixed), measured on the labelled pairs
#: (in sample: the choice was fitted on all of them; adjudicated labels):
#:                      record R / P      labels' R / P
#: sample               0.96 / 1.00       0.76 / 0.88
#: auto-harness         0.94 / 0.66       0.88 / 0.83
#: dgm offline          0.72 / 0.41       0.72 / 0.39
#: dgm model, model2    0.83 / 1.00, 0.72 / 0.92      1.00 / 1.00 both
#: adas model, model2   0.93 / 1.00, 0.87 / 1.00      0.93 / 1.00, 0.93 / 0.92
#: adas offline         0.60 / 0.50       0.53 / 0.50
FLOORS = {
    "sample-offline": (0.9, 0.95),
    "auto-harness-bf052bc-offline": (0.9, 0.6),
    "dgm-d88fdd6-offline": (0.7, 0.4),
    "dgm-d88fdd6-model": (0.8, 0.95),
    "dgm-d88fdd6-model2": (0.7, 0.9),
    "adas-2702bee-model": (0.9, 0.95),
    "adas-2702bee-model2": (0.85, 0.95),
}


@pytest.mark.parametrize("name", list(FLOORS))
def test_shipped_coverage_on_labelled_pairs(
    name: str, labelled: dict[str, LabelledPair], capsys: pytest.CaptureFixture[str]
) -> None:
    cov = labelled[name].coverage(COVERAGE)
    with capsys.disabled():
        print(f"\n{name}: {cov}")
    r_floor, p_floor = FLOORS[name]
    assert cov["recall"] >= r_floor and cov["precision"] >= p_floor, cov


#: The shipped rule (the default), in sample (benchmarks/loso.py --final):
#:                      record R / P      labels' R / P
#: sample               0.96 / 0.92       0.76 / 0.88
#: auto-harness         1.00 / 0.63       0.88 / 0.83
#: dgm offline          0.89 / 0.41       0.72 / 0.39
#: dgm model, model2    0.94 / 1.00, 0.89 / 1.00      1.00 / 1.00 both
#: adas model, model2   0.93 / 1.00 both  0.93 / 1.00, 0.93 / 0.92
#: adas offline         0.93 / 0.71       0.53 / 0.50   (over-credited: see the README)
RULE_FLOORS = {
    "sample-offline": (0.9, 0.9),
    "auto-harness-bf052bc-offline": (0.95, 0.6),
    "dgm-d88fdd6-offline": (0.85, 0.4),
    "dgm-d88fdd6-model": (0.9, 0.95),
    "dgm-d88fdd6-model2": (0.85, 0.95),
    "adas-2702bee-model": (0.9, 0.95),
    "adas-2702bee-model2": (0.9, 0.95),
}


@pytest.mark.parametrize("name", list(RULE_FLOORS))
def test_shipped_rule_on_labelled_pairs(
    name: str, labelled: dict[str, LabelledPair], capsys: pytest.CaptureFixture[str]
) -> None:
    from evals.rule import RULE

    cov = labelled[name].coverage(RULE)
    with capsys.disabled():
        print(f"\n{name} (rule): {cov}")
    r_floor, p_floor = RULE_FLOORS[name]
    assert cov["recall"] >= r_floor and cov["precision"] >= p_floor, cov


def test_early_offline_adas_draft_is_not_credited_far_beyond_its_labels(
    labelled: dict[str, LabelledPair],
) -> None:
    """The analyst found counterparts for 8 of 15 reference records; the mixed score may
    not call many more covered, nor call covered what no accepted link supports.  (The
    fitted rule does: 0.93 against 0.53; reported, not hidden behind a test.)"""
    pair = labelled["adas-2702bee-offline"]
    cov = pair.coverage(COVERAGE)
    assert cov["recall"] <= cov["label_recall"] + 0.1, cov
    assert cov["precision"] <= cov["label_precision"] + 0.1, cov


# -- leave one system out -------------------------------------------------------------

#: A small candidate list for the test (the benchmark searches the whole grid).
SMALL = [
    Choice({"text": t, "code": c, "witness": w, "path": p}, pen, th, m, g)
    for t, c, w, p in ((0.3, 0.7, 0.0, 0.0), (0.4, 0.5, 0.0, 0.1), (0.4, 0.3, 0.2, 0.1))
    for pen in (0.0, 0.2)
    for th in (0.15, 0.25)
    for m in (0.05, 0.1)
    for g in (None, 0.4)
]


def test_leave_one_out_never_fits_on_the_held_out_system(
    labelled: dict[str, LabelledPair], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[set[str]] = []
    real_fit = fitmod.fit

    def spy(train: list[LabelledPair], candidates: list[Choice] | None = None) -> Choice:
        seen.append({p.system for p in train})
        return real_fit(train, candidates)

    monkeypatch.setattr(fitmod, "fit", spy)
    pairs = list(labelled.values())
    fitted = FITTED
    rows = leave_one_out(pairs, fitted, SMALL)
    assert [r.system for r in rows] == SYSTEMS
    for row, systems in zip(rows, seen, strict=True):
        assert row.system not in systems and len(systems) == len(SYSTEMS) - 1
    # the held-out figures are those of the choice fitted without them
    for row in rows:
        test = [p for p in pairs if p.system == row.system and p.name in fitted]
        counts = sum((p.counts(row.choice) for p in test), np.zeros(9, dtype=np.int64))
        assert Agreement.of(counts) == row.agreement


#: Measured with benchmarks/loso.py (whole grid), link P/R and claim P/R held out;
#: see the README.  Floors here are for the small test grid.
def test_leave_one_system_out_agreement(
    labelled: dict[str, LabelledPair], capsys: pytest.CaptureFixture[str]
) -> None:
    pairs = list(labelled.values())
    rows = leave_one_out(pairs, FITTED, SMALL)
    with capsys.disabled():
        for r in rows:
            a = r.agreement
            print(
                f"\nheld out {r.system}: link {a.link_p:.2f}/{a.link_r:.2f} "
                f"gold {a.gold_p:.2f}/{a.gold_r:.2f} draft {a.draft_p:.2f}/{a.draft_r:.2f}"
            )
    for r in rows:
        assert r.agreement.gold_r >= 0.65 and r.agreement.gold_p >= 0.65, r


# -- equivalent witnesses -------------------------------------------------------------


def _lw(path: str, quote: str, start: int = 1) -> LocatedWitness:
    v = Verification(
        status=VerifyStatus("verified"),
        lines=LineRange(start=start, end=start + quote.count("\n")),
        occurrences=1,
        revision="0" * 40,
    )
    w = Witness(quote=quote, path=path)
    return LocatedWitness(w, "RT-RTE-x", "RT-RTE", v, 0, text=fingerprint(quote))


LOOP = "for attempt in range(debug_max):\n    response = get_json_response(msg)"


def test_equivalent_witness_by_hand() -> None:
    gold = _lw("_mgsm/search.py", LOOP, 100)
    assert _lw("_arc/search.py", "    for attempt  in range(debug_max):", 90).equivalent(gold)
    assert not _lw("_arc/search.py", "x = 1\nreturn x").equivalent(gold)  # other text
    assert not _lw("_arc/other.py", LOOP).equivalent(gold)  # not a copy of that file
    assert not _lw("_mgsm/search.py", LOOP, 300).equivalent(gold)  # same path: not a copy
    assert fingerprint("  )\n  else:\n") == frozenset()  # short lines say nothing


def test_line_recall_reports_exact_and_equivalent_hits_apart() -> None:
    from evals.alignment import KindAlignment
    from evals.metrics import score

    gold = [_lw("_mgsm/search.py", LOOP, 100), _lw("_mgsm/search.py", "a_unique_line = 12345", 5)]
    draft = [_lw("_arc/search.py", LOOP, 80), _lw("_mgsm/search.py", "a_unique_line = 12345", 5)]
    hits = witness_hits(gold, draft)
    assert hits.gold_equivalent == [True, False]  # the exact hit is not also equivalent
    _, overall = score({"RT-RTE": KindAlignment("RT-RTE")}, hits)
    assert (overall.line_recall, overall.equivalent_recall) == (0.5, 0.5)
    assert overall.draft_equivalent_hits == 1 and overall.draft_line_hits == 1


def test_adas_model_draft_has_equivalent_hits(
    labelled: dict[str, LabelledPair], gold_dir: Path
) -> None:
    """Saved fingerprints make sibling copies visible without the repository: on the
    ADAS model draft some reference witnesses are quoted only in another folder's copy."""
    from evals.gold import load
    from evals.located import cached_fingerprint, cached_locate
    from evals.witnesses import locate_report

    labels = labelled["adas-2702bee-model"].labels
    gold = load(labels.gold_path(gold_dir), "gold")
    draft = load(labels.draft_path, "draft")
    saved = DATA / "adas-2702bee-model.locations.json"
    loc, text = cached_locate(saved), cached_fingerprint(saved)
    hits = witness_hits(
        locate_report(gold, loc, text=text).all(), locate_report(draft, loc, text=text).all()
    )
    assert sum(hits.gold_equivalent) >= 3


# -- labels in the analysts' form -----------------------------------------------------


def _gold_form(tmp_path: Path, entries: list[dict[str, object]]) -> LabelSet:
    f = tmp_path / "g.labels.json"
    f.write_text(
        json.dumps(
            {"name": "g", "gold": "sample", "draft": "d.json", "revision": "0" * 40}
            | {"gold_records": entries}
        )
    )
    return load_labels(f)


def test_gold_form_labels(tmp_path: Path) -> None:
    labels = _gold_form(
        tmp_path,
        [
            {"gold": "g1", "best": "d1", "also": ["d2"]},
            {"gold": "g2", "best": "d1", "also": []},
            {"gold": "g3", "best": None, "also": []},
        ],
    )
    assert labels.answers == {"d1": ("g1", "g2"), "d2": ("g1",)}
    assert labels.links == {("g1", "d1"), ("g2", "d1"), ("g1", "d2")}
    assert labels.gold_labelled == {"g1", "g2", "g3"}
    with pytest.raises(BadInput, match="labelled twice"):
        _gold_form(tmp_path, [{"gold": "g1", "best": None}, {"gold": "g1", "best": "d1"}])


def test_gold_form_must_label_every_gold_record(gold_dir: Path) -> None:
    from evals.gold import load

    labels = load_labels(DATA / "adas-2702bee-model.labels.json")
    gold = load(labels.gold_path(gold_dir), "gold")
    draft = load(labels.draft_path, "draft")
    check_complete(labels, gold, draft)
    trimmed = LabelSet(
        labels.name,
        labels.path,
        labels.gold,
        labels.draft,
        labels.repository,
        labels.revision,
        labels.answers,
        labels.gold_labelled - {"RT-CLM-fitness-definition"} if labels.gold_labelled else None,
    )
    with pytest.raises(BadInput, match="unlabelled gold ID"):
        check_complete(trimmed, gold, draft)


def test_score_table_says_what_each_count_counts() -> None:
    """Issue 24, point 5: with one draft record covering two gold records the table
    showed "matched 2" beside "draft 1"; it now shows found (gold records covered),
    covering (draft records that cover) and links apart, and found never exceeds gold."""
    from drafter.model import Record
    from evals.alignment import KindAlignment, Pair
    from evals.metrics import WitnessHits, score
    from evals.scorecard import score_cells

    g1, g2 = Record(id="RT-CMP-a", label="a"), Record(id="RT-CMP-b", label="b")
    d = Record(id="RT-CMP-x", label="x")
    ka = KindAlignment("RT-CMP", gold=[0, 1], draft=[0])
    ka.pairs = [Pair(g1, d, 0, 0, 0.5, 0.5, None), Pair(g2, d, 1, 0, 0.4, 0.4, None)]
    kinds, overall = score({"RT-CMP": ka}, WitnessHits())
    cells = score_cells(kinds["RT-CMP"])
    # kind, gold, found, draft, covering, links, P, R
    assert cells[:8] == ["RT-CMP", "2", "2", "1", "1", "2", "1.00", "1.00"]
    assert overall.gold_matched <= overall.gold_records


def test_shipped_choice_is_the_fit_on_every_labelled_system(
    labelled: dict[str, LabelledPair],
) -> None:
    """COVERAGE is what benchmarks/loso.py --final fits on all labelled systems (the
    whole grid), not a hand-tuned variant of it."""
    from evals.fit import fit

    train = [labelled[n] for n in FITTED]
    assert fit(train) == COVERAGE


# -- the fitted decision rule ----------------------------------------------------------


def test_rule_leave_one_out_never_fits_on_the_held_out_system(
    labelled: dict[str, LabelledPair], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Neither the outer fit nor any inner one (the family and penalty choice) sees the
    held-out system; the held-out figures are those of the rule fitted without it."""
    from evals import rule as rulemod

    outer: list[set[str]] = []
    inner: list[set[str]] = []
    real_fit_rule, real_fit_family = fitmod.fit_rule, rulemod.fit_family

    def spy_outer(
        train: list[LabelledPair],
        families: list[str] | None = None,
        mixed_grid: list[Choice] | None = None,
        with_mixed: bool = True,
    ) -> fitmod.Decider:
        outer.append({p.system for p in train})
        before = len(inner)
        out = real_fit_rule(train, families, mixed_grid, with_mixed)
        assert all(s <= outer[-1] for s in inner[before:])  # inner fits: training systems only
        return out

    def spy_inner(
        train: list[rulemod.Example], family: str, penalty: float, objective: rulemod.Objective
    ) -> rulemod.Rule:
        inner.append({ex.system for ex in train})
        return real_fit_family(train, family, penalty, objective)

    monkeypatch.setattr(fitmod, "fit_rule", spy_outer)
    monkeypatch.setattr(rulemod, "fit_family", spy_inner)
    pairs = list(labelled.values())
    rows = leave_one_out_rule(pairs, FITTED, ["parts", "parts+rank"], SMALL)
    assert [r.system for r in rows] == SYSTEMS
    for row, systems in zip(rows, outer, strict=True):
        assert systems == set(SYSTEMS) - {row.system}
    # the family was itself chosen leaving one training system out
    assert any(len(s) == len(SYSTEMS) - 2 for s in inner)
    for row in rows:
        test = [p for p in pairs if p.system == row.system and p.name in FITTED]
        counts = sum((p.counts(row.rule) for p in test), np.zeros(9, dtype=np.int64))
        assert Agreement.of(counts) == row.agreement


def test_shipped_decision_is_the_fit_on_every_labelled_system(
    labelled: dict[str, LabelledPair],
) -> None:
    """The default coverage decision is what benchmarks/loso.py --final chooses (logistic
    families and the mixed score competing by leave-one-system-out) and fits on all
    labelled systems."""
    from evals.choices import DEFAULT_DECISION, RULE_THRESHOLD
    from evals.fit import fit_rule
    from evals.rule import RULE, Rule

    got = fit_rule([labelled[n] for n in FITTED])
    if DEFAULT_DECISION == "mixed":
        assert got == COVERAGE
        return
    assert isinstance(got, Rule) and RULE.threshold == RULE_THRESHOLD
    assert (got.family, got.features, got.penalty) == (RULE.family, RULE.features, RULE.penalty)
    assert (got.threshold, got.margin, got.gold_threshold) == (
        RULE.threshold,
        RULE.margin,
        RULE.gold_threshold,
    )
    for a, b in ((got.coef, RULE.coef), (got.mean, RULE.mean), (got.scale, RULE.scale)):
        assert a == pytest.approx(b, abs=1e-5)
    assert got.intercept == pytest.approx(RULE.intercept, abs=1e-5)
