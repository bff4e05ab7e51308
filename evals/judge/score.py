"""From judged links to a scorecard, and how far links agree with an analyst's labels.

Why the mechanical scorecard is re-scored rather than a second pipeline: record P/R,
the witness figures of aligned pairs and the content agreement all follow from the
links, so the judged card is the mechanical card with its links replaced
(:func:`rescored`), computed by the same :func:`evals.metrics.score`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from evals.alignment import Side
from evals.content import content_agreement
from evals.coverage import COVERAGE, Parts, file_links, links, mixed, score_parts
from evals.labels import LabelSet
from evals.metrics import score
from evals.scorecard import Scorecard
from evals.similarity import TextSimilarity
from evals.structure import CodeMap


@dataclass(frozen=True, slots=True)
class Mechanical:
    """The mechanical tier of a pair: its parts, mixed score and coverage-mixed links
    (the judge's shortlist starts from these)."""

    parts: Parts
    score: np.ndarray
    links: np.ndarray

    @property
    def kind_free(self) -> np.ndarray:
        """The mixed score without the cross-kind penalty: a claim may cover part of a
        route, so the shortlist must not push other kinds down."""
        out: np.ndarray = self.score + COVERAGE.cross_kind_penalty * self.parts.cross
        return out

    @property
    def text(self) -> np.ndarray:
        out: np.ndarray = np.nan_to_num(self.parts.text, nan=0.0)
        return out


def mechanical(
    gold: Side, draft: Side, text_similarity: TextSimilarity, code_map: CodeMap | None
) -> Mechanical:
    p = score_parts(gold, draft, text_similarity, code_map)
    s = mixed(p, COVERAGE.weights, COVERAGE.cross_kind_penalty)
    made = links(s, COVERAGE.threshold, COVERAGE.margin, COVERAGE.gold_threshold)
    return Mechanical(p, s, made)


def rescored(
    card: Scorecard,
    gold: Side,
    draft: Side,
    mech: Mechanical,
    made: np.ndarray,
    text_similarity: TextSimilarity,
    method: str,
) -> Scorecard:
    """``card`` with its alignment replaced by the links ``made`` and re-scored."""
    alignment = file_links(gold, draft, mech.parts, mech.score, made)
    content = content_agreement(alignment, text_similarity)
    kinds, overall = score(alignment, card.hits, content)
    return replace(
        card,
        alignment=alignment,
        content=content,
        kinds=kinds,
        overall=overall,
        method=method,
        baselines={},
        label_check=None,
        notes=list(card.notes),
    )


def label_matrix(labels: LabelSet, gold_ids: Sequence[str], draft_ids: Sequence[str]) -> np.ndarray:
    ok = labels.links
    return np.array([[(g, d) in ok for d in draft_ids] for g in gold_ids], dtype=bool)


def agreement(made: np.ndarray, accepted: np.ndarray) -> dict[str, Any]:
    """Links P/R against the labels, and "gold record is covered" agreement: the share
    of reference records on which the covered / not covered verdict matches the labels
    (a verdict of covered counts as matching only through an accepted link)."""
    ok = made & accepted
    n_made, n_acc, n_ok = int(made.sum()), int(accepted.sum()), int(ok.sum())
    covered_label = accepted.any(axis=1)
    covered_right = ok.any(axis=1)
    covered_made = made.any(axis=1)
    agree = (covered_label & covered_right) | (~covered_label & ~covered_made)
    rows = int(made.shape[0])
    return {
        "links_made": n_made,
        "links_labelled": n_acc,
        "links_right": n_ok,
        "link_p": n_ok / n_made if n_made else None,
        "link_r": n_ok / n_acc if n_acc else None,
        "gold_agree": float(agree.sum()) / rows if rows else None,
        "gold_covered_labels": int(covered_label.sum()),
        "gold_covered_made": int(covered_made.sum()),
        "gold_records": rows,
    }
