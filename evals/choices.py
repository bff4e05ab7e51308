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
#: The one-to-one method's own threshold (calibrated on the sample before labels existed).
ONE_TO_ONE_THRESHOLD = 0.35
#: Record alignment methods, and the default.
METHODS = ("best-gold", "one-to-one")
DEFAULT_METHOD = "best-gold"
#: Text similarity backends (the keys of evals.similarity.BACKENDS).
BACKEND_NAMES = ("embed", "lexical")
