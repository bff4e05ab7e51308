"""Run settings for the drafting workflow, and the run-scoped context the nodes use.

Settings (:class:`Configuration`) are plain values: they are stored in the checkpoint
with the run so that ``--resume`` continues with exactly the same model, limits and
proposer.  Live objects — the proposer, the snapshot, the index, the budget — cannot
be checkpointed; they travel in :class:`RunContext`, LangGraph's run-scoped context,
and are rebuilt from the settings when a run resumes in a fresh process.
"""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass, field

from drafter import defaults
from drafter.config import ENV_MODEL, env_number
from graph.context_window import check_window, window_settings
from graph.costs import Budget, Price
from graph.jsontypes import JsonDict
from graph.pricing import check_prices, provider_price, unpriced_cap_error
from graph.proposer import Proposer
from graph.resources import Resources

#: The Claude model of a run (drafter.defaults.MODEL); ``--model`` or $DRAFTER_MODEL
#: override it.
DEFAULT_MODEL = defaults.MODEL

#: USD a Claude draft may spend when ``--max-cost`` is not given (drafter.defaults).
DEFAULT_MAX_COST = defaults.MAX_COST_USD

#: Seconds of the first backoff wait after a 5xx / 529 overloaded answer (doubling,
#: with jitter, up to the retry policy's cap).  An environment setting rather than a
#: run setting: it is about this process's patience, not what the run drafts, so it is
#: not checkpointed.  End-to-end tests set it tiny so retries do not slow them down.
ENV_RETRY_BASE = "DRAFTER_RETRY_BASE_SECONDS"
DEFAULT_RETRY_BASE = 1.0

#: Below this a record's task text alone would hardly fit.
MIN_RECORD_CONTEXT_BYTES = 2_048


def resolve_model(cli_value: str | None = None) -> str:
    """``--model`` beats $DRAFTER_MODEL beats :data:`DEFAULT_MODEL`."""
    return cli_value or os.environ.get(ENV_MODEL) or DEFAULT_MODEL


def retry_base_seconds() -> float:
    """$DRAFTER_RETRY_BASE_SECONDS, else :data:`DEFAULT_RETRY_BASE`; bad values are bad input."""
    return env_number(
        ENV_RETRY_BASE,
        DEFAULT_RETRY_BASE,
        float,
        lambda v: 0 <= v < math.inf,
        "a non-negative number of seconds",
    )


def endpoint_settings(
    model: str,
    generator: str,
    max_cost: float | None,
    *,
    price_in: float | None = None,
    price_out: float | None = None,
    max_tokens_total: int | None = None,
    context_window: int | None = None,
    provider: str = "anthropic",
) -> JsonDict:
    """The :class:`Configuration` fields of the endpoint options: the prices, the token
    cap, the window and what it derives, and the cost cap — :data:`DEFAULT_MAX_COST`
    for a model drafter can price, none for one it cannot (the estimate says so)."""
    priced = provider_price(provider, model, price_in, price_out) is not None
    if max_cost is None and generator == "claude" and priced:
        max_cost = DEFAULT_MAX_COST
    return {
        "max_cost": max_cost,
        "price_in": price_in,
        "price_out": price_out,
        "max_tokens_total": max_tokens_total,
        **window_settings(context_window),
    }


@dataclass(frozen=True)
class EndpointOptions:
    """The endpoint options as given (``cli_options.endpoint``: ``draft`` and
    ``redraft`` both take them), before :func:`endpoint_settings` turns them into
    settings; checked by :class:`Configuration` like any setting."""

    price_in: float | None = None
    price_out: float | None = None
    max_tokens_total: int | None = None
    context_window: int | None = None

    def settings(
        self, model: str, generator: str, max_cost: float | None, provider: str = "anthropic"
    ) -> JsonDict:
        return endpoint_settings(
            model,
            generator,
            max_cost,
            price_in=self.price_in,
            price_out=self.price_out,
            max_tokens_total=self.max_tokens_total,
            context_window=self.context_window,
            provider=provider,
        )


@dataclass(frozen=True)
class Configuration:
    """What a run is allowed to do.  Stored with the run; never holds secrets."""

    model: str = DEFAULT_MODEL
    generator: str = "offline"
    max_records: int = defaults.MODEL_MAX_RECORDS
    repair_rounds: int = defaults.REPAIR_ROUNDS
    max_cost: float | None = None
    concurrency: int = defaults.CONCURRENCY
    retrieval_k: int = 6
    max_file_chars: int = 12_000
    # tool calls each Claude conversation may make before it must submit
    plan_tool_calls: int = defaults.PLAN_TOOL_CALLS
    record_tool_calls: int = defaults.RECORD_TOOL_CALLS
    repair_tool_calls: int = defaults.REPAIR_TOOL_CALLS
    account_tool_calls: int = defaults.ACCOUNT_TOOL_CALLS
    #: Offline long form: more records and witnesses per record than a review needs.
    thorough: bool = False
    #: USD per million tokens for a model outside the Claude price table (both or
    #: neither; see graph.pricing).  Without a price --max-cost is refused.
    price_in: float | None = None
    price_out: float | None = None
    #: Stop cleanly with a partial draft once this many tokens were reported; works
    #: whether or not the model has a price.
    max_tokens_total: int | None = None
    #: The endpoint's context window in tokens (None: the Claude sizes); the record
    #: context budget, max_file_chars and the tool pages are derived from it
    #: (graph.context_window.window_settings) and every request is cut to fit.
    context_window: int | None = None
    #: Bytes of per-record text a record's first request may carry (its task, the
    #: planner's notes, ranked findings, search hits and the opening pages of its
    #: files).  What does not fit is named with the call that reads it, never dropped
    #: silently.  A smaller model context (``--context-window``) shrinks it.
    record_context_bytes: int = defaults.DEFAULT_RECORD_CONTEXT_BYTES
    #: The model provider (a name of graph.proposers.providers) and its endpoint, None: the one
    #: its SDK reads from the environment.  A run checkpointed before providers were
    #: named reads as an Anthropic run.
    provider: str = "anthropic"
    base_url: str | None = None
    #: Whether the run's searches use dense vectors, decided once when it starts (only
    #: an index complete then is used) and kept with the run, so a resumed run searches
    #: as it did before it stopped and sends the requests its journal answers.  None: not
    #: decided yet (a new run, or one checkpointed before the decision was kept).
    dense_search: bool | None = None

    def __post_init__(self) -> None:
        if self.max_records < 1:
            raise ValueError("max_records must be at least 1")
        if self.repair_rounds < 0:
            raise ValueError("repair_rounds cannot be negative")
        if self.record_context_bytes < MIN_RECORD_CONTEXT_BYTES:
            raise ValueError(f"record_context_bytes must be at least {MIN_RECORD_CONTEXT_BYTES}")
        if self.concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if self.max_cost is not None and not math.isfinite(self.max_cost):
            raise ValueError(f"max_cost must be a finite amount, not {self.max_cost}")
        if self.max_cost is not None and self.max_cost < 0:
            raise ValueError("max_cost cannot be negative")
        for name in ("plan", "record", "repair", "account"):
            if getattr(self, f"{name}_tool_calls") < 0:
                raise ValueError(f"the {name} tool budget cannot be negative")
        self._check_endpoint()

    def _check_endpoint(self) -> None:
        """Prices, token cap and window: what a model of any name needs to be bounded."""
        check_prices(self.price_in, self.price_out)
        if self.max_tokens_total is not None and self.max_tokens_total < 1:
            raise ValueError("--max-tokens-total must be at least 1")
        if self.context_window is not None:
            check_window(self.context_window)
        priced = self.price is not None
        if self.generator == "claude" and self.max_cost is not None and not priced:
            raise ValueError(unpriced_cap_error(self.model))

    @property
    def price(self) -> Price | None:
        """What this run's calls cost per token, None when unknown (graph.pricing)."""
        return provider_price(self.provider, self.model, self.price_in, self.price_out)

    def to_dict(self) -> JsonDict:
        return asdict(self)

    @classmethod
    def from_dict(cls, raw: JsonDict) -> Configuration:
        known = {k: v for k, v in raw.items() if k in cls.__dataclass_fields__}
        return cls(**known)


@dataclass
class RunContext:
    """Live objects of one process's run (LangGraph ``context``; not checkpointed).

    ``resources`` opens the snapshot, index and survey lazily, so a resumed run that
    only has ``assemble`` left never pays for re-indexing.
    """

    proposer: Proposer
    config: Configuration
    resources: Resources
    budget: Budget = field(default_factory=Budget)
