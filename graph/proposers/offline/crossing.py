"""Routes that cross from one language into another, named as such.

A mixed system's route does not stop where its language does: a front end's request
runs the handler its own back end defines for that path, a script a process starts
runs in another language's interpreter.  The survey records each crossing with the
lines of both sides (:class:`retrieval.survey.model.Crossing`); a route whose walk
reaches one says where it crosses and how, and quotes the call on one side and what
it starts on the other, so a reader can check both ends of the step the call graph
of neither language shows.
"""

from __future__ import annotations

from drafter.model import Witness
from graph.proposers.offline.langs import label_of
from graph.proposers.offline.prose import TextOf, short_symbol, witness
from graph.proposers.offline.rank import path_class
from retrieval.survey import Finding
from retrieval.survey.index import SurveyIndex
from retrieval.survey.model import Category, Crossing

#: Crossings a route names in its text; the rest are counted.
MAX_NAMED = 3


def route_crossings(ix: SurveyIndex, node: str) -> list[Crossing]:
    """The crossings a walk from ``node`` takes, the one whose far side does the most
    first (kinds of effects reached there), then the system's own code before support
    code, then the survey's order."""
    graph = ix.survey.call_graph
    if not graph.crossings:
        return []
    reach = set(ix.reachable(node))
    seen: set[tuple[str, str]] = set()
    out: list[tuple[tuple[int, int, int], Crossing]] = []
    for i, c in enumerate(graph.crossings):
        if c.caller not in reach or c.node not in reach or (c.caller, c.node) in seen:
            continue
        seen.add((c.caller, c.node))
        kinds = {f.category for f in ix.reached_findings(c.target)}
        far = _path(c.target)
        out.append(((-len(kinds), path_class(far) + path_class(_path(c.caller)), i), c))
    return [c for _, c in sorted(out, key=lambda kv: kv[0])]


def find(ix: SurveyIndex | None, pairs: list[list[str]]) -> list[Crossing]:
    """The survey's crossings named by (caller, boundary node) pairs, in their order."""
    if ix is None:
        return []
    by = {(c.caller, c.node): c for c in ix.survey.call_graph.crossings}
    return [c for p in pairs if len(p) == 2 and (c := by.get((p[0], p[1]))) is not None]


def _path(node: str) -> str:
    return node.split("::", 1)[0]


def _lang(node: str) -> str:
    label = label_of(_path(node))
    return f" ({label})" if label else ""


def _at(node: str, line: int) -> str:
    """``send() in web/src/api.ts:4``; a module-level node as ``x.py (__main__) at line 9``."""
    sym = short_symbol(node)
    path = _path(node)
    if sym.startswith(path):
        return f"{sym} at line {line}"
    return f"{sym} in {path}:{line}"


def caller_name(c: Crossing) -> str:
    """The calling side of ``c`` as a route step (``send()``, or a file's module level)."""
    return short_symbol(c.caller)


def target_name(c: Crossing) -> str:
    """The side ``c`` starts, as a route step."""
    return short_symbol(c.target)


def sentence(c: Crossing) -> str:
    """One crossing in words: what crosses, from where, into what, each side's language."""
    here = _at(c.caller, c.call_start) + _lang(c.caller)
    there = _at(c.target, c.target_start) + _lang(c.target)
    if c.kind == "http":
        return f"It crosses an HTTP boundary: {c.via}, requested by {here} → handler {there}."
    return f"It crosses a subprocess boundary: {here} starts {c.via} → {there}."


def sentences(cs: list[Crossing]) -> str:
    """The crossings a route takes, the first :data:`MAX_NAMED` named."""
    text = " ".join(sentence(c) for c in cs[:MAX_NAMED])
    if len(cs) > MAX_NAMED:
        text += f" It crosses {len(cs) - MAX_NAMED} more boundary(ies) not named here."
    return text


def _side(path: str, start: int, end: int, symbol: str, text_of: TextOf | None) -> Witness | None:
    """A witness of lines ``start..end`` of ``path``, cut from the file's own text."""
    text = text_of(path) if text_of else None
    if text is None:
        return None
    lines = text.split("\n")
    snippet = "\n".join(lines[start - 1 : end])
    if not snippet.strip():
        return None
    at = Finding(
        id=f"crossing:{path}:{start}",
        category=Category.EXEC_EFFECT,
        kind="crossing",
        path=path,
        start_line=start,
        end_line=max(start, end),
        symbol=symbol,
        snippet=snippet,
    )
    return witness(at, text_of)


def witnesses(c: Crossing, text_of: TextOf | None) -> list[Witness]:
    """The call on this side and the handler or script it starts on the other."""
    out = []
    sides = ((c.caller, c.call_start, c.call_end), (c.target, c.target_start, c.target_end))
    for node, a, b in sides:
        w = _side(_path(node), a, b, node.split("::", 1)[1], text_of)
        if w is not None:
            out.append(w)
    return out
