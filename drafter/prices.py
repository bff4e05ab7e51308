"""List prices of model families, and which price a model name has.

Why in the core: both the drafting path (``graph``) and the judged evaluation
(``evals``) charge model calls against ``--max-cost``, and the dependency rule lets
both read the core but not each other; one table, read by both, cannot drift.

A model is priced when ``--price-in`` and ``--price-out`` are given (USD per million
tokens; cache writes and reads then at the input price: a discount the analyst did
not state is not assumed), or when its name is a Claude model: the family table of
:data:`PRICES`, an unlisted ``claude*`` name the dear fallback (a budget errs on
stopping early).  Anything else (a local ``qwen3-coder``, a proxy) has no price.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


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


#: List prices by model family, matched by prefix: an estimate for the analyst's budget.
PRICES: dict[str, Price] = {
    "claude-haiku": _family(1.0, 5.0),
    "claude-sonnet": _family(3.0, 15.0),
    "claude-opus": _family(5.0, 25.0),
}
#: The price of an unlisted Claude name: the dearest family, so a budget stops early.
FALLBACK_PRICE = _family(15.0, 75.0)


def table_price(model: str) -> Price | None:
    """The list price of a Claude model name, else None (no price is known)."""
    for prefix, price in PRICES.items():
        if model.startswith(prefix):
            return price
    return FALLBACK_PRICE if model.startswith("claude") else None


def given_price(price_in: float, price_out: float) -> Price:
    """The analyst's prices; cache tokens at the input price (no assumed discount)."""
    return Price(price_in, price_out, price_in, price_in)


def resolve_price(
    model: str, price_in: float | None = None, price_out: float | None = None
) -> Price | None:
    """The price a run charges: the given pair, else the table, else None."""
    if price_in is not None and price_out is not None:
        return given_price(price_in, price_out)
    return table_price(model)


def check_prices(price_in: float | None, price_out: float | None) -> None:
    """ValueError unless both prices or neither are given, each a finite number >= 0."""
    if (price_in is None) != (price_out is None):
        raise ValueError(
            "give both --price-in and --price-out (USD per million tokens), or neither"
        )
    for flag, value in (("--price-in", price_in), ("--price-out", price_out)):
        if value is not None and not (math.isfinite(value) and value >= 0):
            raise ValueError(f"{flag} must be a non-negative number of USD per million tokens")


def unpriced_cap_error(model: str) -> str:
    """The one line that refuses ``--max-cost`` for a model without a price."""
    return (
        f"--max-cost needs a price, and {model!r} has none in drafter's table: give "
        "--price-in and --price-out (USD per million tokens), or cap with --max-tokens-total"
    )


def call_cost(price: Price | None, usage: dict[str, int | None]) -> float | None:
    """USD of one call's Messages API ``usage`` (missing cache fields count 0), None
    when the model has no price."""
    if price is None:
        return None

    def n(key: str) -> int:
        return int(usage.get(key) or 0)

    return (
        n("input_tokens") * price.input
        + n("output_tokens") * price.output
        + n("cache_creation_input_tokens") * price.cache_write
        + n("cache_read_input_tokens") * price.cache_read
    ) / 1_000_000
