"""Building the epistemic proposer: the rules, or Claude with the run's tool budgets.

Which generator a command runs is :func:`graph.proposers.factory.choose`'s to say;
this module only builds what was chosen, for a run and for ``--estimate`` (which
sends nothing, so needs no key), so the two cannot be built two ways.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from drafter.errors import BadInput
from graph.epistemic.offline import OfflineEpistemicProposer
from graph.epistemic.proposer import EpistemicProposerBase
from graph.proposers.factory import Generator

if TYPE_CHECKING:  # the model proposer loads the SDK, and only when it is built
    from graph.epistemic.claude import ClaudeEpistemicProposer


def build_epistemic_proposer(
    generator: Generator,
    model: str | None,
    budgets: dict[str, int] | None = None,
    announce: Callable[[str], None] | None = None,
) -> EpistemicProposerBase:
    """The epistemic proposer of ``generator``: the rules, or Claude with the given
    tool budgets (``record``, ``account`` for the sections)."""
    if generator == "offline":
        return OfflineEpistemicProposer()
    return claude_epistemic_proposer(model, budgets, announce)


def claude_epistemic_proposer(
    model: str | None,
    budgets: dict[str, int] | None = None,
    announce: Callable[[str], None] | None = None,
    *,
    estimate_only: bool = False,
) -> ClaudeEpistemicProposer:
    """Claude drafting the epistemic sections; with ``estimate_only`` it is only asked
    to plan, so it holds no key (and none is needed)."""
    from drafter.providers import DEFAULT
    from graph.configuration import resolve_model
    from graph.epistemic.claude import ClaudeEpistemicProposer
    from graph.pricing import provider_price
    from graph.proposers.claude import ToolBudgets
    from graph.proposers.factory import model_proposer

    try:
        tools = ToolBudgets(**(budgets or {}))
    except TypeError as exc:
        raise BadInput(str(exc)) from exc
    chosen = resolve_model(model)
    if estimate_only:
        return ClaudeEpistemicProposer(model_proposer(chosen, tools, estimate_only=True))
    inner = model_proposer(chosen, tools, price=provider_price(DEFAULT, chosen))
    return ClaudeEpistemicProposer(inner, announce=announce)
