"""Pin the revision: resolve REV to a full SHA and list the tree once.

Every later node and the draft's ``source`` use this SHA, so a branch that moves while
the run is paused (or between a crash and ``--resume``) cannot mix two revisions.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from drafter.errors import UnknownRevision
from graph.configuration import RunContext
from graph.jsontypes import JsonDict
from graph.state import DraftState
from graph.system_name import system_name


def resolve_snapshot(state: DraftState, runtime: Runtime[RunContext]) -> JsonDict:
    snap = runtime.context.resources.snapshot()
    pinned = state.get("sha")
    if pinned and snap.sha != pinned:
        raise UnknownRevision(
            f"{state['rev']!r} now resolves to {snap.sha[:12]}, the run was pinned at {pinned[:12]}"
        )
    system = state.get("system") or system_name(snap.git_dir)
    return {"sha": snap.sha, "identity": snap.name, "files": snap.files(), "system": system}
