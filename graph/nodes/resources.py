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
from typing import TYPE_CHECKING, Any

from drafter.model import Verification, Witness
from drafter.snapshot import Snapshot

if TYPE_CHECKING:  # imported on first use: most runs that build Resources never verify
    from drafter.verify import Verifier


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
    _verifier: Verifier | None = field(default=None, repr=False)
    _index: Any = field(default=None, repr=False)
    _survey: Any = field(default=None, repr=False)
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False)
    # the index has its own lock: a build in the background must not block the
    # snapshot, the verifier or the survey, which share ``_lock``
    _index_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _index_thread: threading.Thread | None = field(default=None, repr=False)
    index_error: str | None = None

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
            return self._verifier.verify(witness)

    # -- index and search ---------------------------------------------------------

    def index(self) -> Any:
        """The Chroma index of this revision, built or completed on first use (waits
        for a build :meth:`start_index` began)."""
        with self._index_lock:
            if self._index is None and self.use_index:
                from retrieval.index import open_index

                idx = open_index(data_dir=self.data_dir, chroma_url=self.chroma_url)
                self.index_stats = idx.ensure(self.snapshot(), progress=self.progress)
                self._index = idx
            return self._index

    def start_index(self) -> None:
        """Build or complete the index in a background thread, so the survey and the
        plan never wait for index work; the first search waits for it, and
        :meth:`close` lets it finish so the next run finds the index complete."""
        if not self.use_index or self._index is not None or self._index_thread is not None:
            return

        def build() -> None:
            try:
                self.index()
            except Exception as exc:  # noqa: BLE001 - reported by the run, retried on search
                self.index_error = f"{type(exc).__name__}: {exc}"

        self._index_thread = threading.Thread(target=build, name="drafter-index", daemon=True)
        self._index_thread.start()

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
                from drafter.config import data_dir
                from retrieval.survey.cache import cached_survey

                # deterministic per revision and survey code: a warm run loads it
                root = data_dir(self.data_dir) / "surveys"
                self._survey = cached_survey(self.snapshot(), root)
            return self._survey

    def close(self) -> None:
        if self._index_thread is not None:
            self._index_thread.join()
            self._index_thread = None
        with self._lock:
            with self._index_lock:
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
