"""Building the epistemic proposer: the rules, or Claude with the run's tool budgets.

Which generator a command runs is :func:`graph.proposers.factory.choose`'s to say;
this module only builds what was chosen, for a run and for ``--estimate`` (which
sends nothing, so needs no key), so the two cannot be built two ways; and it prices
the run (:func:`cost_cap`) by the rule the runtime workflow's settings follow.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from drafter.errors import BadInput
from graph.epistemic.offline import OfflineEpistemicProposer
from graph.epistemic.proposer import EpistemicProposer
from graph.proposers.factory import Generator

if TYPE_CHECKING:  # the model proposer loads the SDK, and only when it is built
    from pathlib import Path

    from graph.epistemic.claude import ClaudeEpistemicProposer
    from graph.request import DraftRequest


def build_epistemic_proposer(
    generator: Generator,
    model: str | None,
    budgets: dict[str, int] | None = None,
    announce: Callable[[str], None] | None = None,
) -> EpistemicProposer:
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


def cost_cap(model: str | None, max_cost: float | None) -> float | None:
    """The model run's USD cap: refused for a model without a price (one line, exit 2),
    the default for a priced model, none for an unpriced one."""
    from drafter.providers import DEFAULT
    from graph.configuration import DEFAULT_MAX_COST, resolve_model
    from graph.pricing import provider_price, unpriced_cap_error

    chosen = resolve_model(model)
    if provider_price(DEFAULT, chosen) is None:
        if max_cost is not None:
            raise BadInput(unpriced_cap_error(chosen))
        return None
    return DEFAULT_MAX_COST if max_cost is None else max_cost


def estimate_line(
    request: DraftRequest,
    runtime_path: Path,
    store: str | None,
    *,
    model: str | None,
    budgets: dict[str, int] | None,
    max_cost: float | None,
) -> str:
    """``--estimate``: the range of a model run, planned as it would plan; no call, no key."""
    from graph.epistemic.workflow import plan_epistemic

    cap = cost_cap(model, max_cost)
    proposer = claude_epistemic_proposer(model, budgets, estimate_only=True)
    plan_epistemic(
        request.repo, request.sha, runtime_path, proposer,
        store=store, system=request.system, data_dir=request.data_dir,
    )  # fmt: skip
    assert proposer.estimate is not None
    return proposer.estimate.line(cap)
