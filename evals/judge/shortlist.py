"""Which draft records the judge is shown for each reference record.

Why recall first: a draft record left off the list can never be judged to cover the
reference record, while one too many costs only a few hundred tokens of reading.  So
the list keeps every draft record the mechanical alignment linked, then the nearest
others by the mixed score down to a low floor, and stops at :data:`MAX_CANDIDATES`
so a call stays small whatever the draft's size.  On the labelled pairs a list of
eight shows the judge 0.83-1.00 of the analysts' links (six: 0.72-1.00), which caps
the judge's link recall (``benchmarks/label_agreement.py``, column "short R").
"""

from __future__ import annotations

import numpy as np

#: At most this many draft records per reference record (the bound of one call).
MAX_CANDIDATES = 8
#: A draft record scoring below this on the mixed score is not shown unless linked.
FLOOR = 0.02
#: ... nor one further than this below the reference record's best draft record.
WINDOW = 1.0


def shortlist(
    score: np.ndarray,
    linked: np.ndarray,
    *,
    limit: int = MAX_CANDIDATES,
    floor: float = FLOOR,
    window: float = WINDOW,
) -> list[list[int]]:
    """Per reference record (row), the draft indices (columns) to judge, best first:
    mechanically linked ones, then the nearest by score above ``floor`` and within
    ``window`` of the row's best, at most ``limit`` in all."""
    out: list[list[int]] = []
    for i in range(score.shape[0]):
        row = score[i]
        order = sorted(range(row.shape[0]), key=lambda j: (-float(row[j]), j))
        chosen = [j for j in order if linked[i, j]][:limit]
        best = float(row.max()) if row.size else 0.0
        for j in order:
            if len(chosen) >= limit:
                break
            if j in chosen:
                continue
            if float(row[j]) >= floor and float(row[j]) >= best - window:
                chosen.append(j)
        out.append(chosen)
    return out
