"""BM25 over identifier terms: the lexical half of the hybrid search.

Why its own module: the index builds and caches one :class:`Lexical` per revision
(:meth:`retrieval.index.Index.lexical`) and the search ranks with it; kept here, both
import it and neither imports the other.  Identifiers are split at ``_`` and camelCase
with the whole identifier kept too, so ``TOOL_REGISTRY`` matches ``registry`` and itself.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from typing import Any

import numpy as np
from scipy import sparse

_BM25_K1 = 1.2
_BM25_B = 0.75
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def terms(text: str) -> list[str]:
    """Lexical terms: each identifier lower-cased, plus its snake/camel parts."""
    out: list[str] = []
    for ident in _IDENT.findall(text):
        out.extend(_ident_terms(ident))
    return out


@lru_cache(maxsize=200_000)
def _ident_terms(ident: str) -> tuple[str, ...]:
    """One identifier's terms (identifiers repeat a lot: asked once each)."""
    low = ident.lower()
    parts = [p.lower() for piece in ident.split("_") for p in _CAMEL.findall(piece)]
    return (low, *parts) if len(parts) > 1 else (low,)


class Lexical:
    """A BM25 matrix over one collection's chunks, plus their ids, metadata and text."""

    def __init__(self, ids: list[str], metas: list[dict[str, Any]], docs: list[str]):
        self.ids = ids
        self.metas = metas
        self.docs = docs
        vocab: dict[str, int] = {}
        rows: list[int] = []
        cols: list[int] = []
        counts: list[int] = []
        for i, (m, d) in enumerate(zip(metas, docs, strict=True)):
            sym = str(m.get("symbol", ""))
            sym = "" if sym.startswith("<") else sym  # "<module>" would match "module"
            # each distinct identifier once per chunk, with its count: same matrix as one
            # entry per occurrence, a fraction of the Python work
            for ident, c in Counter(_IDENT.findall(f"{m.get('path', '')} {sym}\n{d}")).items():
                for t in _ident_terms(ident):
                    rows.append(i)
                    cols.append(vocab.setdefault(t, len(vocab)))
                    counts.append(c)
        n = len(ids)
        tf = sparse.csr_matrix(
            (np.asarray(counts, dtype=np.float32), (rows, cols)), shape=(n, max(len(vocab), 1))
        )
        tf.sum_duplicates()
        dl = np.asarray(tf.sum(axis=1)).ravel()
        avgdl = float(dl.mean()) if n else 1.0
        df = np.diff(tf.tocsc().indptr)
        idf = np.log(1.0 + (n - df + 0.5) / (df + 0.5)).astype(np.float32)
        coo = tf.tocoo()
        norm = _BM25_K1 * (1 - _BM25_B + _BM25_B * dl[coo.row] / max(avgdl, 1e-9))
        weights = coo.data * (_BM25_K1 + 1) / (coo.data + norm) * idf[coo.col]
        self.matrix = sparse.csc_matrix((weights, (coo.row, coo.col)), shape=tf.shape)
        self.vocab = vocab
        self.row_of = {i: r for r, i in enumerate(ids)}

    def scores(self, qterms: list[str]) -> np.ndarray:
        cols = [self.vocab[t] for t in qterms if t in self.vocab]
        if not cols:
            return np.zeros(len(self.ids), dtype=np.float32)
        return np.asarray(self.matrix[:, cols].sum(axis=1)).ravel()
