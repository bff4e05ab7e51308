"""Leave one system out: fit the coverage decision on the other labelled systems, then
report its agreement with the analysts' labels on the held-out one.

The labelled pairs are every ``tests/data/eval_labels/*.labels.json``; a pair's system
is its name up to the revision (``evals.fit.discover``), and a label file that says
``"control"`` (the witness-shuffled auto-harness draft) is reported but never fitted
on.  For each system the rule is chosen and fitted on the other systems' pairs only
(``evals.fit.leave_one_out_rule``: the family of features and the model's penalty are
themselves chosen by leave-one-system-out inside those), and only then are the
held-out links counted.  ``--method mixed`` does the same for the earlier rule (a
threshold on one mixed score, ``evals.fit.leave_one_out``); ``both`` prints both.
``--final`` also fits on every system (the rule shipped as ``evals.rule.RULE``) and
prints each pair's record R/P under it, which are in-sample.

    .venv/bin/python benchmarks/loso.py [--final] [--method rule|mixed|both]
        [--similarity embed|lexical] [--gold-dir DIR]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from evals.fit import Agreement, LabelledPair

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "eval_labels"


def default_gold_dir(start: Path = ROOT) -> Path:
    """``shared/gold`` in the nearest folder above the checkout that has one (from
    /work/main and from a worktree under /work/wt alike), else ``../shared/gold``."""
    for parent in (start, *start.parents):
        if (parent / "shared" / "gold").is_dir():
            return parent / "shared" / "gold"
    return start.parent / "shared" / "gold"


HEAD = "link P  link R  gold P  gold R  draft P draft R"


def _cells(a: Agreement) -> str:
    values = (a.link_p, a.link_r, a.gold_p, a.gold_r, a.draft_p, a.draft_r)
    return "  ".join(f"{v:6.2f}" for v in values)


def _table(title: str, rows: Sequence[tuple[str, Agreement, dict[str, Agreement], str]]) -> None:
    print(title)
    print(f"{'held out':<32} {HEAD}")
    for system, pooled, pairs, described in rows:
        print(f"{system:<32} {_cells(pooled)}")
        if len(pairs) > 1:
            for name, agr in pairs.items():
                print(f"  {name:<30} {_cells(agr)}")
        print(f"  choice: {described}")
    worst_claim = min(r[1].claims_worst for r in rows)
    worst_link = min(min(r[1].link_p, r[1].link_r) for r in rows)
    print(f"worst held-out claim figure {worst_claim:.2f}, link figure {worst_link:.2f}")


def _record_figures(pairs: Sequence[LabelledPair], label: str, decide: object) -> None:
    for p in pairs:
        cov = p.coverage(decide)  # type: ignore[arg-type]
        print(
            f"  {p.name:<32} {label}: record R {cov['recall']:.2f} P {cov['precision']:.2f}"
            f"  (labels: R {cov['label_recall']:.2f} P {cov['label_precision']:.2f})"
        )


def _write_rule(chosen: object) -> None:
    """Ship ``chosen``: a logistic rule replaces the RULE literal that ends
    evals/rule.py; either way evals/choices.py's DEFAULT_DECISION (and RULE_THRESHOLD)
    follow.  A mixed-score choice is evals.coverage.COVERAGE, which a test checks."""
    import re

    from evals.rule import Rule

    choices = ROOT / "evals" / "choices.py"
    text = choices.read_text(encoding="utf-8")
    kind = "rule" if isinstance(chosen, Rule) else "mixed"
    text = re.sub(r'DEFAULT_DECISION = "\w+"', f'DEFAULT_DECISION = "{kind}"', text)
    if isinstance(chosen, Rule):
        text = re.sub(r"RULE_THRESHOLD = [0-9.]+", f"RULE_THRESHOLD = {chosen.threshold}", text)
        path = ROOT / "evals" / "rule.py"
        body = path.read_text(encoding="utf-8")
        head = body[: body.index("RULE = Rule(")]
        path.write_text(f"{head}RULE = {chosen.rounded()!r}\n", encoding="utf-8")
    choices.write_text(text, encoding="utf-8")
    print(f"shipped as {kind} (run ruff format on evals/rule.py)")


def main(argv: list[str] | None = None) -> int:
    from evals.choices import DEFAULT_DECISION
    from evals.coverage import COVERAGE
    from evals.fit import discover, fit, fit_rule, leave_one_out, leave_one_out_rule, load_pair
    from evals.rule import RULE, Rule
    from evals.similarity import backend

    ap = argparse.ArgumentParser(prog="benchmarks/loso.py", description=__doc__.split("\n")[0])
    ap.add_argument("--final", action="store_true", help="also fit on every system")
    ap.add_argument("--method", default="rule", choices=("rule", "mixed", "both"))
    ap.add_argument("--similarity", default="embed", choices=("embed", "lexical"))
    ap.add_argument("--gold-dir", type=Path, default=None, help="default: shared/gold above")
    ap.add_argument(
        "--write-rule",
        action="store_true",
        help="with --final: write the rule fitted on every system into evals/rule.py as RULE",
    )
    a = ap.parse_args(argv)
    gold_dir = a.gold_dir or default_gold_dir()
    if not gold_dir.is_dir():
        print(f"error: no gold folder {gold_dir} (give --gold-dir)", file=sys.stderr)
        return 2
    sim = backend(a.similarity)
    started = time.perf_counter()
    found = discover(DATA)
    pairs = [load_pair(DATA, f.name, f.system, gold_dir, sim) for f in found]
    fitted = [f.name for f in found if f.fitted]
    controls = [f.name for f in found if not f.fitted]
    print(f"{len(pairs)} labelled pairs, {len(fitted)} fitted on; controls: {controls or 'none'}")
    loaded = time.perf_counter()
    if a.method in ("mixed", "both"):
        mixed_rows = leave_one_out(pairs, fitted)
        _table(
            f"\nleave one system out, mixed score (coverage-mixed; {a.similarity} similarity)",
            [(r.system, r.agreement, r.pairs, r.choice.describe()) for r in mixed_rows],
        )
    if a.method in ("rule", "both"):
        rule_rows = leave_one_out_rule(pairs, fitted)
        _table(
            f"\nleave one system out, fitted rule (coverage; {a.similarity} similarity)",
            [(r.system, r.agreement, r.pairs, r.rule.describe()) for r in rule_rows],
        )
        print("record R/P as the scorecard reports them, each pair under its held-out rule:")
        for r in rule_rows:
            _record_figures([p for p in pairs if p.system == r.system], "held out", r.rule)
    done = time.perf_counter()
    print(f"timing: load+score parts {loaded - started:.1f} s, fits {done - loaded:.1f} s")
    if a.final:
        train = [p for p in pairs if p.name in fitted]
        if a.method in ("mixed", "both"):
            print(f"\nmixed, fitted on every system: {fit(train).describe()}")
            print(f"shipped (evals.coverage.COVERAGE): {COVERAGE.describe()}")
            _record_figures(pairs, "coverage-mixed shipped", COVERAGE)
        if a.method in ("rule", "both"):
            chosen = fit_rule(train)
            print(f"\ndecision chosen and fitted on every system: {chosen.describe()}")
            if isinstance(chosen, Rule):
                print(f"  {chosen.rounded()!r}")
            shipped = RULE if DEFAULT_DECISION == "rule" else COVERAGE
            print(f"shipped ({DEFAULT_DECISION}): {shipped.describe()}")
            if a.write_rule:
                _write_rule(chosen)
            _record_figures(pairs, "coverage shipped", shipped)
    return 0


if __name__ == "__main__":
    sys.exit(main())
