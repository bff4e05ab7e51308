"""Where a call that picks a tool out of a registry leads: the handlers registered there.

Why a node of its own: a loop that runs ``tools.get(name).execute(...)`` calls whatever
was put into ``tools`` elsewhere, and no name at the call site says which.  The call
graph adds a dispatch node, ``<caller path>::<dispatch through tools>``, between the
calling function and every handler registered in that registry, so a route from the
loop reaches the tools' code and says it got there by dispatch, not by a named call.

The facts come from each language's extractor (``SourceFile.handlers``,
``registrations``, ``dispatches``; :mod:`retrieval.languages.javascript.registries`
for ES code).  A registry is matched by the name the dispatch looks up: in the same
file (``this.x`` within the same class), else in the module the name is imported
from.  A registration's value leads to handlers through what it names: a handler
defined inside it, a function (or the handlers a factory function defines), a class
(its ``execute``/``invoke``/``run``... method), a variable bound to a declaration,
or, for a value that is a parameter of the registering function (``registerTool(t)``
doing ``tools.set(t.name, t)``), what each call of that function hands it.  When the
registry is not in sight or its values cannot be followed (tools handed in from
configuration) and it is named as holding tools, the dispatch leads to every tool the
repository declares, outside test and example code.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from typing import Protocol

from retrieval.languages.facts import Call, SourceFile, Span
from retrieval.survey.model import CallGraph, FunctionNode


class _Names(Protocol):
    """What dispatch asks of the call graph's name resolver (``callgraph._Names``),
    named here so the resolver's module and this one do not import each other."""

    graph: CallGraph
    files: dict[str, SourceFile]

    @property
    def class_nodes(self) -> frozenset[str]: ...

    def resolve_name(self, pf: SourceFile, name: str) -> str | None: ...

    def resolve(self, pf: SourceFile, c: Call) -> list[str]: ...

    def in_module(
        self, module: str, name: str, depth: int = 0, table: dict[str, dict[str, str]] | None = None
    ) -> str | None: ...

    def method_of(self, cls_node: str, name: str) -> str | None: ...

    def module_path(self, module: str) -> str | None: ...


#: Methods of a registered class a dispatch may run.
_VERBS = ("execute", "invoke", "run", "handler", "handle", "call")
#: Most handlers one dispatch node links to (the rest are not followed).
MAX_TARGETS = 400
#: A registry or value named as holding tools: with no registration in sight, a dispatch
#: through it may run any tool the repository declares (a test's or example's does not).
_TOOLISH = re.compile(r"tools?(_?by_?[a-z]\w*|map|table|index)?$", re.I)
#: Is a file (or a node of one) test or example code?
_InTests = Callable[[str], bool]


def dispatch_label(registry: str, callee: str) -> str:
    """The dispatch node's symbol: the registry looked up, else the call as written."""
    return f"<dispatch through {registry}>" if registry else f"<dispatch {callee}>"


def is_dispatch(node: str) -> bool:
    """Is ``node`` a dispatch through a registry (not a function of the repository)?"""
    return node.partition("::")[2].startswith("<dispatch ")


class _Linker:
    """The handlers of one language's registries, and the dispatch edges to them."""

    def __init__(self, names: _Names, files: list[SourceFile], in_tests: _InTests):
        self.names = names
        self.files = files
        self.in_tests = in_tests
        self.fns = names.graph.functions
        #: (path, registry as written) -> handler nodes; and by class for ``this.x``.
        self.registered: dict[tuple[str, str], list[str]] = defaultdict(list)
        self.declared: list[str] = []

    # -- handlers ----------------------------------------------------------------------

    def handlers_within(self, pf: SourceFile, start: int, end: int) -> list[str]:
        """Handlers a file defines between two lines (inside a registered value)."""
        out: list[str] = []
        for h in pf.handlers:
            if start <= h.start_line and h.end_line <= end:
                out += self.handler_nodes(pf, h)
        return out

    def handler_nodes(self, pf: SourceFile, h: Span) -> list[str]:
        node = f"{pf.path}::{h.extra['def']}" if h.extra.get("def") else None
        if node is not None:
            return [node] if node in self.fns else []
        return self.named(pf, h.extra.get("ref", ""), h.start_line)

    def named(self, pf: SourceFile, ref: str, line: int) -> list[str]:
        """What a registered name leads to: a class's handler method, a factory's
        handlers (or the function itself), a variable's declaration."""
        if not ref:
            return []
        hit = self.names.resolve_name(pf, ref) if "." not in ref else None
        if hit is None and "." in ref:
            origin = pf.imports.get(ref.split(".", 1)[0])
            hit = self.names.in_module(origin, ref.rsplit(".", 1)[1]) if origin else None
        if hit is None or "::<module>" in hit:
            return self.variable(pf, ref, line)
        if hit in self.names.class_nodes:
            return [m for v in _VERBS if (m := self.names.method_of(hit, v))][:1]
        fn = self.fns.get(hit)
        owner = self.names.files.get(hit.split("::", 1)[0])
        if fn is not None and owner is not None:
            inner = [
                n
                for h in owner.handlers
                if fn.start_line <= h.start_line and h.end_line <= fn.end_line
                for n in self.handler_nodes(owner, h)
                if n != hit
            ]
            if inner:
                return inner
        return [hit]

    def variable(self, pf: SourceFile, ref: str, line: int) -> list[str]:
        """A module-level variable bound to a declaration (``const shell = tool({...})``)."""
        for a in pf.assigns:
            if a.extra.get("lhs") == ref and a.symbol == "<module>" and a.start_line != line:
                return self.handlers_within(pf, a.start_line, a.end_line)
        return []

    # -- registries --------------------------------------------------------------------

    def collect(self) -> None:
        """Every registry's handlers, and the handlers every tool declaration defines."""
        registrars: dict[str, list[tuple[str, int]]] = defaultdict(list)
        for pf in self.files:
            for h in pf.handlers:
                if h.extra.get("declared"):
                    self.declared += self.handler_nodes(pf, h)
            params = {d.symbol: d.params for d in pf.defs}
            for r in pf.registrations:
                got = self.handlers_within(pf, r.start_line, r.end_line)
                ref = r.extra.get("ref", "")
                if not got and ref and ref in params.get(r.symbol, []):
                    # ``registerTool(tool) { tools.set(tool.name, tool) }``: its callers'
                    # arguments are what gets registered
                    registrars[f"{pf.path}::{r.symbol}"].append(
                        (r.extra["registry"], params[r.symbol].index(ref))
                    )
                    continue
                if not got and r.extra.get("value_type") != "arrow_function":
                    got = self.named(pf, ref, r.start_line)
                self.add(pf, r.symbol, r.extra["registry"], got)
        if registrars:
            self.through_registrars(registrars)
        self.declared = sorted(set(self.declared))

    def through_registrars(self, registrars: dict[str, list[tuple[str, int]]]) -> None:
        """Values handed to a function that registers its parameter."""
        by_name = defaultdict(list)
        for node, regs in registrars.items():
            by_name[node.rsplit("::", 1)[1].rsplit(".", 1)[-1]].append((node, regs))
        for pf in self.files:
            for c in pf.calls:
                cands = by_name.get(c.callee.rsplit(".", 1)[-1])
                if not cands:
                    continue
                hits = set(self.names.resolve(pf, c))
                for node, regs in cands:
                    if node not in hits:
                        continue
                    home = node.split("::", 1)[0]
                    sym = node.split("::", 1)[1]
                    for reg, idx in regs:
                        got = self.handlers_within(pf, c.start_line, c.end_line)
                        if not got and idx < len(c.positional):
                            got = self.named(pf, c.positional[idx].strip(), c.start_line)
                        self.add(self.names.files[home], sym, reg, got)

    def add(self, pf: SourceFile, symbol: str, registry: str, nodes: list[str]) -> None:
        key = (pf.path, _scoped(registry, symbol))
        have = self.registered[key]
        have += [n for n in nodes if n not in have]

    def targets(self, pf: SourceFile, d: Span) -> list[str]:
        """The handlers a dispatch site may run."""
        reg = d.extra.get("registry", "")
        got: list[str] = []
        if reg:
            got = list(self.registered.get((pf.path, _scoped(reg, d.symbol)), []))
            origin = pf.imports.get(reg.split(".", 1)[0]) if not got else None
            if origin:
                mod, _, attr = origin.rpartition(".")
                home = self.names.module_path(mod) if mod else None
                got = list(self.registered.get((home or "", attr), []))
        tests = self.in_tests(pf.path)
        if not got and not tests and _TOOLISH.search(reg or d.text.rsplit(".", 1)[0]):
            got = list(self.declared)
        caller = f"{pf.path}::{d.symbol}"
        return [n for n in got if n != caller and (tests or not self.in_tests(n))][:MAX_TARGETS]


def _scoped(registry: str, symbol: str) -> str:
    """A registry's key within its file: ``this.x`` belongs to its class."""
    if registry.startswith("this."):
        return f"{symbol.split('.', 1)[0]}:{registry}"
    return registry


def add_dispatch(
    graph: CallGraph,
    names: _Names,
    files: list[SourceFile],
    edges: dict[str, list[str]],
    in_tests: _InTests,
) -> None:
    """Add a dispatch node between each dispatching function and the handlers it may
    run (``edges``, the caller -> callees map, is extended in place)."""
    if not any(pf.dispatches for pf in files):
        return
    link = _Linker(names, files, in_tests)
    link.collect()
    for pf in files:
        for d in pf.dispatches:
            targets = link.targets(pf, d)
            if not targets:
                continue
            caller = f"{pf.path}::{d.symbol}"
            if caller not in graph.functions:
                caller = f"{pf.path}::<module>"
            label = dispatch_label(d.extra.get("registry", ""), d.text)
            node = f"{pf.path}::{label}"
            if node not in graph.functions:
                graph.functions[node] = FunctionNode(
                    id=node,
                    path=pf.path,
                    symbol=label,
                    start_line=d.start_line,
                    end_line=d.end_line,
                )
            for src, dsts in ((caller, [node]), (node, targets)):
                have = edges.setdefault(src, [])
                have += [n for n in dsts if n not in have]
