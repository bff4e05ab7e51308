"""One run's bookkeeping, shared by the runtime and the epistemic workflows.

Both keep one SQLite checkpoint per run (``<data dir>/runs/<thread id>.sqlite``) and,
for a model proposer, a call journal beside it; both continue a stopped run from its
thread ID alone.  The naming of threads and files and the reading of a stored run
back for ``--resume`` live here, once, so the two workflows cannot drift apart.
"""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.sqlite import SqliteSaver

from drafter.config import data_dir as default_data_dir
from drafter.errors import BadInput
from graph.jsontypes import JsonDict
from graph.runkind import WorkflowKind

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from langgraph.graph import StateGraph


class NothingSaved(BadInput):
    """The run has no step on disk (killed before its first checkpoint, or before its
    checkpoint file was made): a damaged checkpoint is a plain :class:`BadInput`."""


#: How each workflow's thread IDs start (a name only: resume reads the recorded kind).
THREAD_PREFIX = {WorkflowKind.runtime: "draft", WorkflowKind.epistemic: "epi"}

#: Called with each step's updates as the run streams them: node name -> its update.
ChunkHook = Callable[[Mapping[str, object]], None]


def new_thread_id(rev: str = "", kind: WorkflowKind = WorkflowKind.runtime) -> str:
    return f"{THREAD_PREFIX[kind]}-{secrets.token_hex(4)}"


def execute(
    graph: StateGraph[Any, Any],
    saver: BaseCheckpointSaver[Any],
    conf: RunnableConfig,
    inputs: Mapping[str, object] | None,
    context: object,
    on_chunk: ChunkHook | None = None,
) -> JsonDict:
    """Stream one run of ``graph`` checkpointed by ``saver`` to its end; its final state.

    Every workflow runs through here, whichever checkpointer holds it
    (:func:`graph.checkpointer.open_checkpointer`): a new run passes its ``inputs``, a
    resumed one None (LangGraph continues from the checkpoint).  "sync" durability
    writes each step's checkpoint before the next step starts, so a killed run loses at
    most the step in flight (and the call journal answers that step's paid calls)."""
    app = graph.compile(checkpointer=saver)
    stream = app.stream(inputs, conf, context=context, stream_mode="updates", durability="sync")
    for chunk in stream:
        if on_chunk is not None:
            on_chunk(chunk if isinstance(chunk, Mapping) else {})
    return dict(app.get_state(conf).values or {})


def checkpoint_path(thread_id: str, data_dir: Path | None = None) -> Path:
    """The run's checkpoint file; a thread ID that could name another path is refused."""
    if not thread_id or any(c in thread_id for c in "/\\") or thread_id.startswith("."):
        raise BadInput(f"thread id {thread_id!r} is not valid")
    root = (data_dir or default_data_dir()) / "runs"
    root.mkdir(parents=True, exist_ok=True)
    return root / f"{thread_id}.sqlite"


def journal_path(thread_id: str, data_dir: Path | None = None) -> Path:
    """The run's call journal (graph.journal), beside its checkpoint."""
    return checkpoint_path(thread_id, data_dir).with_suffix(".calls.sqlite")


def existing_checkpoint(thread_id: str, data_dir: Path | None = None) -> Path:
    """The checkpoint of a run to resume; a run that never started is bad input."""
    path = checkpoint_path(thread_id, data_dir)
    if not path.exists() and path.with_suffix(".workflow").exists():
        raise _nothing_saved(thread_id)
    if not path.exists():
        raise NothingSaved(f"no run {thread_id!r} to resume (looked for {path})")
    return path


def _nothing_saved(thread_id: str) -> BadInput:
    return NothingSaved(
        f"run {thread_id!r} stopped before its first step was saved: there is nothing "
        "to resume; start the draft again"
    )


def stored_values(
    thread_id: str, graph: StateGraph[Any, Any], data_dir: Path | None = None
) -> JsonDict:
    """The last saved state of a run of ``graph``, for ``--resume`` to rebuild it from.

    A damaged checkpoint, or a run stopped before its first step was saved, is bad
    input said in one line: there is nothing to continue."""
    path = existing_checkpoint(thread_id, data_dir)
    try:
        with SqliteSaver.from_conn_string(str(path)) as saver:
            app = graph.compile(checkpointer=saver)
            values = dict(app.get_state({"configurable": {"thread_id": thread_id}}).values or {})
    except (sqlite3.DatabaseError, ValueError) as exc:
        raise BadInput(
            f"checkpoint of run {thread_id!r} is unreadable ({str(exc).splitlines()[0]}); "
            "start a new run",
            where=str(path),
        ) from None
    if not values:
        raise _nothing_saved(thread_id)
    return values


def request_path(thread_id: str, data_dir: Path | None = None) -> Path:
    """What the command asked for (repository, revision, settings, --out, --text),
    written beside the checkpoint before the thread ID is shown."""
    return checkpoint_path(thread_id, data_dir).with_suffix(".request.json")


def record_request(thread_id: str, request: JsonDict, data_dir: Path | None = None) -> None:
    """Keep the run's request, so ``--resume`` of a run killed before its first step was
    saved can start it again, and writes where the first command said."""
    import json

    from drafter.reportio import atomic_write_text

    atomic_write_text(request_path(thread_id, data_dir), json.dumps(request, indent=1) + "\n")


def recorded_request(thread_id: str, data_dir: Path | None = None) -> JsonDict:
    """The run's recorded request; empty for a run from before requests were kept (or a
    record that is not readable: the checkpoint then decides alone)."""
    import json

    try:
        got = json.loads(request_path(thread_id, data_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return got if isinstance(got, dict) else {}
