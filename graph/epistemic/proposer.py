"""The epistemic workflow's proposer protocol (offline rules or a model), with defaults.

Every proposer is a :class:`graph.proposer.ProposerBase`: the one runner starts it with
the run's handles (resources and call journal) and reads its ``name``.  The epistemic
workflow asks one thing more, :meth:`EpistemicProposer.draft`; what else it reads is
declared here with a default, so the workflow never probes for optional members:
``model``, ``max_cost``, ``notes`` and ``missing`` (what the last draft said about
itself).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from drafter.model import Report
from graph.epistemic.runtime_input import RuntimeInput
from graph.proposer import ProposerBase
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


class EpistemicProposer(ProposerBase):
    """The epistemic workflow's proposer; a subclass sets ``name`` and implements
    :meth:`draft`."""

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

    def draft(self, ctx: EpistemicContext) -> Report:
        raise NotImplementedError
