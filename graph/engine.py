"""One runner for every report type: a workflow is a spec, a run is :func:`run`.

Why: two report types that open their checkpoints, journals and resumes each their own
way drift apart.  A :class:`Workflow` says what differs — its state,
its graph, the protocol its proposers implement, the inputs a new run starts from and
whether a shared checkpointer may hold it — and :func:`run` does the rest once: it opens
the run's checkpoint (recording the workflow beside a new one, so ``--resume`` reads it
and sniffs nothing), hands the journal to the context the workflow builds, streams the
graph to its end with :func:`graph.run.execute` and returns the final state.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graph.checkpointer import OpenRun, open_checkpointer
from graph.jsontypes import JsonDict
from graph.run import ChunkHook, execute
from graph.runkind import WorkflowKind

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig
    from langgraph.graph import StateGraph


@dataclass(frozen=True)
class Workflow:
    """One report type's workflow, as the runner needs it."""

    kind: WorkflowKind
    #: The TypedDict of its checkpointed state.
    state: type
    #: Builds its (uncompiled) graph.
    build_graph: Callable[[], StateGraph[Any, Any]]
    #: The protocol its proposers implement.
    proposer: type
    #: The state keys a new run is started with.
    inputs: tuple[str, ...]
    #: Whether a shared checkpointer (``--checkpoint``, ``$DRAFTER_CHECKPOINT``) may hold
    #: its runs; else each run is an SQLite file in the data dir.
    shared_checkpoints: bool = True


#: Builds a run's context from its open checkpoint (the journal is there), and closes
#: what it opened (the resources) when the run ends.
ContextFactory = Callable[[OpenRun], AbstractContextManager[object]]


@dataclass(frozen=True)
class RunStart:
    """Where a run is kept and how it starts: a new run's inputs, or None to resume."""

    thread_id: str
    data_dir: Path | None
    inputs: Mapping[str, object] | None
    #: The graph's run config, from the context the workflow built (a resumed run's
    #: settings are read from its checkpoint there).
    conf: Callable[[object], RunnableConfig]
    #: A shared checkpointer's locator (None: ``$DRAFTER_CHECKPOINT``, else SQLite).
    locator: str | None = None

    @property
    def resume(self) -> bool:
        return self.inputs is None


def run(
    workflow: Workflow,
    start: RunStart,
    context: ContextFactory,
    on_chunk: ChunkHook | None = None,
) -> tuple[JsonDict, OpenRun]:
    """Run (or resume) ``workflow`` to its end: its final state and where it was kept."""
    with (
        open_checkpointer(
            start.locator,
            start.thread_id,
            start.data_dir,
            resume=start.resume,
            kind=workflow.kind,
            shared=workflow.shared_checkpoints,
        ) as opened,
        context(opened) as ctx,
    ):
        conf = start.conf(ctx)
        final = execute(workflow.build_graph(), opened.saver, conf, start.inputs, ctx, on_chunk)
    return final, opened
