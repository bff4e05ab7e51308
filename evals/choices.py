"""The choices and defaults ``drafter eval`` shows in its help, in a module that imports
nothing heavy.

Why apart from :mod:`evals.alignment` and :mod:`evals.similarity`: ``drafter --help``
loads every command module, and those two load numpy, scipy and the embedder.  The
alignment re-exports its names from here, so there is still one value of each.
"""

from __future__ import annotations

#: Threshold of the default (best-gold) method; chosen on the labelled sample pair only
#: (tests/data/eval_labels/sample-offline.labels.json), see align_best_gold.
DEFAULT_THRESHOLD = 0.25
#: Threshold of the mixed-score coverage method (coverage-mixed: evals.coverage.COVERAGE,
#: fitted by benchmarks/loso.py; a test checks the two agree).
COVERAGE_THRESHOLD = 0.25
#: What decides ``--alignment coverage`` links: "rule" (evals.rule.RULE, a logistic
#: model) or "mixed" (evals.coverage.COVERAGE, a threshold on one mixed score) --
#: whichever ``benchmarks/loso.py --final`` chose on every labelled system (a test checks).
DEFAULT_DECISION = "rule"
#: Probability threshold of the default coverage rule (evals.rule.RULE; a test checks the
#: two agree).
RULE_THRESHOLD = 0.85
#: The one-to-one method's own threshold (calibrated on the sample before labels existed).
ONE_TO_ONE_THRESHOLD = 0.35
#: Record alignment methods, and the default.
METHODS = ("coverage", "coverage-mixed", "best-gold", "one-to-one")
#: The default is the mixed score, not the fitted rule the fit prefers: held out, the
#: two agree with analysts about as well, but the rule calls far more gold records
#: covered on weak drafts than analysts do, and an eval that flatters a weak draft
#: misleads more than one that under-credits a good one (the figures: the README's
#: design notes).
DEFAULT_METHOD = "coverage-mixed"
#: Text similarity backends (the keys of evals.similarity.BACKENDS).
BACKEND_NAMES = ("embed", "lexical")

#: Held-out agreement with analysts' labels, from ``benchmarks/loso.py`` (the default,
#: coverage-mixed, fitted on the other systems and reported on this one): system ->
#: link, "gold record is covered" and "draft record covers" precision and recall (see
#: evals.fit.Agreement).  Shown by ``drafter eval --help`` and the README.
HELD_OUT: dict[str, dict[str, float]] = {
    "sample": {
        "link_p": 0.51,
        "link_r": 0.93,
        "gold_p": 0.79,
        "gold_r": 1.00,
        "draft_p": 0.81,
        "draft_r": 0.91,
    },
    "auto-harness": {
        "link_p": 0.67,
        "link_r": 0.53,
        "gold_p": 1.00,
        "gold_r": 1.00,
        "draft_p": 0.78,
        "draft_r": 0.62,
    },
    "dgm": {
        "link_p": 0.80,
        "link_r": 0.51,
        "gold_p": 0.87,
        "gold_r": 0.67,
        "draft_p": 0.91,
        "draft_r": 0.71,
    },
    "adas": {
        "link_p": 0.65,
        "link_r": 0.77,
        "gold_p": 0.87,
        "gold_r": 0.92,
        "draft_p": 0.81,
        "draft_r": 0.81,
    },
}

#: How far each tier's links agree with the analysts' labels, per pair (link precision,
#: link recall, share of reference records whose covered / not-covered verdict matches),
#: measured by ``benchmarks/label_agreement.py`` on the five pairs of
#: ``benchmarks/judged.py`` DEFAULT_PAIRS (the sample, auto-harness offline, dgm model
#: path, the two shared ADAS pairs).  The one place these figures live: ``drafter eval
#: --help`` and the scorecard quote them, and the README must carry the same strings
#: (``tests/test_eval_judge.py`` checks it).  The judge's figure is rubric v4's, with a
#: reasoner playing the model through the relay; a rubric change needs a new run.
MECHANICAL_AGREEMENT = "links P 0.45-0.88, R 0.60-0.94, gold-covered verdicts 0.67-1.00"
JUDGE_AGREEMENT = "links P 0.68-0.96, R 0.65-1.00, gold-covered verdicts 0.78-1.00"
#: Share of the analysts' links whose draft record the shortlist shows the judge (the
#: ceiling of the judge's link recall), on the same five pairs.
SHORTLIST_RECALL = "1.00 of the analysts' links (at most 20 candidates per call)"
