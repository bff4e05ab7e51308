"""What every rule module returns: a Hit, turned into a Finding by the runner.

Rules only say *what* and *where*; the runner cuts the snippet from the file and
assigns the stable ID, so every finding's snippet is exactly the file's lines.
"""

from __future__ import annotations

import re
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


def literal(text: str) -> str | None:
    """The value of a simple string literal expression, else None."""
    m = re.fullmatch(r"""\s*[rRbBuU]?(['"])(.*)\1\s*""", text, flags=re.S)
    if m and "\n" not in m.group(2):
        return m.group(2)
    return None


def _path_join(pf: PyFile, expr: str, depth: int) -> str | None:
    """``os.path.join(WORKSPACE, "x.json")`` → ``workspace/x.json`` when every part is known."""
    m = re.fullmatch(r"\s*(?:os\.path\.join|Path|pathlib\.Path)\((.*)\)\s*", expr, flags=re.S)
    if not m or depth > 2:
        return None
    parts = []
    for arg in m.group(1).split(","):
        arg = arg.strip()
        if not arg:
            continue
        val = literal(arg)
        if val is None:
            val = constant(pf, arg, depth + 1)
        if val is None or "(" in val or " " in val:
            return None
        parts.append(val.rstrip("/"))
    return "/".join(parts) if parts else None


def constant(pf: PyFile, name: str, depth: int = 0) -> str | None:
    """The string value a module-level NAME is assigned in this file, if simple.

    ``MODEL = os.environ.get("AGENT_MODEL", "gpt-5.4")`` yields ``gpt-5.4 (env
    AGENT_MODEL)``, which is what an analyst wants to read about a model endpoint.
    """
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name or ""):
        return _path_join(pf, name or "", depth)
    for a in pf.assigns:
        if a.extra.get("lhs") != name or a.symbol not in ("<module>", "<main>"):
            continue
        rhs = a.text.split("=", 1)[1].strip() if "=" in a.text else ""
        if ":" in a.extra.get("lhs", ""):
            continue
        lit = literal(rhs)
        if lit is not None:
            return lit
        joined = _path_join(pf, rhs, depth)
        if joined:
            return joined
        m = re.search(
            r"""(?:environ\.get|getenv)\(\s*['"]([A-Za-z0-9_]+)['"]\s*(?:,\s*['"]([^'"]*)['"])?""",
            rhs,
        )
        if m:
            return f"{m.group(2)} (env {m.group(1)})" if m.group(2) else f"env {m.group(1)}"
        return clip(rhs, 80)
    return None
