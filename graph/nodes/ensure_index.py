"""Start indexing the revision in Chroma; never make the survey or the plan wait.

Indexing is idempotent and incremental (retrieval's job).  This node only starts it
in the background (:meth:`Resources.start_index`): the first retrieval a record asks
for waits for the build, and the run lets it finish before closing, so the next run
finds the collection complete.  A run whose proposer never searches pays for index
work only in wall time after its draft is written, never before the plan; with
``--no-index`` nothing is built at all.
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
    res.start_index()
    info: dict[str, Any] = {"used": True, "built": "in the background"}
    stats = res.index_stats
    for attr in ("collection", "chunks", "files_indexed"):
        value = getattr(stats, attr, None)
        if isinstance(value, str | int | float):
            info[attr] = value
    return {"index_info": info}
