"""How far two labellings of the same pair agree: the ceiling for the eval's agreement.

Why: issue 22 asks the coverage eval to agree with analysts' link labels at 0.8
precision and recall.  Whether that is attainable depends on how far two careful
labellers agree with each other on the same draft and gold report.  A second
labelling, made blind to the first and to every score, is saved for some pairs in
``tests/data/eval_labels/second/`` (same file name as the first; the draft is the
first labelling's, beside the folder; once a pair is adjudicated from the two, the
file beside the draft is the adjudicated one and the first is kept in ``first/``).
This prints, for each, the second labelling's figures against the first in the terms
of ``benchmarks/loso.py`` (links, "gold record is covered", "draft record covers"), so
the two tables can be read side by side.

    .venv/bin/python benchmarks/label_agreement.py [--gold-dir DIR]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from evals.fit import Agreement

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "eval_labels"


def agreement(name: str, gold_dir: Path, data: Path = DATA) -> tuple[Agreement, int, int]:
    """The second labelling of ``name`` scored against the first, as an
    :class:`evals.fit.Agreement`, with the two link counts."""
    from evals.fit import Agreement, tally  # noqa: F811 (the runtime import)
    from evals.gold import load
    from evals.labels import check_complete, load_labels

    # Once a pair is adjudicated, the file beside the draft is the adjudicated one
    # and the first labelling is kept in first/: compare the two labellers.
    kept = data / "first" / f"{name}.labels.json"
    first = load_labels(kept if kept.is_file() else data / f"{name}.labels.json")
    second = load_labels(data / "second" / f"{name}.labels.json")
    gold = load(first.gold_path(gold_dir), "gold")
    draft = load(data / f"{name}.draft.json", "draft")
    check_complete(first, gold, draft)
    check_complete(second, gold, draft)
    g_ids = [r.id for r in gold.records]
    d_ids = [r.id for r in draft.records]

    def matrix(links: set[tuple[str, str]]) -> np.ndarray:
        return np.array([[(g, d) in links for d in d_ids] for g in g_ids], dtype=bool)

    a, b = matrix(first.links), matrix(second.links)
    return Agreement.of(tally(b, a)), int(a.sum()), int(b.sum())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="benchmarks/label_agreement.py")
    ap.add_argument("--gold-dir", type=Path, default=None)
    a = ap.parse_args(argv)
    from loso import default_gold_dir

    gold_dir = a.gold_dir or default_gold_dir()
    names = sorted(
        p.name.removesuffix(".labels.json") for p in (DATA / "second").glob("*.labels.json")
    )
    print("second labelling scored against the first (the first taken as the truth)")
    print(f"{'pair':<28} links 1st/2nd  link P  link R  gold P  gold R  draft P draft R")
    for name in names:
        agr, n1, n2 = agreement(name, gold_dir)
        cells = "  ".join(
            f"{v:6.2f}"
            for v in (agr.link_p, agr.link_r, agr.gold_p, agr.gold_r, agr.draft_p, agr.draft_r)
        )
        print(f"{name:<28} {n1:>5}/{n2:<6}  {cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
