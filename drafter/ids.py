"""Record and object IDs: the slug of a name, and a unique ID beside the ones taken.

Why one module: an ID is written by the model planner, the offline proposer and the
epistemic planner, and read back by reviewers, evals and the review store.  IDs
appear verbatim in drafts, so every writer must slug and de-duplicate the same way;
the callers differ only in the parameters they pass (how long a slug may be, whether
``camelCase`` splits into words, what an empty name becomes).
"""

from __future__ import annotations

import re

#: The longest slug a record ID carries (the record families' readable tail).
SLUG_LIMIT = 48

_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_NOT_WORD = re.compile(r"[^a-z0-9]+")


def slug(
    *parts: str, limit: int | None = SLUG_LIMIT, camel: bool = False, empty: str = "item"
) -> str:
    """A readable ID slug: the non-empty ``parts`` as lowercase words joined by hyphens.

    ``camel`` splits ``camelCase`` into words first (``runTask`` -> ``run-task``);
    ``limit`` cuts the slug to that many characters (``None``: no cut), never leaving
    a trailing hyphen; ``empty`` stands in when nothing readable is left.
    """
    raw = "-".join(p for p in parts if p)
    if camel:
        raw = _CAMEL.sub(r"\1-\2", raw)
    s = _NOT_WORD.sub("-", raw.lower()).strip("-")
    if limit is not None:
        s = s[:limit].strip("-")
    return s or empty


def unique_id(base: str, taken: set[str]) -> str:
    """``base``, or ``base-2``, ``base-3``... the first one not in ``taken``; it is
    added to ``taken`` so the next call sees it."""
    ident, n = base, 2
    while ident in taken:
        ident, n = f"{base}-{n}", n + 1
    taken.add(ident)
    return ident
