"""What one :meth:`retrieval.index.Index.ensure` call found and did.

Its own module because both the index (which fills it) and the progress display
(:mod:`retrieval.index_progress`, which shows it while the index is built) use it;
here neither of those imports the other.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


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
    #: files per "role: treatment" (embedded, lexical only, skipped)
    roles: Counter[str] = field(default_factory=Counter)
    #: files not embedded: "role, treatment: reason" -> [files, bytes]
    left_out: dict[str, list[int]] = field(default_factory=dict)
    lexical_chunks: int = 0  # opening parts of lexical-only files (never embedded)
    stopped: bool = False  # asked to stop before the collection was complete
    t_chunk: float = 0.0
    t_embed: float = 0.0
    t_store: float = 0.0
    seconds: float = 0.0
