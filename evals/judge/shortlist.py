"""Which draft records the judge is shown for each reference record.

Why recall first: a draft record left off the list can never be judged to cover the
reference record, while one too many costs only a few hundred tokens of reading.  The
mixed score alone missed analysts' links of three sorts: a record of another kind (a
claim covering part of a route: the cross-kind penalty pushed it down), a record
whose best reference record is this one but which sits below a crowd of similar
records (one route per benchmark), and a reference record with no witnesses of its
own whose prose names the files the draft record quotes.  So the list is built from
several views, each recall-minded, taken in turn:

1. every draft record the mechanical alignment linked;
2. draft records for which this reference record is the best match (seen from the
   draft record's side, kinds ignored);
3. then, round by round, the next best by the mixed score without the cross-kind
   penalty, by text alone, and by the files both records name or quote;

and it stops at :data:`MAX_CANDIDATES`, so one call stays bounded whatever the
draft's size.  A draft record is shown only when something ties it to the reference
record (linked, a kind-free score above :data:`FLOOR`, or a shared file): one that
shares nothing is never put in front of the judge, whatever its text says.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from drafter.model import Record
from evals.witnesses import LocatedWitness

#: At most this many draft records per reference record (the bound of one call).
MAX_CANDIDATES = 20
#: A draft record scoring below this (kind-free mixed score) is not shown unless
#: linked or sharing a file with the reference record.
FLOOR = 0.02

_PATH = re.compile(r"[A-Za-z0-9_.\-/]*[A-Za-z0-9_\-]\.[A-Za-z][A-Za-z0-9]{0,5}\b")
_SOURCE_SUFFIX = re.compile(
    r"\.(py|pyi|ts|tsx|js|jsx|mjs|go|rs|java|kt|rb|c|h|cc|cpp|hpp|cs|swift|sh|md|rst|"
    r"txt|json|jsonl|yaml|yml|toml|ini|cfg|tsv|csv|ipynb)$"
)


def named_files(record: Record, located: Sequence[LocatedWitness]) -> set[str]:
    """Paths a record quotes (its witnesses) or names in its prose, each also by its
    base name, so ``gating.py`` in a reference record's evidence line meets a draft
    witness at ``gating.py`` or ``pkg/gating.py``."""
    out: set[str] = set()
    names = [lw.path for lw in located]
    text = f"{record.label} {record.body_text()}"
    names += [m for m in _PATH.findall(text) if "/" in m or _SOURCE_SUFFIX.search(m)]
    for name in names:
        name = name.strip("./")
        if name:
            out.add(name)
            out.add(name.rsplit("/", 1)[-1])
    return out


def file_overlap(gold: Sequence[set[str]], draft: Sequence[set[str]]) -> np.ndarray:
    """Per (reference, draft) pair, the share of the draft record's files the
    reference record names too (0 when it names none of them)."""
    out = np.zeros((len(gold), len(draft)))
    for i, g in enumerate(gold):
        for j, d in enumerate(draft):
            if g and d:
                out[i, j] = len(g & d) / len(d)
    return out


def _ranked(values: np.ndarray) -> list[int]:
    return sorted(range(values.shape[0]), key=lambda j: (-float(values[j]), j))


def shortlist(
    score: np.ndarray,
    linked: np.ndarray,
    *,
    kind_free: np.ndarray | None = None,
    text: np.ndarray | None = None,
    files: np.ndarray | None = None,
    limit: int = MAX_CANDIDATES,
    floor: float = FLOOR,
) -> list[list[int]]:
    """Per reference record (row), the draft indices (columns) to judge, in the order
    of the module text, at most ``limit``.  ``kind_free`` is the mixed score without
    the cross-kind penalty (``score`` when not given), ``text`` the text similarity,
    ``files`` :func:`file_overlap`."""
    free = score if kind_free is None else kind_free
    shared = np.zeros_like(score) if files is None else files
    eligible = linked | (free >= floor) | (shared > 0)
    best_gold = free.max(axis=0) if free.size else np.zeros(score.shape[1])
    views = [v for v in (free, text, shared) if v is not None]
    out: list[list[int]] = []
    for i in range(score.shape[0]):
        chosen = [j for j in _ranked(score[i]) if linked[i, j]][:limit]
        tiers = [[j for j in _ranked(free[i]) if free[i, j] >= best_gold[j] and free[i, j] > 0]]
        rounds = [_ranked(v[i] + 1e-3 * free[i]) for v in views]
        for j in tiers[0]:
            if len(chosen) < limit and j not in chosen and eligible[i, j]:
                chosen.append(j)
        for k in range(score.shape[1]):
            for order in rounds:
                j = order[k]
                if len(chosen) < limit and j not in chosen and eligible[i, j]:
                    chosen.append(j)
        out.append(chosen)
    return out
