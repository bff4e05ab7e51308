"""Table recall for epistemic reports: Coverage paths, inventory and ledger rows.

Record alignment and witness metrics of ``EPI-OBJ``/``EPI-RTE`` come from the shared
scorecard (:mod:`evals.alignment`, :mod:`evals.metrics`); this module scores what
only an epistemic report has — its tables.

- **Coverage source paths**: the set of paths in the gold's "Source path" column
  found in the draft's (recall) and the draft's found in the gold's (precision).
- **Inventory and ledger rows**: gold rows paired one to one with draft rows by an
  optimal assignment.  A pair scores 1.0 when the row IDs are equal or the two IDs
  are records the scorecard aligned; otherwise the mean of the rows' text similarity
  and the overlap of their cited paths.  Pairs below the threshold are unmatched,
  as in record alignment, so unrelated rows are never credited.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy.optimize import linear_sum_assignment

from drafter.cellcheck import row_paths
from drafter.model import Report, Table
from evals.alignment import DEFAULT_THRESHOLD, KindAlignment
from evals.metrics import f1, ratio
from evals.similarity import TextSimilarity, lexical_similarity

if TYPE_CHECKING:  # evals.scorecard imports this module lazily; these name types only
    from rich.table import Table as RichTable

    from evals.scorecard import Scorecard

TABLES = {
    "coverage": "Coverage",
    "inventory": "Epistemic-object inventory",
    "ledger": "Authority-route ledger",
}


@dataclass
class TableScore:
    name: str
    gold: int
    draft: int
    matched: int
    recall: float | None
    precision: float | None
    f1: float | None


def table_of(report: Report, title: str) -> Table | None:
    for section in report.account:
        if section.title == title and section.tables:
            return section.tables[0]
    return None


def coverage_paths(report: Report) -> set[str]:
    t = table_of(report, TABLES["coverage"])
    return {p for row in t.rows for p in row_paths(t, row)} if t else set()


def _score(name: str, gold: int, draft: int, matched: int) -> TableScore:
    r, p = ratio(matched, gold), ratio(matched, draft)
    return TableScore(name, gold, draft, matched, r, p, f1(p, r))


def coverage_score(gold: Report, draft: Report) -> TableScore:
    g, d = coverage_paths(gold), coverage_paths(draft)
    return _score("coverage paths", len(g), len(d), len(g & d))


def aligned_ids(alignment: dict[str, KindAlignment] | None) -> set[tuple[str, str]]:
    """(gold ID, draft ID) of every record pair the scorecard aligned."""
    if not alignment:
        return set()
    return {(p.gold.id, p.draft.id) for ka in alignment.values() for p in ka.pairs}


def _row_ids(row: list[str]) -> set[str]:
    from drafter.cellcheck import CELL_ID_RE

    return set(CELL_ID_RE.findall(row[0])) if row else set()


def match_rows(
    gold: Table,
    draft: Table,
    pairs: set[tuple[str, str]],
    similarity: TextSimilarity = lexical_similarity,
    threshold: float = DEFAULT_THRESHOLD,
) -> int:
    """How many gold rows pair one to one with a draft row at or above ``threshold``."""
    if not gold.rows or not draft.rows:
        return 0
    text = np.asarray(
        similarity(["\t".join(r) for r in gold.rows], ["\t".join(r) for r in draft.rows]),
        dtype=np.float64,
    )
    score = np.zeros_like(text)
    for a, g in enumerate(gold.rows):
        gids, gpaths = _row_ids(g), set(row_paths(gold, g))
        for b, d in enumerate(draft.rows):
            dids = _row_ids(d)
            if gids & dids or any((x, y) in pairs for x in gids for y in dids):
                score[a, b] = 1.0
                continue
            dpaths = set(row_paths(draft, d))
            overlap = len(gpaths & dpaths) / len(gpaths | dpaths) if gpaths | dpaths else 0.0
            score[a, b] = (float(text[a, b]) + overlap) / 2.0
    rows, cols = linear_sum_assignment(score, maximize=True)
    return sum(1 for a, b in zip(rows, cols, strict=True) if score[a, b] + 1e-12 >= threshold)


def row_score(name: str, gold: Report, draft: Report, pairs: set[tuple[str, str]]) -> TableScore:
    g, d = table_of(gold, TABLES[name]), table_of(draft, TABLES[name])
    ng, nd = (len(g.rows) if g else 0), (len(d.rows) if d else 0)
    matched = match_rows(g, d, pairs) if g and d else 0
    return _score(f"{name} rows", ng, nd, matched)


def table_scores(
    gold: Report, draft: Report, alignment: dict[str, KindAlignment] | None = None
) -> list[TableScore]:
    """Coverage path, inventory row and ledger row scores of ``draft`` against ``gold``."""
    pairs = aligned_ids(alignment)
    return [
        coverage_score(gold, draft),
        row_score("inventory", gold, draft, pairs),
        row_score("ledger", gold, draft, pairs),
    ]


def as_dicts(scores: list[TableScore]) -> list[dict[str, object]]:
    return [asdict(s) for s in scores]


def rich_table(scores: list[TableScore]) -> RichTable:
    from rich.table import Table as RichTable

    from evals.scorecard import fmt

    t = RichTable(title="Epistemic tables")
    for col in ("table", "gold", "draft", "matched", "recall", "precision", "F1"):
        t.add_column(col, justify="left" if col == "table" else "right")
    for s in scores:
        t.add_row(
            s.name,
            str(s.gold),
            str(s.draft),
            str(s.matched),
            fmt(s.recall),
            fmt(s.precision),
            fmt(s.f1),
        )
    return t


def with_tables(card: Scorecard) -> tuple[str, RichTable | None]:
    """The scorecard's JSON, with ``epistemic_tables`` added when the gold is epistemic,
    and a rich table of those scores (None for runtime reports)."""
    import json

    if card.gold.type != "epistemic":
        return card.to_json(), None
    scores = table_scores(card.gold, card.draft, card.alignment)
    data = json.loads(card.to_json())
    data["epistemic_tables"] = as_dicts(scores)
    return json.dumps(data, indent=2) + "\n", rich_table(scores)
