"""What a Claude epistemic draft will cost, said before the first paid call.

The same conversation model as :mod:`graph.estimate` (cached prefix read on every
turn, opening and tool answers written once and read after), applied to what an
epistemic run makes: one record conversation per planned EPI record and one sections
conversation.  The record count is known exactly (the offline plan decides it), so
the range spans the model's behaviour only: low, half of each tool budget with small
answers; high, every budget spent with page-sized answers.
"""

from __future__ import annotations

from dataclasses import dataclass

from drafter.providers import DEFAULT
from graph.estimate import (
    CHARS_PER_TOKEN,
    TOOL_DEFS_TOKENS,
    Conversation,
    Tokens,
    _turns,
    priced_at,
)
from graph.pricing import provider_price


@dataclass(frozen=True)
class EpiEstimate:
    model: str
    records: int
    low: Tokens
    high: Tokens

    def line(self, max_cost: float | None) -> str:
        cap = f"; stops at --max-cost ${max_cost:.2f}" if max_cost is not None else ""
        head = (
            f"estimate for {self.records} epistemic records and the sections with {self.model}: "
            f"{self.low.total / 1e6:.1f}–{self.high.total / 1e6:.1f} M tokens"
        )
        price = provider_price(DEFAULT, self.model)
        if price is None:  # a local or unknown model: tokens only, no invented dollars
            return f"{head}; no USD figure: {self.model} has no known price{cap}"
        lo, hi = self.low.cost(price), self.high.cost(price)
        return f"{head} (mostly cache reads), ${lo:.2f}–${hi:.2f}{cap}\n{priced_at(price)}"


def estimate_epistemic(
    model: str,
    prefix_chars: int,
    openings: list[int],
    sections_chars: int,
    record_budget: int,
    sections_budget: int,
) -> EpiEstimate:
    """Token range for records whose openings have the given sizes (characters)."""
    prefix = int(prefix_chars / CHARS_PER_TOKEN) + TOOL_DEFS_TOKENS
    low, high = Tokens(), Tokens()
    for tok, frac, answer in ((low, 0.5, 1_500), (high, 1.0, 5_000)):
        for chars in openings:
            opening = int(chars / CHARS_PER_TOKEN)
            tok.add(prefix, Conversation(_turns(record_budget, frac), opening, answer, 1_200), 1)
        opening = int(sections_chars / CHARS_PER_TOKEN)
        tok.add(prefix, Conversation(_turns(sections_budget, frac), opening, answer, 3_000), 1)
    return EpiEstimate(model, len(openings), low, high)
