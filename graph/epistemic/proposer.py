"""The contract of an epistemic proposer (offline rules or Claude), with its defaults.

The epistemic workflow asks one thing, :meth:`EpistemicProposerBase.draft`; what else
it reads or calls is declared here with a default, so the workflow never probes for
optional members: ``start`` (the run's handles), ``uses_journal`` (whether the run
keeps a call journal for it), ``notes`` and ``missing`` (what the last draft said
about itself).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from drafter.model import Report
from graph.epistemic.runtime_input import RuntimeInput
from graph.proposer import RunHandles
from retrieval.survey import Survey


@dataclass
class EpistemicContext:
    """What the proposer reads: survey, runtime input and the revision's files."""

    system: str
    identity: str
    sha: str
    survey: Survey
    runtime: RuntimeInput
    text_of: Callable[[str], list[str] | None]
    path_exists: Callable[[str], bool]


class EpistemicProposerBase:
    """Base of the epistemic proposers; a subclass sets ``name`` and implements
    :meth:`draft`."""

    name: str = "proposer"
    #: The run keeps a call journal beside its checkpoint for this proposer (a model
    #: proposer: answered calls are replayed on resume, not paid again).
    uses_journal: bool = False
    #: The USD cap of the run, for a proposer that prices its calls.
    max_cost: float | None = None

    def __init__(self) -> None:
        #: What the last :meth:`draft` noted about itself, for the draft's notes.
        self.notes: list[str] = []
        #: What the last :meth:`draft` could not draft (a partial draft).
        self.missing: list[str] = []

    @property
    def model(self) -> str | None:
        """The model that drafts, for the draft's metadata (None: no model)."""
        return None

    def start(self, run: RunHandles) -> None:
        """Called once by the run, before its first node; default: nothing."""

    def draft(self, ctx: EpistemicContext) -> Report:
        raise NotImplementedError
