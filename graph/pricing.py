"""Which price a run's model has, if any: the Claude table, or the analyst's own.

Why a module of its own: a model behind ``ANTHROPIC_BASE_URL`` may be anything
(``qwen3-coder`` on a laptop, a proxy in front of another provider), and drafter
must not invent a dollar figure for it.  A model is priced when

- ``--price-in`` and ``--price-out`` are given (USD per million tokens; they win over
  the table).  Cache writes and reads are then charged at the input price: a discount
  the analyst did not state is not assumed;
- or its name is exactly a model ID of :data:`drafter.price_table.PRICES` (the
  provider's published prices, each row with its source).  No prefix is matched: a
  ``claude-*`` name that is not in the table is as unpriced as a local model.

Anything else has no price (``None``): its estimate is in tokens only, its usage table
shows no cost, and ``--max-cost`` is refused (``--max-tokens-total`` caps it instead).
"""

from __future__ import annotations

# the table and the rules live in the core, where evals can read them too
from drafter.prices import (
    Price,
    check_prices,
    given_price,
    resolve_price,
    table_price,
    unpriced_cap_error,
)

__all__ = [
    "check_prices",
    "given_price",
    "provider_price",
    "resolve_price",
    "table_price",
    "unpriced_cap_error",
]


def provider_price(
    provider: str, model: str, price_in: float | None = None, price_out: float | None = None
) -> Price | None:
    """The price a run of ``model`` through ``provider`` charges: the given pair, else
    the registered provider's own table (graph.proposers.providers), else None."""
    if price_in is not None and price_out is not None:
        return given_price(price_in, price_out)
    from graph.proposers.providers import provider as registered

    return registered(provider).prices.get(model)
