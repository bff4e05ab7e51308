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
from graph.jsontypes import JsonDict

#: Chunks per build batch in a run: small, so a stop at the end of the draft is prompt.
BUILD_BATCH = 64

if TYPE_CHECKING:  # imported on first use: most runs that build Resources never verify
    # (nor index: chromadb loads with the index)
    from drafter.verify import Verifier
    from retrieval.index import Index
    from retrieval.index_stats import IndexStats
    from retrieval.survey import Survey


@dataclass
class Resources:
    """Per-process handles for one (repository, revision)."""

    repo: str
    rev: str
    data_dir: Path | None = None
    chroma_url: str | None = None
    use_index: bool = True
    progress: bool = False
    index_stats: IndexStats | None = None
    _snapshot: Snapshot | None = field(default=None, repr=False)
    _verifier: Verifier | None = field(default=None, repr=False)
    _index: Index | None = field(default=None, repr=False)
    _survey: Survey | None = field(default=None, repr=False)
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False)
    # the index has its own lock: a build in the background must not block the
    # snapshot, the verifier or the survey, which share ``_lock``
    _index_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _index_thread: threading.Thread | None = field(default=None, repr=False)
    _stop: threading.Event = field(default_factory=threading.Event, repr=False)
    # searches share the chunk plan and BM25 matrix; one at a time keeps them cheap
    _search_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    index_error: str | None = None
    #: wait for the whole index at close (``drafter index`` semantics); a draft does not
    finish_index: bool = False
    #: Searches depend only on the revision: dense vectors are used only when the index
    #: was complete as the run found it (before its own build starts), never a partial
    #: index whose fill level would change the draft or a resumed run's requests.
    stable_search: bool = False
    _dense: bool | None = field(default=None, repr=False)

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

    def index(self) -> Index | None:
        """The Chroma index handle of this run (None with ``--no-index``).  Opening it
        never waits for embedding: the build runs in :meth:`start_index`."""
        with self._index_lock:
            if self._index is None and self.use_index:
                from retrieval.index import open_index

                self._index = open_index(
                    data_dir=self.data_dir, chroma_url=self.chroma_url, batch_size=BUILD_BATCH
                )
            return self._index

    def start_index(self) -> None:
        """Build or continue the dense index in a background thread, files in survey
        rank order; nothing waits for it (search answers from what is ready) and
        :meth:`close` stops it after the batch in hand: the next run continues."""
        if not self.use_index or self._index_thread is not None:
            return
        if self.stable_search:
            self.dense_used()  # decided on the index as the run found it, before it grows

        def build() -> None:
            try:
                # opened first: its imports (chromadb) run under the index lock, never
                # beside a search's in another thread
                idx = self.index()
                if idx is None:  # use_index is checked above; None only without it
                    return
                _background_priority()
                self.index_stats = idx.ensure(
                    self.snapshot(), progress=self.progress, stop=self._stop, order=self.rank
                )
            except Exception as exc:  # noqa: BLE001 - reported by the run; search still answers
                self.index_error = f"{type(exc).__name__}: {exc}"

        self._index_thread = threading.Thread(target=build, name="drafter-index", daemon=True)
        self._index_thread.start()

    def rank(self) -> dict[str, int]:
        """Paths in the order records need them: files holding entry points, model
        calls and effects first (by weighted survey findings), then the rest."""
        from retrieval.index import rank_paths

        try:
            survey = self.survey()
        except Exception:  # noqa: BLE001 - no survey: embed in path order
            return {}
        return rank_paths(survey.findings)

    def search(self, query: str, k: int, path_glob: str | None = None) -> list[JsonDict]:
        """Hybrid search hits as plain dicts (path, start, end, symbol, score, text)."""
        return self.search_answer(query, k, path_glob)[0]

    def search_answer(
        self, query: str, k: int, path_glob: str | None = None
    ) -> tuple[list[JsonDict], str]:
        """Hits from what is ready now, and a note saying what dense search did not cover
        yet (empty once the index is complete)."""
        idx = self.index()
        if idx is None:
            return [], ""
        from retrieval.search import search_ready

        snap = self.snapshot()
        dense = self.dense_used()
        with self._search_lock:
            answer = search_ready(idx, snap, query, k=k, path_glob=path_glob, dense=dense)
        return [_hit_dict(h) for h in answer.hits], answer.note() if dense else ""

    def dense_used(self) -> bool:
        """Whether this run's searches use dense vectors (always, unless
        ``stable_search``: then only with an index complete when first asked, decided
        once for the run)."""
        if not self.stable_search:
            return True
        with self._lock:
            if self._dense is None:
                idx = self.index()
                stored, total = idx.dense_state(self.snapshot()) if idx is not None else (0, 1)
                self._dense = stored >= total
            return self._dense

    def coverage(self) -> list[str]:
        """What the index read at this revision and what it left out, for the draft."""
        idx = self.index()
        if idx is None:
            return []
        from retrieval.index import coverage_lines

        lines = coverage_lines(idx, self.snapshot())
        if self.dense_used():
            return lines
        # how far the build had got varies between runs; what the draft used does not
        return [
            *(x for x in lines if not x.startswith("dense index:")),
            "search: word matches only (the dense index was not complete when this run "
            "first searched; a draft does not depend on how far it had got, so "
            "two drafts of one revision with the same options are the same; drafter index "
            "completes it)",
        ]

    def coverage_counts(self) -> dict[str, int]:
        idx = self.index()
        if idx is None:
            return {}
        from retrieval.index import coverage_counts

        counts = coverage_counts(idx, self.snapshot())
        if not self.dense_used():
            counts["chunks embedded"] = 0  # dense vectors this draft used
        return counts

    # -- survey -------------------------------------------------------------------

    def survey(self) -> Survey:
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
            if not self.finish_index:
                self._stop.set()  # the build resumes in the next run
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


def _background_priority() -> None:
    """Leave a core to the draft: the model uses one thread.  The thread is not niced:
    a niced thread holding the interpreter lock (or the step a closing run waits for)
    made a loaded machine wait on it (measured: the demo 1.5x slower in wall time)."""
    from retrieval.embeddings import use_threads

    use_threads(1)


def _hit_dict(hit: Any) -> JsonDict:
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
