"""The deciding-line rule every offline recipe shares.

An analyst quotes a line of code because it *does* something the record is about:
it calls (a model, a subprocess, a loader), writes, reads back, gates (an ``if``, an
``assert``, a comparison) or assigns (a value, a default).  Lines that only frame
code decide nothing and make a record look supported when it is not: a bare
``return name`` or ``return {``, a ``print``/log call, a decorator, a loop header, a
declaration (``def f():`` without a default), a literal or a dict entry holding one.
A comparison of sizes with sizes or indices (``if i < len(xs)``, ``assert len(a) ==
len(b)``, ``n = min(len(q), workers)``) bounds a loop or checks a shape; it gates no
score.  Text witnesses (a claim's sentence, a prompt's words, a tool's description)
are judged by their own recipes, not here.

The rule reads only the quote's syntax, never a name of one repository.
"""

from __future__ import annotations

import re

from graph.proposers.offline.langs import is_source
from retrieval.survey import Finding
from retrieval.survey.model import Category

#: ``return``, ``return x``, ``return self.x``, ``return x[0]``, ``return {``, a literal.
_BARE_RETURN = re.compile(
    r"^return\b\s*(?:[A-Za-z_][\w.]*(?:\[[^\]()]*\])?|[\[{(]|-?\d[\d.]*|True|False|None"
    r"|[rbu]?(['\"]).*\1|\[\]|\{\}|\(\))?\s*[,;]?\s*(#.*)?$"
)
_PRINT = re.compile(
    r"^(?:print|pprint|(?:self\.)?(?:logger|logging|log|console|tqdm|rich)\.\w+|warnings\.warn)\s*\("
)
_LOOP = re.compile(r"^(?:async\s+)?(?:for\b.*\bin\b.*|while\b.*):\s*(#.*)?$")
_DECL = re.compile(r"^(?:async\s+)?(?:def|class)\s+\w+")
_DEFAULT = re.compile(r"\b\w+\s*(?::\s*[^=,()]+)?=\s*[^=\s]")
#: A whole line that is one literal, or a dict entry / keyword holding only a literal.
_LITERAL_LINE = re.compile(
    r"""^(?:[rbuf]{0,2}(['"]).*\1|-?\d[\d.]*|True|False|None|[\[\]{}(),]+)\s*[,;]?\s*(#.*)?$"""
)
_LITERAL_ENTRY = re.compile(
    r"""^[rbu]?(['"])[^'"]*\1\s*:\s*"""
    r"""(?:[rbuf]{0,2}(['"]).*\2|-?\d[\d.]*|True|False|None|[\[{(])\s*[,;]?\s*(#.*)?$"""
)
_KEY_ENTRY = re.compile(r"""^[rbuf]?(['"])[^'"]*\1\s*:""")
#: Operands that are sizes, counters or indices, not measured values.
_SIZE = re.compile(
    r"^(?:len\([^()]*(?:\([^()]*\)[^()]*)*\)|\d+|[\w.]*(?:idx|index|count|size|num|workers?"
    r"|threads?|batch\w*|n|i|j|k|step|turns?|retries|attempts?|limit|max_\w+|min_\w+|n_\w+"
    r"|length|total)(?:\s*[-+]\s*\d+)?)$",
    re.I,
)
_CMP = re.compile(r"(==|!=|<=|>=|<|>)")
_MINMAX = re.compile(r"\b(?:min|max)\((.*)\)")


def _strip_keyword(line: str) -> str:
    return re.sub(r"^(?:el)?if\s+|^assert\s+|^while\s+", "", line).rstrip(":").strip()


def _unwrap(text: str) -> str:
    """``(x)`` -> ``x`` and ``not x`` -> ``x``, only where the brackets enclose it all."""
    t = re.sub(r"^not\s+", "", text.strip())
    while t.startswith("(") and t.endswith(")"):
        depth = 0
        for i, ch in enumerate(t):
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if depth == 0 and i < len(t) - 1:
                return t
        t = t[1:-1].strip()
    return t


def _comparisons(expr: str) -> list[list[str]]:
    """The operands of each comparison in an ``and``/``or`` chain (parts that compare
    nothing, such as ``key in d``, are left out)."""
    out: list[list[str]] = []
    for part in re.split(r"\band\b|\bor\b", expr):
        if _CMP.search(part):
            out.append([_unwrap(b) for b in _CMP.split(part)[::2] if b.strip()])
    return out


def size_bound(line: str) -> bool:
    """A comparison or min/max over sizes, counters and indices only: it bounds a loop or
    checks a shape (``i < len(xs)``, ``len(a) == len(b)``, ``min(len(q), workers)``)."""
    s = line.strip()
    body = s.split("=", 1)[1] if re.match(r"^[\w.\[\]'\"]+\s*=[^=]", s) else s
    m = _MINMAX.search(body)
    if m and not _CMP.search(body.replace(m.group(0), "")):
        args = [a.strip() for a in m.group(1).split(",")]
        return len(args) >= 2 and all(_SIZE.match(a) for a in args)
    if not _CMP.search(body):
        return False
    head = re.split(r",\s*[rbuf]?['\"]", body, maxsplit=1)[0] if s.startswith("assert") else body
    cmps = _comparisons(_strip_keyword(head))
    return bool(cmps) and all(all(_SIZE.match(o) for o in ops) for ops in cmps)


def deciding_quote(quote: str) -> bool:
    """Whether a quoted line of code decides something (see the module docstring)."""
    s = quote.strip()
    if not s or s.startswith("@") or s.startswith("#"):
        return False
    if _BARE_RETURN.match(s) or _PRINT.match(s) or _LOOP.match(s):
        return False
    if _DECL.match(s):
        return bool(_DEFAULT.search(s.split("(", 1)[1] if "(" in s else ""))
    if _LITERAL_LINE.match(s) or _LITERAL_ENTRY.match(s):
        return False
    if _KEY_ENTRY.match(s) and not re.search(r"\w\(|[-+*/%]|\bif\b", s.split(":", 1)[1]):
        return False
    return not size_bound(s)


def text_witness(f: Finding) -> bool:
    """Findings whose quote is text for a reader (a claim, a prompt, a tool's
    description), judged by their own recipes rather than by the code rule."""
    if f.category in (Category.CLAIM, Category.PROMPT):
        return True
    return f.kind in ("tool_schema", "tool_description") or not is_source(f.path)


def framing_only(quote: str) -> bool:
    """A line that only opens a structure (``return {``, ``def tool_info():``): never a
    witness, even where the finding is text (a tool's schema is its name and words, not
    the ``return`` that opens the dict)."""
    s = quote.strip()
    if _DECL.match(s):
        return not _DEFAULT.search(s.split("(", 1)[1] if "(" in s else "")
    return re.fullmatch(r"(?:return\s*)?[\[\]{}(),\s]*", s) is not None


def deciding(f: Finding, quote: str) -> bool:
    """The shared rule for one finding's quote."""
    if text_witness(f):
        return not (f.category == Category.TOOL_DISPATCH and framing_only(quote))
    return deciding_quote(quote)
