"""The published list prices of Claude models, by exact model ID, each with its source.

Why exact IDs and a source per row: a name prefix cannot tell ``claude-opus-4-1``
($15 / $75 per million tokens) from ``claude-opus-4-5`` ($5 / $25), and a guessed price
is worse than none: the default ``--max-cost`` cap is measured with it.  A model whose ID
is not here has no price (graph.pricing): its estimate is in tokens only and a USD cap
is refused, exactly as for a local model.  Every estimate prints the row it used and
where that row was read, so an analyst can check it against the provider's page.

Columns: USD per million base input tokens, output tokens, 5-minute cache writes (the
cache drafter's requests use) and cache hits.  Where a model's page gives only input and
output, the cache columns follow the pricing page's prompt-caching rule (a 5-minute write
is 1.25x the input price, a hit 0.1x), said in the row's source.
"""

from __future__ import annotations

from drafter.price import Price

_PRICING = "https://platform.claude.com/docs/en/about-claude/pricing (Model pricing)"
_PRICING_2025 = "https://docs.anthropic.com/en/docs/about-claude/pricing (Model pricing)"
_CACHE_RULE = "; cache columns by its prompt-caching rule (1.25x / 0.1x input)"


def _card(model: str) -> str:
    return f"https://platform.claude.com/docs/en/models/{model}/overview (Pricing)"


def _row(inp: float, out: float, write: float, read: float, source: str) -> Price:
    return Price(inp, out, write, read, source=source)


_OPUS_45 = _row(5.0, 25.0, 6.25, 0.50, _PRICING)
_OPUS_4 = _row(15.0, 75.0, 18.75, 1.50, _PRICING_2025)
_SONNET_3 = _row(3.0, 15.0, 3.75, 0.30, _PRICING_2025)
_SONNET_45 = _row(3.0, 15.0, 3.75, 0.30, _card("sonnet-4-5") + _CACHE_RULE)
_HAIKU_45 = _row(1.0, 5.0, 1.25, 0.10, _card("haiku-4-5") + _CACHE_RULE)
_SONNET_5 = _row(2.0, 10.0, 2.50, 0.20, _card("sonnet-5"))
_SONNET_55 = _row(2.0, 10.0, 2.50, 0.20, _card("sonnet-5-5"))

#: Exact model ID (the dated ID and the alias the provider's docs list) -> list price.
PRICES: dict[str, Price] = {
    "claude-sonnet-5-5": _SONNET_55,
    "claude-sonnet-5": _SONNET_5,
    "claude-opus-5": _OPUS_45,
    "claude-opus-4-8": _OPUS_45,
    "claude-opus-4-7": _OPUS_45,
    "claude-opus-4-6": _OPUS_45,
    "claude-opus-4-5": _OPUS_45,
    "claude-opus-4-5-20251101": _OPUS_45,
    "claude-sonnet-4-5": _SONNET_45,
    "claude-sonnet-4-5-20250929": _SONNET_45,
    "claude-haiku-4-5": _HAIKU_45,
    "claude-haiku-4-5-20251001": _HAIKU_45,
    "claude-opus-4-1": _row(15.0, 75.0, 18.75, 1.50, _PRICING),
    "claude-opus-4-1-20250805": _row(15.0, 75.0, 18.75, 1.50, _PRICING),
    "claude-opus-4-0": _OPUS_4,
    "claude-opus-4-20250514": _OPUS_4,
    "claude-sonnet-4-0": _SONNET_3,
    "claude-sonnet-4-20250514": _SONNET_3,
    "claude-3-7-sonnet-latest": _SONNET_3,
    "claude-3-7-sonnet-20250219": _SONNET_3,
    "claude-3-5-sonnet-latest": _SONNET_3,
    "claude-3-5-sonnet-20241022": _SONNET_3,
    "claude-3-5-sonnet-20240620": _SONNET_3,
    "claude-3-5-haiku-latest": _row(0.80, 4.0, 1.0, 0.08, _PRICING_2025),
    "claude-3-5-haiku-20241022": _row(0.80, 4.0, 1.0, 0.08, _PRICING_2025),
    "claude-3-opus-latest": _OPUS_4,
    "claude-3-opus-20240229": _OPUS_4,
    "claude-3-haiku-20240307": _row(0.25, 1.25, 0.30, 0.03, _PRICING_2025),
}
