"""Model loops: loops whose body reaches a model call, and the steps inside them.

Loops are judged after the call graph exists (a loop calls a model when its body
calls a model directly or reaches one through repository functions), so this module
offers the loop rule as a function over a predicate supplied by the runner.  Loop
spans are language-neutral: every extractor fills them.
"""

from __future__ import annotations

from collections.abc import Callable

from retrieval.survey.base import Hit, clip
from retrieval.survey.model import Category, LoopKind
from retrieval.survey.source import Call, PyFile

MAX_LOOP_STEPS = 6
#: loops.scm names a loop ``loop.for`` or ``loop.while``; the finding kind is the keyword.
_LOOP_KINDS: dict[str, LoopKind] = {"for": "for", "while": "while"}


def loop_findings(
    pf: PyFile,
    calls_model: Callable[[PyFile, Call], str | None],
    resolve: Callable[[PyFile, Call], list[str]] | None = None,
) -> list[Hit]:
    """Loops whose body holds a call that reaches a model (``calls_model`` names the callee),
    plus the loop's own steps: calls of repository functions in its body (``loop_step``),
    which is where code shapes what the model sees next (truncation, parsing, dispatch)."""
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
                category=Category.MODEL_LOOP,
                kind=_LOOP_KINDS.get(lp.extra.get("type", ""), "loop"),
                path=pf.path,
                start_line=lp.start_line,
                end_line=header_end,
                symbol=lp.symbol,
                detail={
                    "header": clip(pf.lines[lp.start_line - 1], 100),
                    "calls": via,
                    "body_lines": f"{lp.start_line}-{lp.end_line}",
                },
            )
        )
        if resolve is None:
            continue
        steps = 0
        for c in inside:
            if steps >= MAX_LOOP_STEPS or calls_model(pf, c):
                continue
            nodes = resolve(pf, c)
            if not nodes or any(n.endswith("::<module>") for n in nodes):
                continue
            steps += 1
            hits.append(
                Hit(
                    category=Category.MODEL_LOOP,
                    kind="loop_step",
                    path=pf.path,
                    start_line=c.stmt_start,
                    end_line=c.stmt_end,
                    symbol=lp.symbol,
                    detail={"call": c.callee, "step": nodes[0], "loop_line": lp.start_line},
                )
            )
    return hits
