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
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse
from uuid import UUID

import chromadb
import numpy as np
from chromadb.api.models.Collection import Collection
from chromadb.config import Settings
from chromadb.errors import NotFoundError
from rich.progress import Progress

from drafter import config
from drafter.console import err_console, progress_bar
from drafter.errors import BadInput, DrafterError, RepoError
from drafter.snapshot import Snapshot
from retrieval.chunking import CHUNKER_VERSION, HEADER_RESERVE, Chunk, chunk_file, text_cost
from retrieval.embeddings import DIM, MiniLMEmbeddingFunction, embed, model_key

if TYPE_CHECKING:  # search imports this module; the cache only names its type
    from retrieval.search import Lexical

BATCH = 256
_PAGE = 2000


class IndexModelMismatch(BadInput):
    """A collection was built with another embedding model than this drafter's."""


class ChromaUnavailable(BadInput):
    """The Chroma server in --chroma-url cannot be reached."""


@dataclass(slots=True)
class IndexStats:
    """What one ensure() call found and did; times are in seconds."""

    collection: str
    identity: str
    revision: str
    files_total: int = 0
    files_indexed: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    syntax_errors: list[str] = field(default_factory=list)
    chunks: int = 0
    embedded: int = 0  # vectors computed by the model in this call
    reused: int = 0  # vectors taken from the cache
    stored: int = 0  # chunks written to the collection in this call
    already_present: int = 0  # chunks an earlier (interrupted) run had stored
    removed: int = 0  # stray entries deleted
    was_complete: bool = False
    embedded_ids: list[str] = field(default_factory=list)
    t_chunk: float = 0.0
    t_embed: float = 0.0
    t_store: float = 0.0
    seconds: float = 0.0


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
        self._db = sqlite3.connect(str(path), timeout=30, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, key TEXT NOT NULL, "
            "vec BLOB NOT NULL, PRIMARY KEY (model, key))"
        )
        self._db.commit()

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
        self.lexical_cache: dict[str, tuple[UUID, Lexical]] = {}  # name -> (collection id, …)

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
        try:
            self.client.delete_collection(name)
        except (NotFoundError, ValueError):
            return False
        return True

    # -- ensure -----------------------------------------------------------------------

    def ensure(self, snapshot: Snapshot, progress: bool = True) -> IndexStats:
        """Make the revision's collection complete; cheap when it already is."""
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
        self.lexical_cache.pop(name, None)

        with progress_bar(
            label="{task.description:>9}",
            console=err_console(),
            enabled=progress,
            transient=False,
        ) as bar:
            chunks = self._chunk_all(snapshot, stats, bar)
            existing = self._existing(col)
            want = {c.id: c for c in chunks}
            stray = [i for i in existing if i not in want]
            todo = [c for c in chunks if existing.get(c.id) != c.content_hash]
            stats.already_present = len(chunks) - len(todo)
            if stray:
                col.delete(ids=stray)
                stats.removed = len(stray)
            t_store = bar.add_task("chunks", total=len(chunks), completed=stats.already_present)
            self._embed_missing(todo, stats, bar)
            for i in range(0, len(todo), self.batch_size):
                batch = todo[i : i + self.batch_size]
                self._store_batch(col, batch, self._cached_vectors(batch, stats), stats)
                bar.advance(t_store, len(batch))
        final = {**base_meta, "status": "complete", **_stats_metadata(stats)}
        col.modify(metadata=final)
        stats.seconds = time.perf_counter() - t0
        return stats

    def _chunk_all(self, snapshot: Snapshot, stats: IndexStats, bar: Progress) -> list[Chunk]:
        t = time.perf_counter()
        files = snapshot.files()
        stats.files_total = len(files)
        task = bar.add_task("files", total=len(files))
        chunks: list[Chunk] = []
        for path in files:
            bar.advance(task)
            try:
                path.encode("utf-8")
            except UnicodeEncodeError:  # Chroma metadata must be valid UTF-8
                stats.skipped["undecodable path"] += 1
                continue
            entry = snapshot.entry(path)
            if entry is not None and entry.size > 4 * 1_000_000:
                stats.skipped["too large"] += 1
                continue
            try:
                tf = snapshot.read_text(path)
            except RepoError:
                stats.skipped["unreadable"] += 1
                continue
            if tf.binary:
                stats.skipped["binary"] += 1
                continue
            res = chunk_file(path, tf.text)
            if res.skipped:
                stats.skipped[res.skipped] += 1
                continue
            stats.files_indexed += 1
            if res.syntax_error:
                stats.syntax_errors.append(path)
            chunks.extend(res.chunks)
        stats.chunks = len(chunks)
        stats.t_chunk = time.perf_counter() - t
        return chunks

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

    def _embed_missing(self, todo: list[Chunk], stats: IndexStats, bar: Progress) -> None:
        """Phase 1: compute every vector the cache lacks, shortest inputs first.

        Embedding all of them before storing anything keeps Chroma's own indexing work
        off the CPU while the model runs, and sorting the whole set by length keeps
        padding minimal; each batch goes to the cache at once, so a crash loses at
        most one batch of model work.
        """
        t = time.perf_counter()
        need: dict[str, tuple[str, str]] = {}  # key -> (input, chunk id)
        for i in range(0, len(todo), 500):
            part = todo[i : i + 500]
            inputs = [embed_input(c) for c in part]
            keys = [embed_key(s) for s in inputs]
            have = self.cache.has(keys)
            for c, s, k in zip(part, inputs, keys, strict=True):
                if k not in have and k not in need:
                    need[k] = (s, c.id)
        stats.t_embed += time.perf_counter() - t
        task = bar.add_task("embedded", total=len(need))
        order = sorted(need, key=lambda k: len(need[k][0]))
        for i in range(0, len(order), self.batch_size):
            t = time.perf_counter()
            keys = order[i : i + self.batch_size]
            vecs = embed([need[k][0] for k in keys])
            self.cache.put(dict(zip(keys, vecs, strict=True)))
            stats.embedded += len(keys)
            stats.embedded_ids.extend(need[k][1] for k in keys)
            stats.t_embed += time.perf_counter() - t
            bar.advance(task, len(keys))
        stats.reused = len(todo) - stats.embedded

    def _cached_vectors(self, batch: list[Chunk], stats: IndexStats) -> np.ndarray:
        """Phase 2 input: the batch's vectors from the cache (embedding any that vanished)."""
        t = time.perf_counter()
        keys = [embed_key(embed_input(c)) for c in batch]
        cached = self.cache.get(keys)
        lost = [i for i, k in enumerate(keys) if k not in cached]
        if lost:  # the cache file was removed under us: recompute, do not fail
            fresh = embed([embed_input(batch[i]) for i in lost])
            for j, i in enumerate(lost):
                cached[keys[i]] = fresh[j]
        out = np.stack([cached[k] for k in keys]) if keys else np.zeros((0, DIM), np.float32)
        stats.t_store += time.perf_counter() - t
        return out

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
    }


def _restore_stats(stats: IndexStats, meta: dict[str, Any]) -> None:
    stats.chunks = int(meta.get("chunks", 0))
    stats.files_total = int(meta.get("files_total", 0))
    stats.files_indexed = int(meta.get("files_indexed", 0))
    try:
        stats.skipped = Counter(json.loads(str(meta.get("skipped", "{}"))))
    except ValueError:
        stats.skipped = Counter()
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
            raise ChromaUnavailable(f"cannot reach the Chroma server at {url}: {exc}") from exc
        return Index(client, root, "server", namespace, batch_size)
    path = root / "chroma"
    path.mkdir(parents=True, exist_ok=True)
    client = chromadb.PersistentClient(path=str(path), settings=_settings())
    return Index(client, root, "embedded", namespace, batch_size)
