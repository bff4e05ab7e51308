"""What every rule module returns: a Hit, turned into a Finding by the runner.

Rules only say *what* and *where*; the runner cuts the snippet from the file and
assigns the stable ID, so every finding's snippet is exactly the file's lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

# the detectors import ``clip`` from here beside ``Hit``; it is defined once, in drafter.text
from drafter.text import clip as clip
from retrieval.survey.details import AnyDetail, Detail
from retrieval.survey.model import Category, Kind
from retrieval.survey.source import Call, PyFile


@dataclass(slots=True, kw_only=True)
class Hit:
    """What a rule found and where; keyword-only, so each of the seven fields is named
    at the call site instead of being told apart by position."""

    category: Category
    kind: Kind
    path: str
    start_line: int
    end_line: int
    symbol: str
    detail: AnyDetail

    @classmethod
    def at_call(
        cls, pf: PyFile, c: Call, *, category: Category, kind: Kind, detail: AnyDetail
    ) -> Hit:
        """A hit anchored where most rules anchor one: the statement holding call ``c``
        (its lines and enclosing symbol) in file ``pf``."""
        return cls(
            category=category,
            kind=kind,
            path=pf.path,
            start_line=c.stmt_start,
            end_line=c.stmt_end,
            symbol=c.symbol,
            detail=detail,
        )

    @classmethod
    def at_line(
        cls,
        path: str,
        line: int,
        *,
        symbol: str,
        category: Category,
        kind: Kind,
        detail: AnyDetail,
    ) -> Hit:
        """A hit on the single line ``line`` of ``path``: where the line-by-line rules
        (text patterns, manifests, scripts) anchor what they find."""
        return cls(
            category=category,
            kind=kind,
            path=path,
            start_line=line,
            end_line=line,
            symbol=symbol,
            detail=detail,
        )

    @property
    def view(self) -> Detail:
        """``detail`` as the merged :class:`Detail` type, for code that reads or adds
        keys after the rule (the runner, read-backs): the same dict, not a copy."""
        # one rule writes one category's keys, and every category's keys are in Detail
        return cast(Detail, self.detail)
