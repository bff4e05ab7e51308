"""Which price a run's model has, if any: the Claude table, or the analyst's own.

Why a module of its own: a model behind ``ANTHROPIC_BASE_URL`` may be anything
(``qwen3-coder`` on a laptop, a proxy in front of another provider), and drafter
must not invent a dollar figure for it.  A model is priced when

- ``--price-in`` and ``--price-out`` are given (USD per million tokens; they win over
  the table).  Cache writes and reads are then charged at the input price: a discount
  the analyst did not state is not assumed;
- or its name is exactly a model ID of :data:`graph.price_table.PRICES` (the
  provider's published prices, each row with its source).  No prefix is matched: a
  ``claude-*`` name that is not in the table is as unpriced as a local model.

Anything else has no price (``None``): its estimate is in tokens only, its usage table
shows no cost, and ``--max-cost`` is refused (``--max-tokens-total`` caps it instead).
"""

from __future__ import annotations

import math

from graph.costs import Price, price_for


def table_price(model: str) -> Price | None:
    """The list price of exactly this model ID, else None (no price is known)."""
    return price_for(model)


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
