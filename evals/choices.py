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
#: Threshold of the coverage method (evals.coverage.COVERAGE, fitted by benchmarks/loso.py;
#: a test checks the two agree).
COVERAGE_THRESHOLD = 0.15
#: The one-to-one method's own threshold (calibrated on the sample before labels existed).
ONE_TO_ONE_THRESHOLD = 0.35
#: Record alignment methods, and the default.
METHODS = ("coverage", "coverage-mixed", "best-gold", "one-to-one")
DEFAULT_METHOD = "coverage"
#: Text similarity backends (the keys of evals.similarity.BACKENDS).
BACKEND_NAMES = ("embed", "lexical")

#: Held-out agreement with analysts' labels, from ``benchmarks/loso.py`` (fit on the
#: other systems, report on this one): system -> link and "gold record is covered"
#: claim precision and recall (see evals.fit.Agreement).  Shown by ``drafter eval
#: --help`` and the README; evals.coverage re-exports it.
HELD_OUT: dict[str, dict[str, float]] = {
    "sample": {"link_p": 0.63, "link_r": 0.77, "gold_p": 0.90, "gold_r": 0.82},
    "auto-harness": {"link_p": 0.57, "link_r": 0.51, "gold_p": 0.94, "gold_r": 0.94},
    "dgm": {"link_p": 0.58, "link_r": 0.50, "gold_p": 0.79, "gold_r": 0.69},
    "adas": {"link_p": 0.50, "link_r": 0.78, "gold_p": 0.72, "gold_r": 0.82},
}
