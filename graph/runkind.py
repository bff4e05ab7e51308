"""Which workflow a run belongs to, recorded beside its checkpoint when it starts.

Why: ``drafter draft --resume THREAD`` must continue a run in the workflow that
started it.  That used to be read off the thread ID (``epi-`` meant epistemic); a
name is not a fact about the run, so the kind is now written as data in
``runs/<thread>.workflow`` and read back from there.
"""

from __future__ import annotations

import sqlite3
from enum import StrEnum
from pathlib import Path


class WorkflowKind(StrEnum):
    runtime = "runtime"
    epistemic = "epistemic"


def record_kind(checkpoint: Path, kind: WorkflowKind) -> None:
    """Note which workflow the run checkpointed at ``checkpoint`` runs (when it starts)."""
    checkpoint.with_suffix(".workflow").write_text(kind.value + "\n", encoding="utf-8")


def kind_of(checkpoint: Path, thread_id: str) -> WorkflowKind | None:
    """The workflow of the run ``thread_id`` checkpointed at ``checkpoint``; None when
    there is no such run.

    A run started before kinds were recorded has no ``.workflow`` file: its checkpoint
    tells, since only the epistemic workflow keeps a ``runtime_path`` channel."""
    path = checkpoint.with_suffix(".workflow")
    db = checkpoint
    try:
        return WorkflowKind(path.read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        pass
    if not db.exists():
        return None
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            row = conn.execute(
                "SELECT 1 FROM writes WHERE thread_id=? AND channel='runtime_path' LIMIT 1",
                (thread_id,),
            ).fetchone()
    except sqlite3.Error:
        return WorkflowKind.runtime
    return WorkflowKind.epistemic if row else WorkflowKind.runtime
