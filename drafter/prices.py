"""List prices of model families, and which price a model name has.

Why in the core: both the drafting path (``graph``) and the judged evaluation
(``evals``) charge model calls against ``--max-cost``, and the dependency rule lets
both read the core but not each other; one table, read by both, cannot drift.

A model is priced when ``--price-in`` and ``--price-out`` are given (USD per million
tokens; cache writes and reads then at the input price: a discount the analyst did
not state is not assumed), or when its name is exactly a model ID of
:data:`drafter.price_table.PRICES` (published prices, each with its source; no prefix is
matched, so an unlisted ``claude-*`` name is unpriced).  Anything else (a local
``qwen3-coder``, a proxy) has no price.
"""

from __future__ import annotations

import math

from drafter.price import Price as Price
from drafter.price_table import PRICES


def table_price(model: str) -> Price | None:
    """The list price of exactly this model ID, else None (no price is known)."""
    return PRICES.get(model)


def given_price(price_in: float, price_out: float) -> Price:
    """The analyst's prices; cache tokens at the input price (no assumed discount)."""
    return Price(price_in, price_out, price_in, price_in, source="--price-in/--price-out")


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
