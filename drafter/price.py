"""What a price is: USD per million tokens of each kind, and where it was read.

A module of its own so that the tables (:mod:`drafter.price_table`) and the rules
that choose among them (:mod:`drafter.prices`) both read it and neither reads the other
back.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens, and where the figures were read (shown with every
    estimate; not part of a price's identity)."""

    input: float
    output: float
    cache_write: float
    cache_read: float
    source: str = field(default="", compare=False)

    def per_million(self) -> str:
        """The four prices on one line, as an estimate shows them."""
        return (
            f"${self.input:g} in / ${self.output:g} out / ${self.cache_write:g} cache write / "
            f"${self.cache_read:g} cache read per million tokens"
        )
