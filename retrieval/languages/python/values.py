"""The values Python code gives its names: string literals, module constants and
``os.path.join`` paths, read from the facts of one file so a finding can say which model,
path or key a call uses."""

from __future__ import annotations

import re

from drafter.text import clip
from retrieval.survey.source import PyFile


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
