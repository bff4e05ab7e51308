"""Search quality on a labelled query set: recall@k against chunks that must come back.

Why a module and not only a script: the benchmark prints the figure and a test asserts
it, and both must compute it the same way.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from drafter.errors import BadInput
from drafter.snapshot import Snapshot
from retrieval.index import Index
from retrieval.search import Hit, search


@dataclass(frozen=True, slots=True)
class LabelledQuery:
    """A query and the chunk that must come back: its path and a line it contains."""

    text: str
    path: str
    line: int


@dataclass(frozen=True, slots=True)
class QueryResult:
    query: LabelledQuery
    rank: int | None  # 1-based rank of the first hit containing the labelled line
    top: list[Hit]


def load_queries(path: str | Path | None = None) -> list[LabelledQuery]:
    """The labelled set (default: the one for the shipped sample)."""
    if path is None:
        raw = resources.files("retrieval").joinpath("sample_queries.toml").read_text("utf-8")
    else:
        raw = Path(path).read_text("utf-8")
    try:
        data = tomllib.loads(raw)
        return [
            LabelledQuery(str(q["text"]), str(q["path"]), int(q["line"])) for q in data["query"]
        ]
    except (tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as exc:
        raise BadInput(f"labelled query file is malformed: {exc}") from exc


def _rank(hits: list[Hit], q: LabelledQuery) -> int | None:
    for n, h in enumerate(hits, 1):
        if h.path == q.path and h.start_line <= q.line <= h.end_line:
            return n
    return None


def evaluate(
    index: Index, snapshot: Snapshot, queries: list[LabelledQuery], k: int = 5
) -> tuple[float, list[QueryResult]]:
    """Recall@k (share of queries whose labelled chunk is in the top k) and per-query rows."""
    rows = []
    for q in queries:
        hits = search(index, snapshot, q.text, k=k)
        rows.append(QueryResult(q, _rank(hits, q), hits))
    found = sum(1 for r in rows if r.rank is not None)
    return (found / len(rows) if rows else 0.0), rows
