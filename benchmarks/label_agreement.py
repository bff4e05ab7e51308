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

It first runs the judged eval (:mod:`evals.judge`) over every labelled pair: those of
``tests/data/eval_labels/`` (witnesses from their saved locations) and the analysts'
shared pairs of ``../shared/labels/`` (witnesses verified at the revision in the bare
mirror under ``--mirrors``), and prints, judge and mechanical tier side by side, link
precision and recall and "gold record is covered" agreement against the labels, with
the calls and cost of each pair (cached answers cost nothing; their cost when asked is
shown).  Without ANTHROPIC_API_KEY only cached answers are used, and a pair with an
uncached request is reported as not judged.  ``--estimate`` prints what judging each
pair would take and sends nothing.

    .venv/bin/python benchmarks/label_agreement.py --judge-only [--pairs NAME ... | all] [--why]

``--pairs`` chooses the pairs (default: the five the issue names, ``judged.DEFAULT_PAIRS``;
``all``: every labelled pair).  Requests go one at a time (``--workers 1``), oldest
first, so a reasoner can play the model through ``../shared/tools/relay``:

    ANTHROPIC_API_KEY=relay ANTHROPIC_BASE_URL=http://127.0.0.1:PORT DRAFTER_RETRIES=20 \
      .venv/bin/python benchmarks/label_agreement.py --judge-only --why

Every answer is cached as it lands (under ``$DRAFTER_DATA_DIR/judge-cache``), so a run
stopped part way is started again with the same command and asks only the rest.
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
    ap.add_argument("--shared", type=Path, default=None, help="shared labels folder")
    ap.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    ap.add_argument(
        "--pairs",
        "--only",
        dest="pairs",
        nargs="+",
        default=None,
        help="pair names to judge (default: the five the issue names; 'all': every pair)",
    )
    ap.add_argument("--model", default=None)
    ap.add_argument("--estimate", action="store_true")
    ap.add_argument("--why", action="store_true", help="print every disagreement")
    ap.add_argument("--judge-only", action="store_true")
    ap.add_argument("--workers", type=int, default=1, help="pairs judged at once")
    ap.add_argument(
        "--similarity",
        default="embed",
        help="text similarity of the mechanical tier (embed; lexical is quicker)",
    )
    ap.add_argument(
        "--reread",
        nargs="?",
        type=Path,
        const=Path("DEFAULT"),
        default=None,
        help="also score against the labels as corrected on a blind re-reading "
        "(benchmarks/reread.py; without a file: tests/data/eval_labels/reread.json)",
    )
    a = ap.parse_args(argv)
    import judged
    import reread
    from loso import default_gold_dir

    gold_dir = a.gold_dir or default_gold_dir()
    shared = a.shared or gold_dir.parent / "labels"
    judged.report(
        DATA,
        shared,
        gold_dir,
        a.mirrors,
        a.pairs,
        a.model,
        a.estimate,
        a.why,
        a.workers,
        a.similarity,
        reread.DEFAULT if a.reread == Path("DEFAULT") else a.reread,
    )
    if a.judge_only:
        return 0
    print()
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
