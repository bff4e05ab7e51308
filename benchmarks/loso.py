"""Leave one system out: fit the coverage rule on the other labelled systems, then
report its agreement with the analysts' labels on the held-out one.

The labelled pairs are the saved ones in tests/data/eval_labels/ (sample, auto-harness,
dgm, ADAS; the witness-shuffled auto-harness draft is reported but never fitted on, it
is the same system's prose).  For each system, :func:`evals.fit.leave_one_out` chooses
weights, cross-kind penalty, threshold and margin on the other systems' pairs and only
then counts the held-out links; no held-out figure is computed before its choice is
fixed.  ``--final`` also fits on every system (the choice shipped as
``evals.coverage.COVERAGE``) and prints its per-pair figures, which are in-sample.

    .venv/bin/python benchmarks/loso.py [--final] [--similarity embed|lexical]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from evals.fit import Agreement

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "eval_labels"
GOLD = ROOT.parent.parent / "shared" / "gold"

#: (pair name, system, fitted on): every labelled pair.
PAIRS = (
    ("sample-offline", "sample", True),
    ("auto-harness-bf052bc-offline", "auto-harness", True),
    ("auto-harness-bf052bc-shuffled", "auto-harness", False),
    ("dgm-d88fdd6-offline", "dgm", True),
    ("adas-2702bee-model", "adas", True),
    ("adas-2702bee-offline", "adas", True),
)


def _cells(a: Agreement) -> str:
    values = (a.link_p, a.link_r, a.gold_p, a.gold_r, a.draft_p, a.draft_r)
    return "  ".join(f"{v:6.2f}" for v in values)


def main(argv: list[str] | None = None) -> int:
    from evals.coverage import COVERAGE
    from evals.fit import fit, leave_one_out, load_pair, system_agreement
    from evals.similarity import backend

    ap = argparse.ArgumentParser(prog="benchmarks/loso.py", description=__doc__.split("\n")[0])
    ap.add_argument("--final", action="store_true", help="also fit on every system")
    ap.add_argument("--similarity", default="embed", choices=("embed", "lexical"))
    ap.add_argument("--gold-dir", type=Path, default=GOLD)
    a = ap.parse_args(argv)
    sim = backend(a.similarity)
    started = time.perf_counter()
    pairs = [load_pair(DATA, name, system, a.gold_dir, sim) for name, system, _ in PAIRS]
    fitted = [name for name, _, f in PAIRS if f]
    loaded = time.perf_counter()
    rows = leave_one_out(pairs, fitted)
    done = time.perf_counter()
    print(f"leave one system out ({a.similarity} similarity): fitted on the other systems")
    head = "link P  link R  gold P  gold R  draft P draft R"
    print(f"{'held out':<32} {head}")
    for row in rows:
        print(f"{row.system:<32} {_cells(row.agreement)}")
        for name, agr in row.pairs.items():
            print(f"  {name:<30} {_cells(agr)}")
        print(f"  choice: {row.choice.describe()}")
    worst = min(r.agreement.claims_worst for r in rows)
    worst_link = min(min(r.agreement.link_p, r.agreement.link_r) for r in rows)
    print(f"worst held-out claim figure {worst:.2f}, worst held-out link figure {worst_link:.2f}")
    print(f"timing: load+score parts {loaded - started:.1f} s, fits {done - loaded:.1f} s")
    if a.final:
        train = [p for p in pairs if p.name in fitted]
        choice = fit(train)
        print(f"\nfitted on every system: {choice.describe()}")
        print(f"shipped (evals.coverage.COVERAGE): {COVERAGE.describe()}")
        for name, agr in system_agreement(train, COVERAGE).items():
            print(f"  shipped, in sample {name:<16} {_cells(agr)}")
        for p in pairs:
            cov = p.coverage(COVERAGE)
            print(
                f"  {p.name:<32} shipped: record R {cov['recall']:.2f} P {cov['precision']:.2f}"
                f"  (labels: R {cov['label_recall']:.2f} P {cov['label_precision']:.2f})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
