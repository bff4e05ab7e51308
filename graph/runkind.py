"""Which workflow a run belongs to, recorded beside its checkpoint when it starts.

Why: ``drafter draft --resume THREAD`` must continue a run in the workflow that
started it.  A thread ID's name is not a fact about the run and neither is the shape
of its checkpoint, so the kind is written as data in ``runs/<thread>.workflow`` when
the run starts (:func:`graph.checkpointer.open_checkpointer`, for every workflow the
one runner :func:`graph.engine.run` runs) and only read back from there.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

from drafter.errors import BadInput


class WorkflowKind(StrEnum):
    runtime = "runtime"
    epistemic = "epistemic"


def record_kind(checkpoint: Path, kind: WorkflowKind) -> None:
    """Note which workflow the run checkpointed at ``checkpoint`` runs (when it starts)."""
    checkpoint.with_suffix(".workflow").write_text(kind.value + "\n", encoding="utf-8")


def kind_of(checkpoint: Path, thread_id: str) -> WorkflowKind | None:
    """The workflow the run ``thread_id`` recorded; None when there is no such run.

    A checkpoint without a readable record (a run started before runs recorded their
    workflow) is refused in one line rather than guessed at."""
    path = checkpoint.with_suffix(".workflow")
    try:
        return WorkflowKind(path.read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        pass
    if not checkpoint.exists():
        return None
    raise BadInput(
        f"run {thread_id!r} recorded no workflow (it started before runs recorded theirs): "
        "start the draft again",
        where=str(path),
    )
