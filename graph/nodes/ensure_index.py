"""Start indexing the revision in Chroma; nothing in the run waits for it.

Indexing is idempotent, incremental and resumable (retrieval's job).  This node only
starts it in the background (:meth:`Resources.start_index`), files in survey rank order.
Searches answer from what is ready (word matches at once, dense hits as chunks are
stored) and say when dense results were not yet available; when the draft is written
the build stops after its batch in hand and the next run (or ``drafter index``)
continues it.  With ``--no-index`` nothing is built at all.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from graph.configuration import RunContext
from graph.jsontypes import JsonDict
from graph.state import DraftState


def ensure_index(state: DraftState, runtime: Runtime[RunContext]) -> JsonDict:
    res = runtime.context.resources
    if not res.use_index:
        return {"index_info": {"used": False}, "notes": ["retrieval index not used for this run"]}
    res.start_index()
    info: JsonDict = {"used": True, "built": "in the background"}
    stats = res.index_stats
    for attr in ("collection", "chunks", "files_indexed"):
        value = getattr(stats, attr, None)
        if isinstance(value, str | int | float):
            info[attr] = value
    return {"index_info": info}
