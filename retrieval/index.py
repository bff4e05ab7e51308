"""One Chroma collection per (repository identity, revision), built idempotently.

Why this shape:

* **Crash-safe without a journal.**  Chunk ids are deterministic (``path#Lstart-Lend``)
  and every write is an upsert, so a rerun after a kill simply diffs what the
  collection holds (id and content hash) against what the revision should hold, writes
  the difference and deletes strays.  The collection is marked ``complete`` in its
  metadata only after that diff is empty, and a complete collection is trusted as is,
  which makes an unchanged re-index a metadata read.
* **Incremental across revisions.**  Vectors are cached in a small sqlite file keyed
  by model and by a hash of exactly the text given to the model, so a second revision
  embeds only the chunks whose text (or path/symbol header) changed.  The cache lives
  in the local data dir in both embedded and server mode: it is an optimisation, and
  losing it only costs time.
* **What an analyst reads, most needed first.**  Files get roles (:mod:`retrieval.roles`):
  code, docs, config and prompts are embedded; data, logs and results keep only their
  opening part for word search (:meth:`Index.lexical`), the rest is listed.  Chunks are
  embedded and stored batch by batch in the order the caller ranks their files, so dense
  hits arrive as files do, and a ``stop`` event ends a build between small steps.
* **One model per collection.**  The model name and version are stored in the
  collection's metadata and checked on every open; a mismatch is refused.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

import chromadb
import numpy as np
from chromadb.api.models.Collection import Collection
from chromadb.config import Settings
from chromadb.errors import NotFoundError

from drafter import config
from drafter.errors import BadInput, DrafterError, RepoError
from drafter.snapshot import Snapshot
from drafter.sqlite_open import first_open
from retrieval.chunking import (
    CHUNKER_VERSION,
    HEADER_RESERVE,
    Chunk,
    chunk_file,
    head_chunks,
    text_cost,
)
from retrieval.embeddings import DIM, MiniLMEmbeddingFunction, embed_steps, model_key
from retrieval.index_progress import IndexProgress
from retrieval.index_stats import IndexStats
from retrieval.roles import LEXICAL_HEAD_BYTES, RoleMap, Treatment, classify_revision

if TYPE_CHECKING:  # built on first search (numpy, scipy): imported where it is built
    from retrieval.lexical import Lexical

#: Chunks per stored batch: the model sees them sorted by length across the batch, so a
#: larger batch pads less (word pieces fed per real one: 1.15 at 64, 1.07 at 256).
BATCH = 256
#: Texts per model pass inside a batch: a stop request waits for one pass at most.
EMBED_STEP = 16
_PAGE = 2000
#: seconds a process waits for another one holding the embed cache
CACHE_LOCK_WAIT = 30.0


class IndexModelMismatch(BadInput):
    """A collection was built with another embedding model than this drafter's."""


class ChromaUnavailable(BadInput):
    """The Chroma server in --chroma-url cannot be reached."""


@dataclass(slots=True)
class ChunkPlan:
    """What one revision's index holds: file roles, the chunks to embed (files in path
    order) and the opening parts of lexical-only files."""

    roles: RoleMap
    chunks: list[Chunk] = field(default_factory=list)
    lexical_chunks: list[Chunk] = field(default_factory=list)
    files_indexed: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    syntax_errors: list[str] = field(default_factory=list)


def make_plan(snapshot: Snapshot) -> ChunkPlan:
    """Classify every file (:mod:`retrieval.roles`) and chunk what is read: files to
    embed whole, lexical-only files by their bounded opening part; the rest is listed."""
    roles = classify_revision(snapshot)
    plan = ChunkPlan(roles=roles)
    wanted = [f for f in roles.files.values() if f.treatment is not Treatment.listed]
    snapshot.prefetch([f.path for f in wanted if f.size <= 4 * 1_000_000])
    for f in wanted:
        path = f.path
        try:
            path.encode("utf-8")
        except UnicodeEncodeError:  # Chroma metadata must be valid UTF-8
            plan.skipped["undecodable path"] += 1
            continue
        try:
            tf = snapshot.read_text(path)
        except RepoError:
            plan.skipped["unreadable"] += 1
            continue
        if tf.binary:
            plan.skipped["binary"] += 1
            continue
        if f.treatment is Treatment.lexical:
            plan.lexical_chunks.extend(head_chunks(path, tf.text, LEXICAL_HEAD_BYTES))
            continue
        res = chunk_file(path, tf.text)
        if res.skipped:
            plan.skipped[res.skipped] += 1
            plan.lexical_chunks.extend(head_chunks(path, tf.text, LEXICAL_HEAD_BYTES))
            continue
        plan.files_indexed += 1
        if res.syntax_error:
            plan.syntax_errors.append(path)
        plan.chunks.extend(res.chunks)
    return plan


def _plan_stats(stats: IndexStats, plan: ChunkPlan) -> None:
    stats.files_total = len(plan.roles.files)
    stats.files_indexed = plan.files_indexed
    stats.skipped = Counter(plan.skipped)
    stats.syntax_errors = list(plan.syntax_errors)
    stats.chunks = len(plan.chunks)
    stats.lexical_chunks = len(plan.lexical_chunks)
    stats.roles = Counter({f"{r}: {t}": n for (r, t), n in plan.roles.counts().items()})
    stats.left_out = {k: [n, b] for k, (n, b) in plan.roles.left_out().items()}


def collection_name(namespace: str, identity: str, sha: str) -> str:
    """A Chroma-legal name (3-512 chars of [a-zA-Z0-9._-]) for one revision."""
    digest = hashlib.sha256(f"{namespace}\0{identity}\0{sha}".encode()).hexdigest()
    return f"drafter-rev-{digest[:40]}"


def embed_header(chunk: Chunk) -> str:
    """The line put before a chunk's text for the model: where it lives and what it is.

    Code search queries often name the file or the symbol; the text alone may not.
    The header is kept under HEADER_RESERVE word pieces by dropping leading folders.
    """
    sym = "" if chunk.symbol in ("", "<module>") else f" {chunk.symbol}"
    parts = list(PurePosixPath(chunk.path).parts)
    while parts:
        header = f"{'/'.join(parts)}{sym}\n"
        if text_cost(header) <= HEADER_RESERVE - 2:
            return header
        parts.pop(0)
    return ""


def embed_input(chunk: Chunk) -> str:
    return embed_header(chunk) + chunk.text


def embed_key(text: str) -> str:
    return hashlib.sha256(f"{model_key()}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()


class VectorCache:
    """Vectors by (model, key) in sqlite; safe to share between processes (WAL)."""

    def __init__(self, path: Path):
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), timeout=CACHE_LOCK_WAIT, check_same_thread=False)
        # another process may be creating the cache this very moment (two runs on a
        # fresh data dir): the WAL switch does not wait by itself, so retry it
        first_open(self._db, self._open_steps, wait=CACHE_LOCK_WAIT)

    def _open_steps(self) -> None:
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        try:
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, key TEXT NOT NULL, "
                "vec BLOB NOT NULL, PRIMARY KEY (model, key))"
            )
            self._db.commit()
        except sqlite3.Error:
            self._db.rollback()
            raise

    def get(self, keys: list[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for key, blob in self._select("key, vec", keys):
            vec = np.frombuffer(blob, dtype=np.float32)
            if vec.shape == (DIM,):
                out[key] = vec
        return out

    def has(self, keys: list[str]) -> set[str]:
        """Which of ``keys`` have a vector for this model."""
        return {k for (k,) in self._select("key", keys)}

    def _select(self, columns: str, keys: list[str]) -> list[Any]:
        """``columns`` of this model's rows for ``keys``, asked 500 keys at a time (under
        SQLite's limit on bound variables)."""
        model = model_key()
        rows: list[Any] = []
        with self._lock:
            for i in range(0, len(keys), 500):
                part = keys[i : i + 500]
                marks = ",".join("?" * len(part))
                rows += self._db.execute(
                    f"SELECT {columns} FROM vectors WHERE model = ? AND key IN ({marks})",
                    [model, *part],
                ).fetchall()
        return rows

    def put(self, items: dict[str, np.ndarray]) -> None:
        model = model_key()
        with self._lock:
            self._db.executemany(
                "INSERT OR REPLACE INTO vectors (model, key, vec) VALUES (?, ?, ?)",
                [(model, k, np.asarray(v, dtype=np.float32).tobytes()) for k, v in items.items()],
            )
            self._db.commit()

    def close(self) -> None:
        self._db.close()


def _model_metadata() -> dict[str, Any]:
    return {"embedding_function": MiniLMEmbeddingFunction.name(), "embedding_model": model_key()}


def _chunk_metadata(c: Chunk) -> dict[str, Any]:
    return {
        "path": c.path,
        "start_line": c.start_line,
        "end_line": c.end_line,
        "symbol": c.symbol,
        "kind": c.kind,
        "content_hash": c.content_hash,
    }


class Index:
    """A Chroma client (embedded or server) plus the local vector cache."""

    def __init__(
        self, client: Any, data_dir: Path, mode: str, namespace: str = "", batch_size: int = BATCH
    ):
        self.client = client
        self.data_dir = data_dir
        self.mode = mode
        self.namespace = namespace
        self.batch_size = batch_size
        self.cache = VectorCache(data_dir / "embed-cache.sqlite3")
        self._ef = MiniLMEmbeddingFunction()
        self.lexical_cache: dict[str, Lexical] = {}  # collection name -> BM25 over its plan
        self._plans: dict[str, ChunkPlan] = {}
        self._plan_lock = threading.Lock()
        #: collection name -> [chunks stored, chunks planned], updated as batches land
        self.dense: dict[str, list[int]] = {}

    # -- collections ------------------------------------------------------------------

    def name_for(self, snapshot: Snapshot) -> str:
        return collection_name(self.namespace, snapshot.identity, snapshot.sha)

    def _check_model(self, col: Collection) -> None:
        meta = col.metadata or {}
        have = meta.get("embedding_model")
        if have != model_key():
            raise IndexModelMismatch(
                f"collection {col.name} was embedded with {have or 'an unknown model'}, "
                f"this drafter uses {model_key()}; refusing to mix models "
                "(rerun with drafter index --rebuild)"
            )

    def _get(self, name: str) -> Collection | None:
        try:
            col: Collection = self.client.get_collection(name, embedding_function=self._ef)
        except NotFoundError:
            return None
        except ValueError as exc:  # a missing collection (older clients) or an EF conflict
            if "does not exist" in str(exc):
                return None
            raise IndexModelMismatch(f"collection {name} cannot be opened: {exc}") from exc
        self._check_model(col)
        return col

    def collection(self, snapshot: Snapshot) -> Collection | None:
        """The complete collection of this revision, or None if it is not indexed yet."""
        col = self._get(self.name_for(snapshot))
        if col is None or (col.metadata or {}).get("status") != "complete":
            return None
        return col

    def drop(self, snapshot: Snapshot) -> bool:
        name = self.name_for(snapshot)
        self.lexical_cache.pop(name, None)
        self._plans.pop(name, None)
        self.dense.pop(name, None)
        try:
            self.client.delete_collection(name)
        except (NotFoundError, ValueError):
            return False
        return True

    # -- the chunk plan -----------------------------------------------------------------

    def plan(self, snapshot: Snapshot) -> ChunkPlan:
        """Roles and chunks of the revision, computed once per process (a search and the
        build in the background share them)."""
        name = self.name_for(snapshot)
        with self._plan_lock:
            got = self._plans.get(name)
            if got is None:
                got = self._plans[name] = make_plan(snapshot)
            return got

    def lexical(self, snapshot: Snapshot) -> Lexical:
        """BM25 over every chunk of the plan, embedded or not: ready before any vector."""
        from retrieval.lexical import Lexical

        name = self.name_for(snapshot)
        plan = self.plan(snapshot)
        with self._plan_lock:
            lex = self.lexical_cache.get(name)
            if lex is None:
                every = plan.chunks + plan.lexical_chunks
                lex = Lexical(
                    [c.id for c in every],
                    [_chunk_metadata(c) for c in every],
                    [c.text for c in every],
                )
                self.lexical_cache[name] = lex
            return lex

    def partial(self, snapshot: Snapshot) -> Collection | None:
        """The revision's collection in whatever state it is (None if none exists)."""
        return self._get(self.name_for(snapshot))

    def dense_state(self, snapshot: Snapshot) -> tuple[int, int]:
        """(chunks with a stored vector, chunks to embed) as this process knows them."""
        got = self.dense.get(self.name_for(snapshot))
        if got is not None:
            return got[0], got[1]
        col = self.collection(snapshot)
        if col is not None:
            n = int((col.metadata or {}).get("chunks", 0))
            return n, n
        return 0, len(self.plan(snapshot).chunks)

    # -- ensure -----------------------------------------------------------------------

    def ensure(
        self,
        snapshot: Snapshot,
        progress: bool = True,
        *,
        stop: threading.Event | None = None,
        order: Callable[[], dict[str, int]] | None = None,
    ) -> IndexStats:
        """Make the revision's collection complete; cheap when it already is.

        ``order`` ranks paths (lower first; asked after chunking, so a survey can run
        meanwhile): what records need is embedded first.  ``stop`` ends the build after
        the batch in hand; what is stored stays, and the next call continues from it.
        """
        t0 = time.perf_counter()
        name = self.name_for(snapshot)
        stats = IndexStats(collection=name, identity=snapshot.identity, revision=snapshot.sha)
        col = self._get(name)
        meta = dict(col.metadata or {}) if col is not None else {}
        if (
            col is not None
            and meta.get("status") == "complete"
            and meta.get("chunker") == CHUNKER_VERSION
        ):
            _restore_stats(stats, meta)
            stats.was_complete = True
            self.dense[name] = [stats.chunks, stats.chunks]
            stats.seconds = time.perf_counter() - t0
            return stats
        base_meta = {
            **_model_metadata(),
            "identity": snapshot.identity,
            "revision": snapshot.sha,
            "chunker": CHUNKER_VERSION,
            "status": "building",
        }
        if col is None:
            col = self.client.get_or_create_collection(
                name,
                embedding_function=self._ef,
                metadata=base_meta,
                configuration={"hnsw": {"space": "cosine"}},
            )
            self._check_model(col)
        elif meta.get("status") == "complete":  # chunker changed: rebuild in place
            col.modify(metadata=base_meta)

        t = time.perf_counter()
        plan = self.plan(snapshot)
        _plan_stats(stats, plan)
        stats.t_chunk = time.perf_counter() - t
        self._fill(col, name, plan, stats, progress, order, stop)
        if not stats.stopped:
            final = {**base_meta, "status": "complete", **_stats_metadata(stats)}
            col.modify(metadata=final)
        stats.seconds = time.perf_counter() - t0
        return stats

    def _fill(
        self,
        col: Collection,
        name: str,
        plan: ChunkPlan,
        stats: IndexStats,
        progress: bool,
        order: Callable[[], dict[str, int]] | None,
        stop: threading.Event | None,
    ) -> None:
        """Bring ``col`` to the plan: delete stray chunks, embed and store the missing
        ones in batches (core files first when ``order`` ranks them), until done or
        ``stop`` is set (``stats.stopped``)."""
        with IndexProgress(stats, enabled=progress) as bar:
            existing = self._existing(col)
            want = {c.id: c for c in plan.chunks}
            stray = [i for i in existing if i not in want]
            todo = [c for c in plan.chunks if existing.get(c.id) != c.content_hash]
            stats.already_present = len(plan.chunks) - len(todo)
            if stray:
                col.delete(ids=stray)
                stats.removed = len(stray)
            state = self.dense[name] = [stats.already_present, len(plan.chunks)]
            rank = order() if order is not None else {}
            if rank:
                last = len(rank)
                todo.sort(key=lambda c: rank.get(c.path, last))  # stable: file order kept
            bar.start(len(plan.chunks), stats.already_present)
            for i in range(0, len(todo), self.batch_size):
                if stop is not None and stop.is_set():
                    stats.stopped = True
                    break
                batch = todo[i : i + self.batch_size]
                vectors = self._vectors(batch, stats, stop)
                if vectors is None:
                    stats.stopped = True
                    break
                self._store_batch(col, batch, vectors, stats)
                state[0] += len(batch)
                bar.advance(len(batch))

    def _existing(self, col: Collection) -> dict[str, str]:
        """id -> content hash of what the collection already holds."""
        out: dict[str, str] = {}
        offset = 0
        while True:
            page = col.get(include=["metadatas"], limit=_PAGE, offset=offset)
            ids = page["ids"]
            for i, m in zip(ids, page["metadatas"] or [], strict=False):
                out[i] = str((m or {}).get("content_hash", ""))
            if len(ids) < _PAGE:
                return out
            offset += _PAGE

    def _vectors(
        self, batch: list[Chunk], stats: IndexStats, stop: threading.Event | None = None
    ) -> np.ndarray | None:
        """The batch's vectors: from the cache, the rest computed now, a few at a time,
        each few cached at once (a kill loses at most one step of model work).  None
        when ``stop`` is set before the batch is whole (what was computed is cached)."""
        t = time.perf_counter()
        inputs = [embed_input(c) for c in batch]
        keys = [embed_key(s) for s in inputs]
        cached = self.cache.get(keys)
        need = {
            k: (s, c.id) for c, s, k in zip(batch, inputs, keys, strict=True) if k not in cached
        }
        order = list(need)
        try:
            for idx, vectors in embed_steps([need[k][0] for k in order], EMBED_STEP):
                step = [order[j] for j in idx]
                fresh = dict(zip(step, vectors, strict=True))
                self.cache.put(fresh)
                cached.update(fresh)
                stats.embedded += len(step)
                stats.embedded_ids.extend(need[k][1] for k in step)
                if stop is not None and stop.is_set() and len(cached) < len(set(keys)):
                    return None
        finally:
            stats.t_embed += time.perf_counter() - t
        stats.reused += len(batch) - len(need)
        return np.stack([cached[k] for k in keys]) if keys else np.zeros((0, DIM), np.float32)

    def _store_batch(
        self, col: Collection, batch: list[Chunk], vectors: np.ndarray, stats: IndexStats
    ) -> None:
        t = time.perf_counter()
        col.upsert(
            ids=[c.id for c in batch],
            embeddings=vectors,
            documents=[c.text for c in batch],
            metadatas=[_chunk_metadata(c) for c in batch],
        )
        stats.stored += len(batch)
        stats.t_store += time.perf_counter() - t

    def close(self) -> None:
        self.cache.close()


def _stats_metadata(stats: IndexStats) -> dict[str, Any]:
    return {
        "chunks": stats.chunks,
        "files_total": stats.files_total,
        "files_indexed": stats.files_indexed,
        "skipped": json.dumps(dict(sorted(stats.skipped.items()))),
        "syntax_errors": len(stats.syntax_errors),
        "lexical_chunks": stats.lexical_chunks,
        "roles": json.dumps(dict(sorted(stats.roles.items()))),
        "left_out": json.dumps(stats.left_out),
    }


def _restore_stats(stats: IndexStats, meta: dict[str, Any]) -> None:
    stats.chunks = int(meta.get("chunks", 0))
    stats.files_total = int(meta.get("files_total", 0))
    stats.files_indexed = int(meta.get("files_indexed", 0))
    try:
        stats.skipped = Counter(json.loads(str(meta.get("skipped", "{}"))))
    except ValueError:
        stats.skipped = Counter()
    stats.lexical_chunks = int(meta.get("lexical_chunks", 0))
    try:
        stats.roles = Counter(json.loads(str(meta.get("roles", "{}"))))
        stats.left_out = dict(json.loads(str(meta.get("left_out", "{}"))))
    except ValueError:
        pass
    stats.already_present = stats.chunks


def _settings() -> Settings:
    return Settings(anonymized_telemetry=False, allow_reset=False)


def open_index(
    data_dir: str | Path | None = None,
    chroma_url: str | None = None,
    namespace: str = "",
    batch_size: int = BATCH,
) -> Index:
    """An index in the data dir (embedded) or on the Chroma server at ``chroma_url``.

    ``namespace`` is mixed into collection names; tests use it to share one server.
    """
    root = config.data_dir(data_dir)
    url = config.chroma_url(chroma_url)
    if url:
        parsed = urlparse(url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise BadInput(f"--chroma-url {url!r} is not an http(s)://HOST:PORT URL")
        port = parsed.port or (443 if parsed.scheme == "https" else 8000)
        try:
            client = chromadb.HttpClient(
                host=parsed.hostname, port=port, ssl=parsed.scheme == "https", settings=_settings()
            )
            client.heartbeat()
        except (DrafterError, KeyboardInterrupt):
            raise
        except Exception as exc:  # noqa: BLE001 - any transport failure means unreachable
            why = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise ChromaUnavailable(f"cannot reach the Chroma server at {url}: {why}") from exc
        return Index(client, root, "server", namespace, batch_size)
    path = root / "chroma"
    path.mkdir(parents=True, exist_ok=True)
    client = chromadb.PersistentClient(path=str(path), settings=_settings())
    return Index(client, root, "embedded", namespace, batch_size)


#: How much a survey finding of each category pulls its file forward in the build.
_RANK_WEIGHT = {
    "entry_point": 8,
    "model_call": 6,
    "model_loop": 6,
    "exec_effect": 4,
    "persistence": 4,
    "tool_dispatch": 3,
    "prompt": 3,
    "gating": 2,
    "read_back": 2,
}


def rank_paths(findings: list[Any]) -> dict[str, int]:
    """Rank per path (0 first) by the weighted survey findings each file holds: the
    files that hold entry points, model calls and effects are what records quote."""
    weight: Counter[str] = Counter()
    for f in findings:
        weight[str(f.path)] += _RANK_WEIGHT.get(str(f.category), 1)
    order = sorted(weight, key=lambda p: (-weight[p], p))
    return {p: i for i, p in enumerate(order)}


def coverage_lines(index: Index, snapshot: Snapshot) -> list[str]:
    """Plain sentences for a draft: files embedded, lexical only and skipped by role,
    the largest groups left out, and how much of the dense index existed."""
    plan = index.plan(snapshot)
    roles = plan.roles
    stored, total = index.dense_state(snapshot)
    out = [f"index coverage: {roles.summary_line()}"]
    for key, (n, size) in list(roles.left_out().items())[:6]:
        out.append(f"not embedded: {n} file(s), {size / 1_000_000:.1f} MB — {key}")
    if stored < total:
        out.append(
            f"dense index: {stored} of {total} chunks embedded when this draft was written "
            "(search used word matches for the rest; the build continues on the next run "
            "or with drafter index)"
        )
    else:
        out.append(f"dense index: complete ({total} chunks)")
    return out


def coverage_counts(index: Index, snapshot: Snapshot) -> dict[str, int]:
    """Files per treatment and chunks with vectors, for a draft's summary table."""
    plan = index.plan(snapshot)
    files = Counter(f.treatment.value for f in plan.roles.files.values())
    stored, total = index.dense_state(snapshot)
    return {
        "files embedded": files[Treatment.embed.value],
        "files lexical only": files[Treatment.lexical.value],
        "files skipped": files[Treatment.listed.value],
        "chunks embedded": min(stored, total),
        "chunks to embed": total,
        "chunks lexical only": len(plan.lexical_chunks),
    }
