"""How well each part of the coverage score separates the analysts' links from the rest.

For every saved labelled pair (``tests/data/eval_labels/*.labels.json``) the four parts
of :func:`evals.coverage.score_parts` -- text, code, witness, path -- are computed once,
and for each part this prints

* ``AUC``: ROC AUC of the part over the (gold, draft) cells where it is known, labelled
  links against every other cell (ties count half; 0.5 is a coin, 1.0 separates);
* ``known/lk``: cells where the part is known / labelled links among them;
* ``unknown``: share of the labelled links where the part is NaN (cannot say);
* ``zero``: share of the labelled links where it is known and 0.

Rows per pair, then per system (the file name's prefix before the revision: cells of a
system's pairs pooled; ``evals.fit.discover``).  A control pair (a label file that
says ``"control"``: the same prose with every witness moved to a random record) is shown
but not pooled: its witness and path parts should sit near 0.5, which is what it is
there to show.  The labels are read only to measure the parts, never to set a rule; the
fitted weights are another script's business (benchmarks/loso.py).

    .venv/bin/python benchmarks/parts_auc.py [--similarity embed|lexical] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "eval_labels"
PARTS = ("text", "code", "witness", "path")


def auc(values: np.ndarray, positive: np.ndarray) -> float | None:
    """ROC AUC of ``values`` for ``positive`` (Mann-Whitney, ties half); None when
    either class is empty."""
    pos, neg = values[positive], values[~positive]
    if not len(pos) or not len(neg):
        return None
    # rank-sum with average ranks for ties
    order = np.argsort(np.concatenate([pos, neg]), kind="mergesort")
    allv = np.concatenate([pos, neg])[order]
    ranks = np.empty(len(allv), dtype=np.float64)
    i = 0
    while i < len(allv):
        j = i
        while j + 1 < len(allv) and allv[j + 1] == allv[i]:
            j += 1
        ranks[i : j + 1] = (i + j) / 2.0 + 1.0
        i = j + 1
    r = np.empty_like(ranks)
    r[order] = ranks
    rank_pos = r[: len(pos)].sum()
    return float((rank_pos - len(pos) * (len(pos) + 1) / 2.0) / (len(pos) * len(neg)))


@dataclass(slots=True)
class PartFigure:
    auc: float | None
    known: int
    known_links: int
    links: int
    unknown: float
    zero: float

    def cells(self) -> str:
        a = "   -  " if self.auc is None else f"{self.auc:6.3f}"
        return f"{a} {self.known:5d}/{self.known_links:<3d} {self.unknown:5.2f} {self.zero:5.2f}"


def figure(values: np.ndarray, accepted: np.ndarray) -> PartFigure:
    """The figures of one part over flattened cells (see the module text)."""
    known = ~np.isnan(values)
    links = int(accepted.sum())
    unknown = float((accepted & ~known).sum() / links) if links else 0.0
    zero = (
        float((accepted & known & (np.nan_to_num(values) == 0.0)).sum() / links) if links else 0.0
    )
    return PartFigure(
        auc(values[known], accepted[known]),
        int(known.sum()),
        int((known & accepted).sum()),
        links,
        unknown,
        zero,
    )


def main(argv: list[str] | None = None) -> int:
    from loso import default_gold_dir

    from evals.fit import discover, load_pair
    from evals.similarity import backend

    ap = argparse.ArgumentParser(prog="benchmarks/parts_auc.py", description=__doc__.split("\n")[0])
    ap.add_argument("--similarity", default="embed", choices=("embed", "lexical"))
    ap.add_argument("--gold-dir", type=Path, default=None)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--json", type=Path, help="also write the figures here")
    a = ap.parse_args(argv)
    sim = backend(a.similarity)
    started = time.perf_counter()
    found = discover(a.data)
    gold_dir = a.gold_dir or default_gold_dir()
    pairs = [load_pair(a.data, f.name, f.system, gold_dir, sim) for f in found]
    controls = {f.name for f in found if not f.fitted}
    loaded = time.perf_counter()

    rows: list[tuple[str, dict[str, PartFigure]]] = []
    pooled: dict[str, dict[str, list[np.ndarray]]] = {}
    for p in pairs:
        acc = p.accepted.ravel()
        label = f"{p.name} (control)" if p.name in controls else p.name
        rows.append((label, {k: figure(p.parts.part(k).ravel(), acc) for k in PARTS}))
        if p.name in controls:
            continue
        slot = pooled.setdefault(p.system, {k: [] for k in (*PARTS, "accepted")})
        for k in PARTS:
            slot[k].append(p.parts.part(k).ravel())
        slot["accepted"].append(acc)
    for system, slot in pooled.items():
        acc = np.concatenate(slot["accepted"])
        rows.append((f"[{system}]", {k: figure(np.concatenate(slot[k]), acc) for k in PARTS}))

    head = "   AUC  known/lk  unkn  zero"
    print(f"parts_auc ({a.similarity} similarity): per part, labelled links vs other pairs")
    print(f"{'pair':<39}" + "".join(f" | {k:^26}" for k in PARTS))
    print(f"{'':<39}" + f" | {head}" * len(PARTS))
    for name, figs in rows:
        print(f"{name:<39}" + "".join(f" | {figs[k].cells()}" for k in PARTS))
    print(f"timing: load+score parts {loaded - started:.1f} s")
    if a.json:
        out = {
            name: {
                k: {
                    "auc": f.auc,
                    "known": f.known,
                    "known_links": f.known_links,
                    "links": f.links,
                    "unknown": round(f.unknown, 4),
                    "zero": round(f.zero, 4),
                }
                for k, f in figs.items()
            }
            for name, figs in rows
        }
        a.json.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
