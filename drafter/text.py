"""One-line text for people: whitespace collapsed, long text clipped with an ellipsis.

Why one module: survey details, plan labels, witness quotes and console excerpts all
show source text on one line.  A quote is verified after the same whitespace
collapse, so every writer must collapse alike; clipping differs only in whether the
cut may fall inside a word.
"""

from __future__ import annotations

import re

_WS = re.compile(r"\s+")

#: What :func:`clip` cuts from the end of a word-boundary cut before the ellipsis.
_TRAILING = " ,;:—-"


def collapse(text: str) -> str:
    """Every whitespace run (newlines included) as one space, the ends stripped."""
    return _WS.sub(" ", text).strip()


def clip(text: str, limit: int = 160, *, at_word: bool = False) -> str:
    """``text`` collapsed to one line and cut to at most ``limit`` characters, with "…".

    ``at_word`` cuts at the last word boundary (and drops the punctuation left
    dangling there): labels and prose excerpts are read by people, and a word cut in
    half ("must always p") reads like a typo in the source.  Without it the cut is
    exact, for values where every character up to the limit is worth keeping.
    """
    one = collapse(text)
    if len(one) <= limit:
        return one
    cut = one[: limit - 1]
    if not at_word:
        return cut + "…"
    if " " in cut:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(_TRAILING) + "…"
