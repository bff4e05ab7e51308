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
from dataclasses import asdict, dataclass
from typing import Any

from rich.table import Table

from drafter.model import Usage


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens."""

    input: float
    output: float
    cache_write: float
    cache_read: float


def _family(inp: float, out: float) -> Price:
    # Anthropic's published pattern: cache writes (5 min) cost 1.25x input, reads 0.1x.
    return Price(inp, out, inp * 1.25, inp * 0.1)


#: List prices by model family.  An estimate for the analyst's budget, matched by
#: prefix; unknown models are priced as the most expensive family so a budget errs on
#: the side of stopping early.
PRICES: dict[str, Price] = {
    "claude-haiku": _family(1.0, 5.0),
    "claude-sonnet": _family(3.0, 15.0),
    "claude-opus": _family(5.0, 25.0),
}
FALLBACK_PRICE = _family(15.0, 75.0)


def price_for(model: str) -> Price:
    for prefix, price in PRICES.items():
        if model.startswith(prefix):
            return price
    return FALLBACK_PRICE


@dataclass
class CallUsage:
    """One model call's tokens, as reported in the Messages API ``usage`` field."""

    node: str
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0

    @property
    def cost_usd(self) -> float:
        p = price_for(self.model)
        return (
            self.input_tokens * p.input
            + self.output_tokens * p.output
            + self.cache_creation_input_tokens * p.cache_write
            + self.cache_read_input_tokens * p.cache_read
        ) / 1_000_000

    def to_dict(self) -> dict[str, object]:
        d: dict[str, object] = asdict(self)
        d["cost_usd"] = self.cost_usd
        return d


class BudgetExceeded(Exception):
    """Raised before a model call once ``--max-cost`` is spent; nodes turn it into
    a "missing" entry so the run ends with a clean partial draft."""


class Budget:
    """Dollars spent in this run (seeded from the checkpoint on resume)."""

    def __init__(self, limit: float | None = None, spent: float = 0.0):
        self.limit = limit
        self._spent = spent
        self._lock = threading.Lock()

    @property
    def spent(self) -> float:
        with self._lock:
            return self._spent

    def add(self, cost: float) -> None:
        with self._lock:
            self._spent += cost

    def check(self) -> None:
        """Refuse a new call when the limit is already reached."""
        if self.limit is not None and self.spent >= self.limit:
            raise BudgetExceeded(f"budget of ${self.limit:.2f} spent (${self.spent:.4f})")


class Meter:
    """Collects the calls one node invocation makes."""

    def __init__(self, node: str, budget: Budget):
        self.node = node
        self.budget = budget
        self.calls: list[CallUsage] = []

    def charge(self, model: str, usage: object) -> CallUsage:
        """Record a Messages API ``usage`` object (attributes or dict keys)."""

        def get(name: str) -> int:
            v = usage.get(name) if isinstance(usage, dict) else getattr(usage, name, None)
            return int(v or 0)

        call = CallUsage(
            node=self.node,
            model=model,
            input_tokens=get("input_tokens"),
            output_tokens=get("output_tokens"),
            cache_creation_input_tokens=get("cache_creation_input_tokens"),
            cache_read_input_tokens=get("cache_read_input_tokens"),
        )
        self.calls.append(call)
        self.budget.add(call.cost_usd)
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


def charge(model: str, usage: object) -> None:
    meter = _current.get()
    if meter is not None:
        meter.charge(model, usage)


def summarize(entries: Iterable[Mapping[str, Any]]) -> list[Usage]:
    """Per-node totals in first-seen node order."""
    out: dict[str, Usage] = {}
    for e in entries:
        node = str(e["node"])
        u = out.setdefault(node, Usage(node=node))
        u.calls += 1
        u.input_tokens += int(e.get("input_tokens", 0))
        u.output_tokens += int(e.get("output_tokens", 0))
        u.cache_creation_input_tokens += int(e.get("cache_creation_input_tokens", 0))
        u.cache_read_input_tokens += int(e.get("cache_read_input_tokens", 0))
        u.cost_usd += float(e.get("cost_usd", 0.0))
    for u in out.values():
        # summing floats in task-completion order must not make two equal runs differ
        u.cost_usd = round(u.cost_usd, 9)
    return list(out.values())


def total_cost(entries: Iterable[Mapping[str, Any]]) -> float:
    return sum(float(e.get("cost_usd", 0.0)) for e in entries)


def usage_table(usages: list[Usage], title: str = "Model usage by node") -> Table:
    table = Table(title=title)
    for col in ("node", "calls", "input", "output", "cache write", "cache read", "cost $"):
        table.add_column(col, justify="left" if col == "node" else "right")
    tot = Usage(node="total")
    for u in [*usages]:
        table.add_row(
            u.node,
            str(u.calls),
            str(u.input_tokens),
            str(u.output_tokens),
            str(u.cache_creation_input_tokens),
            str(u.cache_read_input_tokens),
            f"{u.cost_usd:.4f}",
        )
        tot.calls += u.calls
        tot.input_tokens += u.input_tokens
        tot.output_tokens += u.output_tokens
        tot.cache_creation_input_tokens += u.cache_creation_input_tokens
        tot.cache_read_input_tokens += u.cache_read_input_tokens
        tot.cost_usd += u.cost_usd
    table.add_row(
        "total",
        str(tot.calls),
        str(tot.input_tokens),
        str(tot.output_tokens),
        str(tot.cache_creation_input_tokens),
        str(tot.cache_read_input_tokens),
        f"{tot.cost_usd:.4f}",
        style="bold",
    )
    return table
