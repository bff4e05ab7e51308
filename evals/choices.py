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
#: What decides the default coverage links: "rule" (evals.rule.RULE, a logistic model)
#: or "mixed" (evals.coverage.COVERAGE, a threshold on one mixed score) -- whichever
#: ``benchmarks/loso.py --final`` chose on every labelled system (a test checks).
DEFAULT_DECISION = "rule"
#: Probability threshold of the default coverage rule (evals.rule.RULE; a test checks the
#: two agree).
RULE_THRESHOLD = 0.85
#: The one-to-one method's own threshold (calibrated on the sample before labels existed).
ONE_TO_ONE_THRESHOLD = 0.35
#: Record alignment methods, and the default.
METHODS = ("coverage", "coverage-mixed", "best-gold", "one-to-one")
DEFAULT_METHOD = "coverage"
#: Text similarity backends (the keys of evals.similarity.BACKENDS).
BACKEND_NAMES = ("embed", "lexical")

#: Held-out agreement with analysts' labels, from ``benchmarks/loso.py`` (the default
#: rule, evals.rule, chosen and fitted on the other systems, reported on this one):
#: system -> link, "gold record is covered" and "draft record covers" precision and
#: recall (see evals.fit.Agreement).  Shown by ``drafter eval --help`` and the README.
HELD_OUT: dict[str, dict[str, float]] = {
    "sample": {
        "link_p": 0.55,
        "link_r": 0.82,
        "gold_p": 0.75,
        "gold_r": 0.95,
        "draft_p": 0.85,
        "draft_r": 0.96,
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
        "link_p": 0.69,
        "link_r": 0.60,
        "gold_p": 0.88,
        "gold_r": 0.76,
        "draft_p": 0.73,
        "draft_r": 0.90,
    },
    "adas": {
        "link_p": 0.57,
        "link_r": 0.82,
        "gold_p": 0.81,
        "gold_r": 0.94,
        "draft_p": 0.73,
        "draft_r": 0.88,
    },
}
