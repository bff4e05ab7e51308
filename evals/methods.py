"""Choosing an alignment method by name: coverage (the default: the fitted decision rule
of evals.rule over evals.coverage's parts), or those kept for comparison (coverage-mixed:
a threshold on one mixed score, evals.coverage.COVERAGE; best-gold and one-to-one,
evals.alignment).

Why a module of its own: coverage is built on the alignment's types, so the dispatch that
names all three lives above both, and neither imports the other back.
"""

from __future__ import annotations

from dataclasses import replace

from drafter.errors import BadInput
from evals.alignment import (
    DEFAULT_THRESHOLD,
    METHODS,
    ONE_TO_ONE_THRESHOLD,
    KindAlignment,
    Side,
    align,
    align_best_gold,
)
from evals.choices import DEFAULT_DECISION
from evals.coverage import COVERAGE, align_coverage, align_rule
from evals.rule import RULE
from evals.similarity import TextSimilarity
from evals.structure import CodeMap


def align_with(
    method: str,
    gold: Side,
    draft: Side,
    text_similarity: TextSimilarity,
    threshold: float | None = None,
    code_map: CodeMap | None = None,
) -> dict[str, KindAlignment]:
    """Dispatch to the named alignment method with its own default threshold (the
    code map feeds the call-path part of coverage and best-gold; one-to-one ignores it)."""
    if method == "coverage" and DEFAULT_DECISION == "rule":
        rule = RULE if threshold is None else replace(RULE, threshold=threshold)
        return align_rule(gold, draft, text_similarity, rule, code_map=code_map)
    if method in ("coverage", "coverage-mixed"):
        choice = COVERAGE if threshold is None else COVERAGE.with_threshold(threshold)
        return align_coverage(gold, draft, text_similarity, choice, code_map=code_map)
    if method == "one-to-one":
        th = ONE_TO_ONE_THRESHOLD if threshold is None else threshold
        return align(gold, draft, text_similarity, threshold=th)
    if method == "best-gold":
        th = DEFAULT_THRESHOLD if threshold is None else threshold
        return align_best_gold(gold, draft, text_similarity, threshold=th, code_map=code_map)
    raise BadInput(f"unknown alignment method {method!r} (choose {', '.join(METHODS)})")


def default_threshold(method: str) -> float:
    if method == "coverage" and DEFAULT_DECISION == "rule":
        return RULE.threshold
    if method in ("coverage", "coverage-mixed"):
        return COVERAGE.threshold
    return ONE_TO_ONE_THRESHOLD if method == "one-to-one" else DEFAULT_THRESHOLD
