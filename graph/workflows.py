"""The report types' workflows, one row each: the table the one runner is given from.

A new report type is a :class:`graph.engine.Workflow` (its state, graph, proposer
protocol and inputs) and a row here; ``--resume`` finds a run's row from the workflow
its run recorded (:func:`graph.runkind.kind_of`), never from the thread ID's name.
"""

from __future__ import annotations

from pathlib import Path

from graph.engine import Workflow
from graph.epistemic.workflow import EPISTEMIC
from graph.run import checkpoint_path
from graph.runkind import WorkflowKind, kind_of
from graph.runner import RUNTIME

#: Every workflow, by the kind a run records.
WORKFLOWS: dict[WorkflowKind, Workflow] = {w.kind: w for w in (RUNTIME, EPISTEMIC)}


def workflow_of(thread_id: str, data_dir: Path | None = None) -> Workflow | None:
    """The workflow run ``thread_id`` recorded when it started; None when there is no
    such run here (a run on a shared checkpointer is a runtime run)."""
    kind = kind_of(checkpoint_path(thread_id, data_dir), thread_id)
    return None if kind is None else WORKFLOWS[kind]
