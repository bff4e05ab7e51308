"""Control facts: loops that call models, gates and selections, retries, scoring.

Loops are judged after the call graph exists (a loop calls a model when its body
calls a model directly or reaches one through repository functions), so this module
offers the loop rule as a function over a predicate supplied by the runner.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from retrieval.survey.base import Hit, clip
from retrieval.survey.source import Call, PyFile

_SCORE_WORD = re.compile(
    r"(score|reward|threshold|accuracy|acc\b|pass(?:_rate|ed)?|best|fitness|metric|val_|margin|confidence|grade|rating|points|success)",
    re.I,
)
_SELECT = {
    "max",
    "min",
    "sorted",
    "numpy.argmax",
    "np.argmax",
    "torch.argmax",
    "numpy.argmin",
    "np.argmin",
    "random.choice",
    "random.choices",
    "random.sample",
    "numpy.random.choice",
    "np.random.choice",
    "heapq.nlargest",
    "heapq.nsmallest",
}
_RETRY_DECORATOR = re.compile(
    r"^(?:backoff\.on_exception|backoff\.on_predicate|(?:tenacity\.)?retry)\b"
)
_AGGREGATE = re.compile(
    r"""(?P<name>[\w"'\[\]]*?(?:score|accuracy|reward|fitness|progress|points|match|pass_rate|percentage|error)\w*["']?\]?)\s*(?::|=(?!=))\s*(?P<rhs>.*(?:mean\(|sum\(|std\(|average\(|\s/\s|len\().*)""",
    re.I,
)


def gating_findings(pf: PyFile) -> list[Hit]:
    hits: list[Hit] = []
    seen: set[int] = set()
    for cmp in pf.compares:
        if not re.search(r"(<=|>=|<|>)", cmp.text) or "__name__" in cmp.text:
            continue
        if not _SCORE_WORD.search(cmp.text):
            continue
        s, e = int(cmp.extra["stmt_start"]), int(cmp.extra["stmt_end"])
        if s in seen:
            continue
        seen.add(s)
        hits.append(
            Hit(
                "gating",
                "threshold",
                pf.path,
                s,
                e,
                cmp.symbol,
                {"comparison": clip(cmp.text, 100)},
            )
        )
    for c in pf.calls:
        if c.full in _SELECT or c.callee in _SELECT:
            if c.callee in ("max", "min", "sorted") and not (
                _SCORE_WORD.search(c.args_text) or "key=" in c.args_text
            ):
                continue
            if c.callee == "sorted" and not _SCORE_WORD.search(c.args_text):
                continue
            if c.stmt_start in seen:
                continue
            seen.add(c.stmt_start)
            hits.append(
                Hit(
                    "gating",
                    "selection",
                    pf.path,
                    c.stmt_start,
                    c.stmt_end,
                    c.symbol,
                    {"call": c.callee, "args": clip(c.args_text, 100)},
                )
            )
    for d in pf.defs:
        for dec in d.decorators:
            if _RETRY_DECORATOR.match(dec):
                hits.append(
                    Hit(
                        "gating",
                        "retry",
                        pf.path,
                        d.start_line,
                        d.start_line,
                        d.symbol,
                        {"decorator": clip(dec, 100), "function": d.symbol},
                    )
                )
    for lp in pf.loops:
        header = pf.lines[lp.start_line - 1] if lp.start_line - 1 < len(pf.lines) else ""
        if re.search(r"\b(retry|retries|attempt|attempts|max_tries|tries)\b", header, re.I):
            hits.append(
                Hit(
                    "gating",
                    "retry",
                    pf.path,
                    lp.start_line,
                    lp.start_line,
                    lp.symbol,
                    {"loop": clip(header, 100)},
                )
            )
    # score aggregation lines: how a number that later gates or reports is computed
    for i, line in enumerate(pf.lines, 1):
        s = line.strip()
        if not s or s.startswith("#") or i in seen or len(s) > 200:
            continue
        m = _AGGREGATE.search(s)
        if m and not s.startswith(("def ", "print(", "logger", "log(", "logging")):
            seen.add(i)
            sym = _symbol_at(pf, i)
            hits.append(
                Hit(
                    "gating",
                    "score_aggregate",
                    pf.path,
                    i,
                    i,
                    sym,
                    {"name": clip(m.group("name"), 60)},
                )
            )
    return hits


def _symbol_at(pf: PyFile, line: int) -> str:
    best = None
    for d in pf.defs:
        if d.kind == "function" and d.def_line <= line <= d.end_line:
            if best is None or d.def_line >= best.def_line:
                best = d
    if best is not None:
        return best.symbol
    if pf.main_guard and pf.main_guard[0] <= line <= pf.main_guard[1]:
        return "<main>"
    return "<module>"


def loop_findings(pf: PyFile, calls_model: Callable[[PyFile, Call], str | None]) -> list[Hit]:
    """Loops whose body holds a call that reaches a model (``calls_model`` names the callee)."""
    hits: list[Hit] = []
    taken: list[tuple[int, int]] = []
    for lp in sorted(pf.loops, key=lambda x: (x.start_line, -x.end_line)):
        inside = [
            c
            for c in pf.calls
            if lp.start_line <= c.start_line <= lp.end_line and c.symbol == lp.symbol
        ]
        via = None
        for c in inside:
            via = calls_model(pf, c)
            if via:
                break
        if not via:
            continue
        if any(a <= lp.start_line and lp.end_line <= b for a, b in taken):
            continue  # an outer model loop already covers this one
        taken.append((lp.start_line, lp.end_line))
        header_end = int(lp.extra.get("header_end", lp.start_line))
        header_end = min(header_end, lp.start_line + 2)
        hits.append(
            Hit(
                "model_loop",
                lp.extra.get("type", "loop").replace("_statement", ""),
                pf.path,
                lp.start_line,
                header_end,
                lp.symbol,
                {
                    "header": clip(pf.lines[lp.start_line - 1], 100),
                    "calls": via,
                    "body_lines": f"{lp.start_line}-{lp.end_line}",
                },
            )
        )
    return hits
