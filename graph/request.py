"""One draft command's request, built once from the command line and passed down.

Why: a revision named by a branch can move while a run is in flight, so it is resolved
once (:meth:`DraftRequest.pin`) and from then on the state, the resources and every
node read the same full SHA; a revision that cannot be read is refused before a run
is recorded.  One value passed down also keeps a command's modes from re-threading
the repository and revision by position.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from drafter.repository import location_of
from drafter.snapshot import Snapshot


@dataclass(frozen=True, slots=True)
class DraftRequest:
    """What to draft and where the results go (the run's settings are apart, in
    :class:`graph.configuration.Configuration`, because they are checkpointed)."""

    #: The repository's absolute location (``--resume`` may run from another folder).
    repo: str
    #: The revision as the user named it (a branch, a tag, a short SHA).
    rev: str
    #: The one resolution of ``rev``.
    sha: str
    data_dir: Path | None = None
    out: Path | None = None
    text_out: Path | None = None
    system: str | None = None
    chroma_url: str | None = None
    use_index: bool = True
    #: Where the run's checkpoints and call journal live (graph.checkpointer): None,
    #: SQLite in the data dir (or $DRAFTER_CHECKPOINT).
    checkpoint: str | None = None

    @classmethod
    def pin(
        cls,
        repo: str,
        rev: str,
        *,
        data_dir: Path | None = None,
        out: Path | None = None,
        text_out: Path | None = None,
        system: str | None = None,
        chroma_url: str | None = None,
        use_index: bool = True,
    ) -> DraftRequest:
        """The request for ``repo`` at ``rev``, its revision resolved here; an unknown
        repository or revision is bad input (raised by the snapshot)."""
        snap = Snapshot(repo, rev)
        try:
            sha = snap.sha
        finally:
            snap.close()
        return cls(
            location_of(repo), rev, sha, data_dir, out, text_out, system, chroma_url, use_index
        )
