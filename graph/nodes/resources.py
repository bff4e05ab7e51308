"""Thin adapters to the parts the workflow stands on, opened lazily per process.

The snapshot reader, the verifier, the Chroma index and the survey belong to other
modules; this class only opens them once per process and hands them to nodes.  Being
lazy is what makes ``--resume`` cheap: a run resumed at ``assemble`` never re-indexes.
None of these objects is checkpointed — they are rebuilt from ``repo`` and ``rev``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from drafter.model import Verification, Witness
from drafter.snapshot import Snapshot


@dataclass
class Resources:
    """Per-process handles for one (repository, revision)."""

    repo: str
    rev: str
    data_dir: Path | None = None
    chroma_url: str | None = None
    use_index: bool = True
    progress: bool = False
    index_stats: Any = None
    _snapshot: Snapshot | None = field(default=None, repr=False)
    _verifier: Any = field(default=None, repr=False)
    _index: Any = field(default=None, repr=False)
    _survey: Any = field(default=None, repr=False)
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    # -- snapshot and verifier ----------------------------------------------------

    def snapshot(self) -> Snapshot:
        with self._lock:
            if self._snapshot is None:
                self._snapshot = Snapshot(self.repo, self.rev)
            return self._snapshot

    def verify(self, witness: Witness) -> Verification:
        """The foundation's verifier: exact under the format's normalisations only."""
        with self._lock:
            if self._verifier is None:
                from drafter.verify import Verifier

                self._verifier = Verifier(self.snapshot())
            return self._verifier.verify(witness)  # type: ignore[no-any-return]

    # -- index and search ---------------------------------------------------------

    def index(self) -> Any:
        """The Chroma index of this revision, built or completed on first use."""
        with self._lock:
            if self._index is None and self.use_index:
                from retrieval.index import open_index

                idx = open_index(data_dir=self.data_dir, chroma_url=self.chroma_url)
                self.index_stats = idx.ensure(self.snapshot(), progress=self.progress)
                self._index = idx
            return self._index

    def search(self, query: str, k: int, path_glob: str | None = None) -> list[dict[str, Any]]:
        """Hybrid search hits as plain dicts (path, start, end, symbol, score, text)."""
        idx = self.index()
        if idx is None:
            return []
        from retrieval.search import search

        with self._lock:
            hits = search(idx, self.snapshot(), query, k=k, path_glob=path_glob)
        return [_hit_dict(h) for h in hits]

    # -- survey -------------------------------------------------------------------

    def survey(self) -> Any:
        with self._lock:
            if self._survey is None:
                from retrieval.survey import run_survey

                self._survey = run_survey(self.snapshot())
            return self._survey

    def close(self) -> None:
        with self._lock:
            if self._index is not None and hasattr(self._index, "close"):
                self._index.close()
                self._index = None
            if self._snapshot is not None:
                self._snapshot.close()
                self._snapshot = None
            self._verifier = None


def _hit_dict(hit: Any) -> dict[str, Any]:
    """Search hits may be objects or dicts; the proposers only need these keys."""

    def get(*names: str) -> Any:
        for n in names:
            if isinstance(hit, dict) and n in hit:
                return hit[n]
            if hasattr(hit, n):
                return getattr(hit, n)
        chunk = hit.get("chunk") if isinstance(hit, dict) else getattr(hit, "chunk", None)
        if chunk is not None and chunk is not hit:
            return _hit_dict(chunk).get(names[0])
        return None

    return {
        "path": get("path"),
        "start": get("start", "start_line"),
        "end": get("end", "end_line"),
        "symbol": get("symbol"),
        "score": float(get("score") or 0.0),
        "text": get("text", "snippet") or "",
    }
