"""Make sure the revision is indexed in Chroma before records ask for retrieval.

Indexing is idempotent and incremental (retrieval's job); this node only triggers it
and records a summary, so a resumed run sees the index was already complete.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from graph.configuration import RunContext
from graph.state import DraftState


def ensure_index(state: DraftState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    res = runtime.context.resources
    if not res.use_index:
        return {"index_info": {"used": False}, "notes": ["retrieval index not used for this run"]}
    idx = res.index()
    info: dict[str, Any] = {"used": idx is not None}
    stats = res.index_stats
    for attr in ("collection", "chunks", "files_indexed"):
        value = getattr(stats, attr, None)
        if isinstance(value, str | int | float):
            info[attr] = value
    return {"index_info": info}
