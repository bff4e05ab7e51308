"""Which proposer a run uses, and building it: the one place that decides.

Commands (``drafter draft``, ``redraft``, the epistemic draft) and scripts call
:func:`choose` and :func:`build_proposer` (the epistemic workflow builds its proposer
with :func:`model_proposer`, as the runtime one does); they print what :func:`choose`
says instead of deciding themselves.  A provider's key is read here only
(:func:`api_key`, from the variable its registry entry names), and never stored in a
run's settings.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from drafter.errors import BadInput

if TYPE_CHECKING:  # the SDK and the rules load when a proposer is built, not before
    from drafter.prices import Price
    from graph.configuration import Configuration
    from graph.context_window import WindowSizes
    from graph.proposer import Proposer
    from graph.proposers.claude import ClaudeProposer, ToolBudgets
    from graph.resources import Resources

#: The environment variable holding the Anthropic API key.
API_KEY_ENV = "ANTHROPIC_API_KEY"

OFFLINE_NOTICE = f"drafter: no {API_KEY_ENV} set; drafting offline from the static survey"

Generator = Literal["claude", "offline"]


def key_env(provider: str = "anthropic") -> str:
    """The environment variable holding ``provider``'s API key (graph.proposers.providers)."""
    from graph.proposers.providers import provider as registered

    return registered(provider).key_env


def api_key(provider: str = "anthropic") -> str | None:
    """The API key of ``provider`` in this process, None when unset or empty."""
    return os.environ.get(key_env(provider)) or None


@dataclass(frozen=True)
class Choice:
    """The proposer kind a command runs, and why."""

    generator: Generator
    #: Why this kind, in a few words (``--offline``, a key is set, ...).
    why: str
    #: A line the command prints on stderr (the fallback to offline), else None.
    notice: str | None = None


def choose(offline: bool, *, keyless: bool = False, provider: str = "anthropic") -> Choice:
    """Offline when asked, else a model of ``provider``, falling back to offline (with
    a notice) when its API key is not set, unless the command sends nothing and so needs
    no key (``keyless``, an estimate)."""
    if offline:
        return Choice("offline", "--offline")
    if keyless:
        return Choice("claude", "an estimate sends nothing and needs no key")
    env = key_env(provider)
    if api_key(provider):
        return Choice("claude", f"{env} is set")
    notice = OFFLINE_NOTICE.replace(API_KEY_ENV, env)
    return Choice("offline", f"no {env}", notice=notice)


def build_proposer(config: Configuration, resources: Resources) -> Proposer:
    """The runtime proposer a configuration names; the key is read here, never stored."""
    if config.generator == "offline":
        from graph.proposers.offline import OfflineProposer
        from graph.proposers.offline.recipe import Limits

        # the offline rules read whole files, not the size-capped texts of a context;
        # they search the index only where it helps (claims), and never wait for it
        # when the run has none
        return OfflineProposer(
            snapshot=resources.snapshot(),
            survey_source=resources.survey,
            search=resources.search if resources.use_index else None,
            limits=Limits.for_run(config.max_records, config.thorough),
        )
    from graph.context_window import sizes_for

    return model_proposer(
        config.model,
        tool_budgets(config),
        provider=config.provider,
        base_url=config.base_url,
        price=config.price,
        window=sizes_for(config.context_window) if config.context_window else None,
    )


def model_proposer(
    model: str,
    budgets: ToolBudgets,
    *,
    provider: str = "anthropic",
    base_url: str | None = None,
    price: Price | None = None,
    window: WindowSizes | None = None,
    estimate_only: bool = False,
) -> ClaudeProposer:
    """The model proposer (tool loop and transport) every workflow drafts with; the key
    is read here, never stored.  With ``estimate_only`` it is only asked to plan and
    count, so it holds no key and needs none."""
    from graph.client_settings import request_timeout, retry_policy
    from graph.proposers.claude import ClaudeProposer

    if estimate_only:
        return ClaudeProposer(model, api_key="not-used", budgets=budgets)
    key = api_key(provider)
    if not key:
        what = "Claude" if provider == "anthropic" else f"the {provider} provider"
        raise BadInput(f"this run drafts with {what} and needs {key_env(provider)}")
    try:
        retry, timeout = retry_policy(), request_timeout()
    except ValueError as exc:
        raise BadInput(str(exc)) from exc
    transport = None
    if provider != "anthropic" or base_url:
        from graph.proposers.providers import TransportSettings
        from graph.proposers.providers import provider as registered

        settings = TransportSettings(key, base_url, timeout, retry)
        transport = registered(provider).make_transport(settings)
    # without a transport the SDK takes the endpoint from $ANTHROPIC_BASE_URL when set
    # (proxies, local servers, tests)
    return ClaudeProposer(
        model,
        api_key=key,
        retry=retry,
        timeout=timeout,
        budgets=budgets,
        price=price,
        window=window,
        transport=transport,
        provider=provider,
    )


def tool_budgets(config: Configuration) -> ToolBudgets:
    """The tool calls each kind of Claude conversation may make in this run."""
    from graph.proposers.claude import ToolBudgets

    return ToolBudgets(
        plan=config.plan_tool_calls,
        record=config.record_tool_calls,
        repair=config.repair_tool_calls,
        account=config.account_tool_calls,
    )
