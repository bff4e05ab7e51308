"""Parse one Python file once with tree-sitter and extract the facts every rule needs.

Why one pass: the survey has a dozen rule families; re-running queries per family
would parse and walk each file many times.  Here the ``.scm`` queries (shipped as
package data and loaded with importlib.resources) run once, and the rules work on
plain dataclasses that carry exact 1-based line spans.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources

import tree_sitter_python as tsp
from tree_sitter import Language, Node, Parser, Query, QueryCursor

from retrieval.languages.facts import (
    FILE_BUDGET_SECONDS,
    MAX_TREE_DEPTH,
    Budget,
    Call,
    Def,
    FileTooComplex,
    PyFile,
    Span,
    StringLit,
    deeper_than,
)
from retrieval.languages.facts import node_end_line as _end_line
from retrieval.languages.facts import node_line as _line
from retrieval.languages.facts import node_text as _text

LANGUAGE = Language(tsp.language())

#: Longest span a snippet may cover; longer statements fall back to the call itself.
MAX_SNIPPET_LINES = 12

_COMPOUND = {
    "with_statement",
    "if_statement",
    "for_statement",
    "while_statement",
    "try_statement",
    "function_definition",
    "class_definition",
    "decorated_definition",
    "elif_clause",
    "else_clause",
    "match_statement",
}


def _query_source(name: str) -> str:
    src = resources.files(__package__ or "retrieval.languages.python").joinpath(
        "queries", f"{name}.scm"
    )
    return src.read_text("utf-8")


@cache
def query(name: str) -> Query:
    """A compiled query from ``retrieval/languages/python/queries/<name>.scm``."""
    return Query(LANGUAGE, _query_source(name))


@cache
def _combined(names: tuple[str, ...]) -> tuple[Query, tuple[int, ...]]:
    """The queries ``names`` compiled as one, and the first pattern index of each.

    Why one query: a query cursor walks the whole tree once per query, so nine small
    queries cost nine walks; one query of all their patterns walks the tree once and
    each match is handed back to its query by pattern index."""
    starts: list[int] = []
    total = 0
    for name in names:
        starts.append(total)
        total += query(name).pattern_count
    return Query(LANGUAGE, "\n".join(_query_source(n) for n in names)), tuple(starts)


def _matches_by_query(root: Node, names: tuple[str, ...]) -> list[Matches]:
    """Each query's matches under ``root``, in the order its own cursor gives them."""
    combined, starts = _combined(names)
    out: list[Matches] = [[] for _ in names]
    for index, caps in QueryCursor(combined).matches(root):
        slot = bisect_right(starts, index) - 1
        out[slot].append((index - starts[slot], caps))
    return out


def _parser() -> Parser:
    return Parser(LANGUAGE)


def module_name(path: str) -> str:
    """Dotted module name of a repository path (``a/b/__init__.py`` -> ``a.b``)."""
    p = path[:-3] if path.endswith(".py") else path
    parts = p.split("/")
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


class Ancestry:
    """Memoised facts about a node's ancestors, for one tree.

    Why: tree-sitter finds a node's parent by walking down from the root, so walking
    every parent of every call costs about the cube of the nesting depth.  Facts are
    memoised per ancestor (by node id); queries return outer nodes before inner ones,
    so a walk up stops after a step or two at an ancestor already seen.
    """

    def __init__(self) -> None:
        self._names: dict[int, tuple[str, ...]] = {}  # names of defs at or above a node
        self._stop: dict[int, Node | None] = {}  # nearest statement-like node above

    def def_names(self, node: Node) -> tuple[str, ...]:
        """Names of the function/class definitions strictly above ``node``, outermost first."""
        chain: list[Node] = []
        cur = node.parent
        while cur is not None and cur.id not in self._names:
            chain.append(cur)
            cur = cur.parent
        names = self._names[cur.id] if cur is not None else ()
        for n in reversed(chain):
            if n.type in ("function_definition", "class_definition"):
                names = (*names, _text(n.child_by_field_name("name")))
            self._names[n.id] = names
        return names

    def stop_above(self, node: Node) -> Node | None:
        """The nearest ancestor that ends :func:`statement_span`'s walk up."""
        chain: list[Node] = []
        cur = node.parent
        while cur is not None and not _is_stop(cur) and cur.id not in self._stop:
            chain.append(cur)
            cur = cur.parent
        found = cur if cur is None or _is_stop(cur) else self._stop[cur.id]
        for n in chain:
            self._stop[n.id] = found
        return found


def _is_stop(node: Node) -> bool:
    t = node.type
    return t in _COMPOUND or t in ("block", "module", "decorator") or t.endswith("statement")


def enclosing_symbol(
    node: Node, in_main: tuple[int, int] | None = None, anc: Ancestry | None = None
) -> str:
    """``Class.method`` / ``function`` of the innermost definition, else ``<main>``/``<module>``."""
    names = (anc or Ancestry()).def_names(node)
    if names:
        return ".".join(names)
    if in_main and in_main[0] <= _line(node) <= in_main[1]:
        return "<main>"
    return "<module>"


def statement_span(node: Node, anc: Ancestry | None = None) -> tuple[int, int]:
    """Lines of the simple statement holding ``node`` (or the node itself if long)."""
    start, end = _line(node), _end_line(node)
    own = (start, end)
    cur = (anc or Ancestry()).stop_above(node)
    if cur is not None:
        if cur.type in _COMPOUND or cur.type in ("block", "module"):
            # header of a compound statement: from its first line to the node's end
            if cur.type in _COMPOUND and _line(cur) >= start - 2:
                start = _line(cur)
        else:  # a simple statement or a decorator
            start, end = min(start, _line(cur)), max(end, _end_line(cur))
    # a call nested deep inside a long statement is anchored on its own lines
    if (end - start + 1 > 3 and own[0] > start) or end - start + 1 > MAX_SNIPPET_LINES:
        start, end = own[0], min(own[1], own[0] + MAX_SNIPPET_LINES - 1)
    return start, end


def _span(
    node: Node, extra: dict[str, str], in_main: tuple[int, int] | None, anc: Ancestry
) -> Span:
    """The :class:`Span` of a matched node (loop, comparison, dict, assignment): its text,
    lines and enclosing symbol, with the query's own ``extra`` facts."""
    return Span(
        text=_text(node),
        start_line=_line(node),
        end_line=_end_line(node),
        symbol=enclosing_symbol(node, in_main, anc),
        extra=extra,
    )


def string_value(node: Node) -> str:
    """The literal content of a string node, without quotes; interpolations kept as written."""
    parts = []
    for ch in node.children:
        if ch.type in ("string_content", "interpolation", "escape_sequence"):
            parts.append(_text(ch))
    return "".join(parts)


def _resolve_relative(module: str, is_pkg: bool, dots: int, name: str) -> str:
    parts = module.split(".") if module else []
    base = parts if is_pkg else parts[:-1]
    if dots > 1:
        base = base[: len(base) - (dots - 1)] if dots - 1 <= len(base) else []
    return ".".join([*base, name] if name else base)


def _collect_imports(pf: PyFile, node: Node, is_pkg: bool) -> None:
    """``import a.b`` / ``import a.b as c`` (an ``@import.module`` capture)."""
    for ch in node.named_children:
        if ch.type == "dotted_name":
            name = _text(ch)
            pf.imported_modules.add(name)
            pf.imports.setdefault(name.split(".")[0], name.split(".")[0])
        elif ch.type == "aliased_import":
            name = _text(ch.child_by_field_name("name"))
            alias = _text(ch.child_by_field_name("alias"))
            pf.imported_modules.add(name)
            pf.imports[alias] = name


def _collect_from_import(pf: PyFile, node: Node, is_pkg: bool) -> None:
    """``from m import n [as a]``, relative ones resolved (an ``@import.from`` capture)."""
    mod_node = node.child_by_field_name("module_name")
    raw = _text(mod_node)
    if raw.startswith("."):
        dots = len(raw) - len(raw.lstrip("."))
        module = _resolve_relative(pf.module, is_pkg, dots, raw.lstrip("."))
    else:
        module = raw
    pf.imported_modules.add(module)
    for ch in node.named_children:
        if ch is mod_node:
            continue
        if ch.type == "dotted_name":
            name = _text(ch)
            pf.imports[name] = f"{module}.{name}" if module else name
            pf.imported_modules.add(f"{module}.{name}")
        elif ch.type == "aliased_import":
            name = _text(ch.child_by_field_name("name"))
            alias = _text(ch.child_by_field_name("alias"))
            pf.imports[alias] = f"{module}.{name}" if module else name
            pf.imported_modules.add(f"{module}.{name}")


def resolve_name(pf: PyFile, dotted: str) -> str:
    """Resolve the first component of a dotted callee through the file's imports."""
    head, _, rest = dotted.partition(".")
    origin = pf.imports.get(head)
    if origin is None:
        return dotted
    return f"{origin}.{rest}" if rest else origin


def _split_args(args: Node) -> tuple[dict[str, str], list[str]]:
    kwargs: dict[str, str] = {}
    positional: list[str] = []
    for ch in args.named_children:
        if ch.type == "keyword_argument":
            kwargs[_text(ch.child_by_field_name("name"))] = _text(ch.child_by_field_name("value"))
        elif ch.type == "dictionary_splat":
            kwargs.setdefault("**", _text(ch))
        elif ch.type != "comment":
            positional.append(_text(ch))
    return kwargs, positional


def _definition(caps: dict[str, list[Node]]) -> tuple[str, Node]:
    """``("function", node)`` or ``("class", node)`` from a defs.scm match."""
    for kind in ("function", "class"):
        nodes = caps.get(f"definition.{kind}")
        if nodes:
            return kind, nodes[0]
    raise ValueError(f"defs.scm match without a definition capture: {sorted(caps)}")


def _docstring(body: Node | None) -> tuple[str, tuple[int, int]] | None:
    if body is None or not body.named_children:
        return None
    first = body.named_children[0]
    if first.type == "expression_statement" and first.named_children:
        s = first.named_children[0]
        if s.type == "string":
            return string_value(s), (_line(s), _end_line(s))
    return None


_WS = re.compile(r"\s+")

#: One query's matches: ``(pattern index, {capture name: nodes})`` as tree-sitter gives them.
Matches = list[tuple[int, dict[str, list[Node]]]]


@dataclass(slots=True)
class _Pass:
    """What every extractor of one :func:`parse_python` call shares."""

    pf: PyFile
    is_pkg: bool
    budget: Budget
    anc: Ancestry


def _main_guard(p: _Pass, matches: Matches) -> None:
    """The first ``if __name__ == "__main__":`` block."""
    for _, caps in matches:
        g = caps["guard.main"][0]
        p.pf.main_guard = (_line(g), _end_line(g))
        break


def _imports(p: _Pass, matches: Matches) -> None:
    """``import m`` and ``from m import n`` into :attr:`PyFile.imports`."""
    for _, caps in matches:
        for n in caps.get("import.module", []):
            _collect_imports(p.pf, n, p.is_pkg)
        for n in caps.get("import.from", []):
            _collect_from_import(p.pf, n, p.is_pkg)


def _defs(p: _Pass, matches: Matches) -> None:
    """Function and class definitions with decorators, docstring and parameters."""
    for _, caps in matches:
        p.budget.check()
        kind, node = _definition(caps)
        name = _text(caps["name"][0])
        outer = (
            node.parent
            if node.parent is not None and node.parent.type == "decorated_definition"
            else None
        )
        decorators = (
            [_text(d)[1:].strip() for d in outer.children if d.type == "decorator"] if outer else []
        )
        sym = enclosing_symbol(node, anc=p.anc)
        symbol = f"{sym}.{name}" if sym not in ("<module>", "<main>") else name
        ds = _docstring(node.child_by_field_name("body"))
        params_node = node.child_by_field_name("parameters")
        params = [
            _text(q).split(":")[0].split("=")[0].strip()
            for q in (params_node.named_children if params_node is not None else [])
        ]
        p.pf.defs.append(
            Def(
                symbol=symbol,
                name=name,
                kind=kind,
                start_line=_line(outer or node),
                end_line=_end_line(node),
                def_line=_line(node),
                decorators=decorators,
                docstring=ds[0] if ds else None,
                docstring_lines=ds[1] if ds else None,
                params=params,
            )
        )


def _calls(p: _Pass, matches: Matches) -> None:
    """Call sites, callee resolved through the imports read before."""
    pf = p.pf
    for _, caps in matches:
        p.budget.check()
        node = caps["call"][0]
        fn = caps["call.callee"][0]
        args = caps["call.arguments"][0]
        callee = _WS.sub("", _text(fn)) if fn.type in ("identifier", "attribute") else _text(fn)
        kwargs, positional = _split_args(args) if args.type == "argument_list" else ({}, [])
        s, e = statement_span(node, p.anc)
        symbol = enclosing_symbol(node, pf.main_guard, p.anc)
        pf.calls.append(
            Call(
                callee=callee,
                full=resolve_name(pf, callee) if fn.type in ("identifier", "attribute") else callee,
                start_line=_line(node),
                end_line=_end_line(node),
                stmt_start=s,
                stmt_end=e,
                symbol=symbol,
                args_text=_text(args),
                kwargs=kwargs,
                positional=positional,
                in_main=symbol == "<main>",
                callee_type=fn.type,
            )
        )


_ASSIGN_PATH = (
    "attribute",
    "call",
    "parenthesized_expression",
    "binary_operator",
    "argument_list",
    "assignment",
)


def _assigned_to(node: Node) -> str | None:
    """The left side of the assignment a string literal feeds (a few hops up), if any."""
    up, hops = node.parent, 0
    while up is not None and hops < 4 and up.type in _ASSIGN_PATH:
        if up.type == "assignment":
            return _text(up.child_by_field_name("left"))
        up, hops = up.parent, hops + 1
    return None


def _strings(p: _Pass, matches: Matches) -> None:
    """String literals (whole strings, not the parts of a concatenation), docstrings marked."""
    pf = p.pf
    docs = {n.id for _, caps in matches for n in caps.get("string.doc", [])}
    parts = {n.id for _, caps in matches for n in caps.get("string.part", [])}
    for _, caps in matches:
        if "string" not in caps:
            continue
        p.budget.check()
        node = caps["string"][0]
        if node.id in parts:
            continue
        pf.strings.append(
            StringLit(
                value=string_value(node),
                start_line=_line(node),
                end_line=_end_line(node),
                symbol=enclosing_symbol(node, pf.main_guard, p.anc),
                assigned_to=_assigned_to(node),
                is_docstring=node.id in docs,
                is_fstring=_text(node)[:2].lower().replace("r", "").startswith("f"),
            )
        )


def _span_extra(capture: str, node: Node, anc: Ancestry) -> dict[str, str]:
    """What a loop, dictionary or comparison span carries besides its lines."""
    extra: dict[str, str] = {}
    if capture.startswith("loop."):  # loop.for / loop.while
        body = node.child_by_field_name("body")
        extra["header_end"] = str(
            _line(body) - 1 if body is not None and _line(body) > _line(node) else _line(node)
        )
        extra["type"] = capture.removeprefix("loop.")
    if capture == "dictionary":
        vals = []
        for pair in node.named_children:
            v = pair.child_by_field_name("value") if pair.type == "pair" else None
            if v is not None and v.type in ("identifier", "attribute"):
                vals.append(_text(v))
        extra["callable_values"] = ",".join(vals)
        extra["pairs"] = str(sum(1 for q in node.named_children if q.type == "pair"))
    if capture == "comparison":
        s, e = statement_span(node, anc)
        extra["stmt_start"], extra["stmt_end"] = str(s), str(e)
    return extra


def _spans(bucket: Callable[[PyFile], list[Span]]) -> Extractor:
    """An extractor appending one :class:`Span` per match to ``bucket(pf)``."""

    def extract(p: _Pass, matches: Matches) -> None:
        out = bucket(p.pf)
        for _, caps in matches:
            p.budget.check()
            capture, nodes = next(iter(caps.items()))
            node = nodes[0]
            out.append(_span(node, _span_extra(capture, node, p.anc), p.pf.main_guard, p.anc))

    return extract


def _assigns(p: _Pass, matches: Matches) -> None:
    """Assignments with their target and the type of their value."""
    for _, caps in matches:
        p.budget.check()
        node = caps["assignment"][0]
        extra = {
            "lhs": _text(caps["assignment.target"][0]),
            "rhs_type": caps["assignment.value"][0].type,
        }
        p.pf.assigns.append(_span(node, extra, p.pf.main_guard, p.anc))


Extractor = Callable[[_Pass, Matches], None]

#: The queries :func:`parse_python` runs (``queries/<name>.scm``) and what each adds to the
#: :class:`PyFile`, in order: the main guard before calls and strings (their symbol is
#: ``<main>`` inside it), imports before calls (callees resolve through them).
EXTRACTORS: tuple[tuple[str, Extractor], ...] = (
    ("mainguard", _main_guard),
    ("imports", _imports),
    ("defs", _defs),
    ("calls", _calls),
    ("strings", _strings),
    ("loops", _spans(lambda pf: pf.loops)),
    ("compare", _spans(lambda pf: pf.compares)),
    ("dicts", _spans(lambda pf: pf.dicts)),
    ("assigns", _assigns),
)


def parse_python(path: str, text: str, *, budget_seconds: float = FILE_BUDGET_SECONDS) -> PyFile:
    """Parse ``text`` and extract facts.  Syntax errors are tolerated and flagged.

    Raises :class:`FileTooComplex` for a tree deeper than :data:`MAX_TREE_DEPTH` or a
    file that takes longer than ``budget_seconds``; the caller reports it as skipped.
    """
    data = text.encode("utf-8", errors="surrogatepass")
    tree = _parser().parse(data)
    root = tree.root_node
    if deeper_than(root, MAX_TREE_DEPTH):
        raise FileTooComplex(f"syntax nested deeper than {MAX_TREE_DEPTH} levels")
    pf = PyFile(
        path=path,
        text=text,
        lines=text.split("\n"),
        module=module_name(path),
        has_errors=root.has_error,
        language="python",
    )
    p = _Pass(pf, path.endswith("__init__.py"), Budget(path, budget_seconds), Ancestry())
    names = tuple(name for name, _ in EXTRACTORS)
    for (_, extract), matches in zip(EXTRACTORS, _matches_by_query(root, names), strict=True):
        extract(p, matches)
    return pf
