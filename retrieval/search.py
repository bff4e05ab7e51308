"""Hybrid search over one revision's collection: dense vectors plus BM25 on identifiers.

Why hybrid: a sentence model knows what code is *about* but blurs identifiers, and in
code the identifier is often the whole question (``exec_module``, ``TOOL_REGISTRY``).
BM25 over identifier tokens (split at ``_`` and camelCase, with the whole identifier
kept too) finds those exactly; reciprocal-rank fusion merges the two rankings without
having to calibrate their scores against each other.

The lexical index is built from the revision's chunk plan (:meth:`Index.lexical`: the
files an analyst reads, whole, plus the bounded opening parts of data, logs and
results) on the first search in a process, so word matches are ready at once while the
dense vectors are still being embedded; dense hits join as their chunks are stored.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Any

import numpy as np

from drafter.errors import BadInput
from drafter.snapshot import Snapshot
from retrieval.embeddings import embed
from retrieval.index import Index
from retrieval.lexical import Lexical, terms

RRF_K = 60
#: Weight of a lexical-only chunk (the opening part of a data, log or results file) in
#: the fused ranking: found when nothing read matches, never crowding code out.
HEAD_WEIGHT = 0.5
DENSE_POOL = 50
LEXICAL_POOL = 50
_PAGE = 2000

_STOP = frozenset(
    "a an and are as at be by do does for from how in is it of on or the this that to "
    "what where which who why with when into its can".split()
)


class NotIndexed(BadInput):
    """Search was asked of a revision that has no complete index."""


@dataclass(frozen=True, slots=True)
class Hit:
    """One ranked chunk.  ``line`` is the line that best matches the query."""

    path: str
    start_line: int
    end_line: int
    symbol: str
    score: float
    snippet: str
    text: str
    kind: str = ""
    line: int = 0
    dense_rank: int | None = None
    lexical_rank: int | None = None

    @property
    def location(self) -> str:
        return f"{self.path}:{self.start_line}-{self.end_line}"


def query_terms(query: str) -> list[str]:
    """Distinct query terms without English stop words (kept if nothing else is left)."""
    ts = list(dict.fromkeys(terms(query)))
    kept = [t for t in ts if t not in _STOP]
    return kept or ts


def path_matches(path: str, glob: str) -> bool:
    """Shell-style glob on the whole path; a bare folder name matches everything under it."""
    g = glob.strip().lstrip("./") or "*"
    if any(ch in g for ch in "*?["):
        return fnmatch.fnmatchcase(path, g) or fnmatch.fnmatchcase(path, g.rstrip("/") + "/*")
    return path == g or path.startswith(g.rstrip("/") + "/")


def _best_line(text: str, start_line: int, qterms: list[str]) -> tuple[int, str]:
    """The line with most query terms (ties: earliest) and a three-line snippet around it."""
    lines = text.split("\n")
    want = set(qterms)
    best, best_score = 0, 0.0
    for i, line in enumerate(lines):
        have = set(terms(line))
        score = len(want & have) + (0.5 if any(t in line.lower() for t in want) else 0.0)
        if score > best_score:
            best, best_score = i, score
    if best_score == 0:
        best = next((i for i, ln in enumerate(lines) if ln.strip()), 0)
    lo, hi = max(0, best - 1), min(len(lines), best + 2)
    snippet = "\n".join(ln.rstrip() for ln in lines[lo:hi] if ln.strip() or lo < hi - 1)
    return start_line + best, snippet.strip("\n")


@dataclass(frozen=True, slots=True)
class Answer:
    """Hits and how much of the dense index stood behind them."""

    hits: list[Hit]
    dense_stored: int  # chunks with a vector when the query ran
    dense_total: int  # chunks to embed at this revision

    @property
    def dense_complete(self) -> bool:
        return self.dense_stored >= self.dense_total

    def note(self) -> str:
        """Empty when dense search covered everything; else what it did not cover."""
        if self.dense_complete:
            return ""
        if self.dense_stored == 0:
            return (
                "dense results not yet available (the index is still embedding): word matches only"
            )
        return (
            f"dense results cover {self.dense_stored} of {self.dense_total} chunks so far "
            "(the index is still embedding); word matches cover all"
        )


def search(
    index: Index, snapshot: Snapshot, query: str, k: int = 10, path_glob: str | None = None
) -> list[Hit]:
    """The ``k`` best chunks for ``query`` at the snapshot's indexed revision, best first."""
    if index.collection(snapshot) is None:
        raise NotIndexed(
            f"revision {snapshot.sha[:12]} of {snapshot.identity} is not indexed; "
            "run: drafter index REPO --rev REV"
        )
    return search_ready(index, snapshot, query, k, path_glob).hits


def search_ready(
    index: Index,
    snapshot: Snapshot,
    query: str,
    k: int = 10,
    path_glob: str | None = None,
    dense: bool = True,
) -> Answer:
    """The ``k`` best chunks from what is ready now: BM25 over every chunk of the
    revision at once (built from the snapshot, not from the store), fused with dense
    hits among the chunks already stored; never waits for the build.  ``dense=False``:
    word matches alone, which depend only on the revision."""
    if not query.strip():
        raise BadInput("the search query is empty")
    if k < 1:
        raise BadInput(f"-k must be at least 1, not {k}")
    lex = index.lexical(snapshot)
    stored, total = index.dense_state(snapshot)
    if not lex.ids:
        return Answer([], stored, total)
    allowed: np.ndarray | None = None
    where: dict[str, Any] | None = None
    if path_glob:
        allowed = np.array([path_matches(str(m.get("path", "")), path_glob) for m in lex.metas])
        paths = sorted({str(m["path"]) for m, ok in zip(lex.metas, allowed, strict=True) if ok})
        if not paths:
            return Answer([], stored, total)
        where = {"path": {"$in": paths}} if len(paths) > 1 else {"path": paths[0]}

    qterms = query_terms(query)
    lex_scores = lex.scores(qterms)
    if allowed is not None:
        lex_scores = np.where(allowed, lex_scores, 0.0)
    pool = min(LEXICAL_POOL, len(lex_scores))
    top = np.argpartition(-lex_scores, pool - 1)[:pool]
    top = top[np.argsort(-lex_scores[top], kind="stable")]
    lexical_rank = {lex.ids[r]: n for n, r in enumerate(x for x in top if lex_scores[x] > 0)}

    dense_rank: dict[str, int] = {}
    col = index.partial(snapshot) if stored > 0 and dense else None
    if col is not None:
        n_dense = min(max(DENSE_POOL, k), max(1, stored))
        res = col.query(
            query_embeddings=embed([query]), n_results=n_dense, where=where, include=["distances"]
        )
        dense_rank = {i: n for n, i in enumerate(res["ids"][0])}

    fused = _fuse(dense_rank, lexical_rank, lex)
    order = sorted(fused, key=lambda c: (-fused[c], c))
    hits: list[Hit] = []
    for cid in order:
        row = lex.row_of.get(cid)
        if row is None:  # a stray of an older build, deleted when the build resumes
            continue
        m, text = lex.metas[row], lex.docs[row]
        start = int(m.get("start_line", 1))
        line, snippet = _best_line(text, start, qterms)
        hits.append(
            Hit(
                path=str(m.get("path", "")),
                start_line=start,
                end_line=int(m.get("end_line", start)),
                symbol=str(m.get("symbol", "")),
                score=round(fused[cid] * (RRF_K + 1) / 2, 4),
                snippet=snippet,
                text=text,
                kind=str(m.get("kind", "")),
                line=line,
                dense_rank=_plus1(dense_rank.get(cid)),
                lexical_rank=_plus1(lexical_rank.get(cid)),
            )
        )
        if len(hits) >= k:
            break
    return Answer(hits, stored, total)


def _fuse(
    dense_rank: dict[str, int], lexical_rank: dict[str, int], lex: Lexical
) -> dict[str, float]:
    """Reciprocal-rank fusion of the two rankings, data-like chunks weighed down."""
    fused: dict[str, float] = {}
    for ranks in (dense_rank, lexical_rank):
        for cid, r in ranks.items():
            fused[cid] = fused.get(cid, 0.0) + 1.0 / (RRF_K + r + 1)
    for cid in fused:  # data, logs, results: found by their words, ranked after what is read
        row = lex.row_of.get(cid)
        if row is not None and lex.metas[row].get("kind") == "head":
            fused[cid] *= HEAD_WEIGHT
    return fused


def _plus1(r: int | None) -> int | None:
    return None if r is None else r + 1


__all__ = [
    "Answer",
    "Hit",
    "NotIndexed",
    "search",
    "search_ready",
    "terms",
    "query_terms",
    "path_matches",
]
