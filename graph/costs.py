"""Token and cost accounting, and the budget behind ``--max-cost``.

Why a context variable: the proposer contract (plan / draft_record / repair_record /
account) deliberately carries no accounting arguments, yet every model call must be
charged to the workflow node that made it.  A node opens a :class:`Meter` for its own
thread of execution; the Claude proposer charges whatever meter is current.  Parallel
record nodes run in separate threads, each with its own meter, sharing one
thread-safe :class:`Budget`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal

from rich.table import Table

from drafter.model import Usage

# the price table lives in the core, where evals reads it too
from drafter.prices import Price as Price
from drafter.prices import table_price


def price_for(model: str) -> Price | None:
    """The list price of exactly this model ID (drafter.price_table), else None: a model
    drafter has no published price for is never priced by a name that looks alike."""
    return table_price(model)


#: How a call is priced: a :class:`Price`, None (no known price: the cost stays
#: unknown rather than $0), or "table" (look the model up with :func:`price_for`).
PriceSpec = Price | None | Literal["table"]

_CACHE_FIELDS = ("cache_creation_input_tokens", "cache_read_input_tokens")


@dataclass
class CallUsage:
    """One model call's tokens, as reported in the Messages API ``usage`` field.

    A cache field is None when the server did not report it (an Anthropic-compatible
    local server has no prompt cache), so no figure is invented for it."""

    node: str
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int | None = 0
    cache_read_input_tokens: int | None = 0
    price: PriceSpec = field(default="table", repr=False)

    @property
    def tokens(self) -> int:
        """Every token the call reported, cached or not (what --max-tokens-total counts)."""
        cached = (self.cache_creation_input_tokens or 0) + (self.cache_read_input_tokens or 0)
        return self.input_tokens + self.output_tokens + cached

    @property
    def cost_usd(self) -> float | None:
        p = price_for(self.model) if self.price == "table" else self.price
        if p is None:
            return None
        return (
            self.input_tokens * p.input
            + self.output_tokens * p.output
            + (self.cache_creation_input_tokens or 0) * p.cache_write
            + (self.cache_read_input_tokens or 0) * p.cache_read
        ) / 1_000_000

    def to_dict(self) -> dict[str, object]:
        return {
            "node": self.node,
            "model": self.model,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_creation_input_tokens": self.cache_creation_input_tokens,
            "cache_read_input_tokens": self.cache_read_input_tokens,
            "cost_usd": self.cost_usd,
        }


class BudgetExceeded(Exception):
    """Raised before a model call once ``--max-cost`` (or ``--max-tokens-total``) is
    spent; nodes turn it into a "missing" entry so the run ends with a clean partial
    draft."""


class Budget:
    """Dollars and tokens spent in this run (seeded from the checkpoint on resume).

    ``token_limit`` caps every reported token, cached or not; it works whether or not
    the model has a price, which is what a local model needs."""

    def __init__(
        self,
        limit: float | None = None,
        spent: float = 0.0,
        *,
        token_limit: int | None = None,
        tokens: int = 0,
    ):
        self.limit = limit
        self.token_limit = token_limit
        self._spent = spent
        self._tokens = tokens
        self._lock = threading.Lock()

    @property
    def spent(self) -> float:
        with self._lock:
            return self._spent

    @property
    def tokens(self) -> int:
        with self._lock:
            return self._tokens

    def add(self, cost: float | None, tokens: int = 0) -> None:
        with self._lock:
            self._spent += cost or 0.0
            self._tokens += tokens

    @property
    def exhausted(self) -> bool:
        """True once either cap is reached (no further call would be allowed)."""
        if self.limit is not None and self.spent >= self.limit:
            return True
        return self.token_limit is not None and self.tokens >= self.token_limit

    def check(self) -> None:
        """Refuse a new call when a limit is already reached."""
        if self.limit is not None and self.spent >= self.limit:
            raise BudgetExceeded(f"budget of ${self.limit:.2f} spent (${self.spent:.4f})")
        if self.token_limit is not None and self.tokens >= self.token_limit:
            raise BudgetExceeded(
                f"token budget of {self.token_limit:,} spent ({self.tokens:,} tokens)"
            )


class Meter:
    """Collects the calls one node invocation makes."""

    def __init__(self, node: str, budget: Budget):
        self.node = node
        self.budget = budget
        self.calls: list[CallUsage] = []
        #: What the proposer wants the draft's notes to say about these calls (a
        #: request cut to fit the context window, a tool call read from text).
        self.notes: list[str] = []

    def charge(self, model: str, usage: object, price: PriceSpec = "table") -> CallUsage:
        """Record a Messages API ``usage`` object (attributes or dict keys); a cache
        field the server did not send stays None."""

        def raw(name: str) -> Any:
            return usage.get(name) if isinstance(usage, dict) else getattr(usage, name, None)

        cache = {n: (None if raw(n) is None else int(raw(n))) for n in _CACHE_FIELDS}
        call = CallUsage(
            node=self.node,
            model=model,
            input_tokens=int(raw("input_tokens") or 0),
            output_tokens=int(raw("output_tokens") or 0),
            price=price,
            **cache,
        )
        self.calls.append(call)
        self.budget.add(call.cost_usd, call.tokens)
        return call

    def entries(self) -> list[dict[str, object]]:
        return [c.to_dict() for c in self.calls]


_current: ContextVar[Meter | None] = ContextVar("drafter_meter", default=None)


@contextmanager
def metered(node: str, budget: Budget) -> Iterator[Meter]:
    """Make a fresh meter current for the calls made inside the block."""
    meter = Meter(node, budget)
    token = _current.set(meter)
    try:
        yield meter
    finally:
        _current.reset(token)


def current_meter() -> Meter | None:
    return _current.get()


def check_budget() -> None:
    """Called by proposers before each paid call; no-op outside a metered node."""
    meter = _current.get()
    if meter is not None:
        meter.budget.check()


def charge(model: str, usage: object, price: PriceSpec = "table") -> None:
    meter = _current.get()
    if meter is not None:
        meter.charge(model, usage, price)


def note(text: str) -> None:
    """Keep a note about the current node's calls for the draft (no-op outside one)."""
    meter = _current.get()
    if meter is not None:
        meter.notes.append(text)


def _add(total: int | float | None, value: Any) -> Any:
    """Sum that stays None while nothing was reported (None + None is None)."""
    if value is None:
        return total
    return value if total is None else total + value


def summarize(entries: Iterable[Mapping[str, Any]]) -> list[Usage]:
    """Per-node totals in first-seen node order.  A cache figure or cost no call of a
    node reported stays None, so a server without a prompt cache (or a model without
    a price) shows "—", not an invented 0."""
    out: dict[str, Usage] = {}
    for e in entries:
        node = str(e["node"])
        if node not in out:
            out[node] = Usage(
                node=node,
                cache_creation_input_tokens=None,
                cache_read_input_tokens=None,
                cost_usd=None,
            )
        u = out[node]
        u.calls += 1
        u.input_tokens += int(e.get("input_tokens", 0))
        u.output_tokens += int(e.get("output_tokens", 0))
        for name in _CACHE_FIELDS:
            setattr(u, name, _add(getattr(u, name), e.get(name, 0)))
        u.cost_usd = _add(u.cost_usd, e.get("cost_usd", 0.0))
    for u in out.values():
        # summing floats in task-completion order must not make two equal runs differ
        if u.cost_usd is not None:
            u.cost_usd = round(u.cost_usd, 9)
    return list(out.values())


def total_cost(entries: Iterable[Mapping[str, Any]]) -> float:
    return sum(float(e.get("cost_usd") or 0.0) for e in entries)


def total_tokens(entries: Iterable[Mapping[str, Any]]) -> int:
    """Every token the entries reported (what a resumed run's token budget starts at)."""
    fields = ("input_tokens", "output_tokens", *_CACHE_FIELDS)
    return sum(int(e.get(f) or 0) for e in entries for f in fields)


def _cell(value: int | float | None, money: bool = False) -> str:
    """A figure, or "—" for one that was never reported (no cache, no price)."""
    if value is None:
        return "—"
    return f"{value:.4f}" if money else str(value)


def usage_table(usages: list[Usage], title: str = "Model usage by node") -> Table:
    table = Table(title=title)
    for col in ("node", "calls", "input", "output", "cache write", "cache read", "cost $"):
        table.add_column(col, justify="left" if col == "node" else "right")
    tot = Usage(node="total", cache_creation_input_tokens=None, cache_read_input_tokens=None)
    tot.cost_usd = None
    for u in [*usages]:
        table.add_row(
            u.node,
            str(u.calls),
            str(u.input_tokens),
            str(u.output_tokens),
            _cell(u.cache_creation_input_tokens),
            _cell(u.cache_read_input_tokens),
            _cell(u.cost_usd, money=True),
        )
        tot.calls += u.calls
        tot.input_tokens += u.input_tokens
        tot.output_tokens += u.output_tokens
        for name in _CACHE_FIELDS:
            setattr(tot, name, _add(getattr(tot, name), getattr(u, name)))
        tot.cost_usd = _add(tot.cost_usd, u.cost_usd)
    table.add_row(
        "total",
        str(tot.calls),
        str(tot.input_tokens),
        str(tot.output_tokens),
        _cell(tot.cache_creation_input_tokens),
        _cell(tot.cache_read_input_tokens),
        _cell(tot.cost_usd, money=True),
        style="bold",
    )
    return table
