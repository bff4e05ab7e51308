"""A best-effort call graph of the repository's own functions.

Names are resolved inside the repository only: same-file functions and classes,
imports of repository modules (absolute and relative), ``self.method`` within a
class, ``Class(...)`` to its ``__init__``, functions passed as callbacks to
executors/threads, and, last, a method name defined exactly once in the whole
repository.  Everything else (external libraries, dynamic dispatch) is not
followed, and the graph says so in its note.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable

from retrieval.languages import by_name, for_path
from retrieval.languages.facts import Call, SourceFile
from retrieval.languages.spec import GraphShape
from retrieval.survey.model import CallGraph, FunctionNode

PyFile = SourceFile

#: Method names too generic to link by uniqueness alone.
_GENERIC = {
    "run",
    "get",
    "set",
    "update",
    "append",
    "extend",
    "add",
    "pop",
    "close",
    "open",
    "read",
    "write",
    "items",
    "keys",
    "values",
    "copy",
    "format",
    "join",
    "split",
    "strip",
    "replace",
    "start",
    "stop",
    "call",
    "__init__",
    "__call__",
    "forward",
    "step",
    "reset",
    "save",
    "load",
    "send",
    "exec",
    "main",
    "print",
    "log",
    "info",
    "debug",
    "warning",
    "error",
    "render",
    "parse",
    "build",
    "setup",
    "name",
}
_CALLBACK_TAKERS = re.compile(
    r"(submit|map|Thread|Process|run_in_executor|apply_async|create_task|partial|to_thread)$"
)


class ModuleIndex:
    """Dotted module names → repository paths (also by suffix, for src/ layouts); each
    path named the way its language names modules."""

    def __init__(self, paths: list[str]):
        self.by_name: dict[str, str] = {}
        for p in sorted(paths, key=lambda x: (x.count("/"), x)):
            lang = for_path(p)
            parts = (lang.graph.module_name(p) if lang else p).split(".")
            for i in range(len(parts)):
                self.by_name.setdefault(".".join(parts[i:]), p)

    def path(self, module: str) -> str | None:
        return self.by_name.get(module)


Resolver = Callable[[PyFile, Call], list[str]]


def build_call_graph(files: list[SourceFile]) -> tuple[CallGraph, Resolver]:
    """The graph, plus the resolver the loop rule reuses to follow call sites.

    One graph per language, resolved apart (a TypeScript import never names a Python
    module), kept in one :class:`CallGraph` whose node ids are path-qualified, so no
    edge crosses languages; a crossing at a subprocess or an HTTP call is not an edge.
    """
    graph = CallGraph()
    by_lang: dict[str, list[SourceFile]] = defaultdict(list)
    for f in files:
        by_lang[f.language].append(f)
    resolvers: dict[str, _Names] = {}
    for lang, group in by_lang.items():
        names = _Names(graph, ModuleIndex([f.path for f in group]), by_name(lang).graph)
        for pf in group:
            names.add_nodes(pf)
        for pf in group:
            names.add_bindings(pf)
        resolvers[lang] = names
    edges: dict[str, list[str]] = {}
    for lang, group in by_lang.items():
        edges.update(_edges(group, graph, resolvers[lang].resolve))

    def resolve(pf: SourceFile, c: Call) -> list[str]:
        names = resolvers.get(pf.language)
        return names.resolve(pf, c) if names is not None else []

    graph.edges = dict(sorted(edges.items()))
    return graph, resolve


def _edges(files: list[PyFile], graph: CallGraph, resolve: Resolver) -> dict[str, list[str]]:
    """Caller node -> callee nodes, first-seen order, callers sorted."""
    edges: dict[str, dict[str, None]] = defaultdict(dict)
    for pf in files:
        for c in pf.calls:
            caller = f"{pf.path}::{c.symbol}"
            if caller not in graph.functions:
                caller = f"{pf.path}::<module>"
            for callee in resolve(pf, c):
                if callee != caller:
                    edges[caller][callee] = None
        if pf.main_guard:
            # running the file as a script first executes its module level
            edges[f"{pf.path}::<main>"].setdefault(f"{pf.path}::<module>", None)
    return {k: list(v) for k, v in sorted(edges.items())}


_BARE_NAME = re.compile(r"[A-Za-z_]\w*")
_NAME = r"[A-Za-z_$][A-Za-z0-9_$]*"
_CLASS_CALL = re.compile(r"(?<![\w.])([A-Z][A-Za-z0-9_]*)\(")
_REF = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


class _Names:
    """What the repository defines and binds, and how a call site's callee resolves to
    the nodes of the graph (the resolver the survey's cross-file passes reuse)."""

    def __init__(self, graph: CallGraph, index: ModuleIndex, shape: GraphShape):
        self.graph = graph
        self.index = index
        self.shape = shape
        receivers = "|".join(re.escape(n) for n in shape.self_names[:1])
        # a variable, or an attribute of the method's receiver (``self.x``, ``this.x``)
        own = rf"|(?:{receivers})\.{_NAME}" if receivers else ""
        self.bound_name = re.compile(rf"[A-Za-z_][A-Za-z0-9_]*{own}")
        self.top: dict[str, dict[str, str]] = defaultdict(dict)  # path -> top-level name -> node
        self.methods: dict[str, list[str]] = defaultdict(list)  # method name -> node ids
        self.classes: dict[str, dict[str, str]] = defaultdict(dict)  # path -> class -> node
        # local variables bound to repository classes: ``runner = TauRunner(...)``
        self.var_types: dict[tuple[str, str], dict[str, list[str]]] = defaultdict(dict)
        self.aliases: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)
        self.files: dict[str, SourceFile] = {}

    # -- what the files define ---------------------------------------------------------

    def add_nodes(self, pf: PyFile) -> None:
        """The file's module, main block and definitions as graph nodes (built without
        validation: every field is the extractor's own string or line number, and a large
        repository has tens of thousands of nodes)."""
        graph = self.graph
        self.files[pf.path] = pf
        nlines = max(1, len(pf.lines))
        mod_id = f"{pf.path}::<module>"
        graph.functions[mod_id] = FunctionNode.model_construct(
            id=mod_id, path=pf.path, symbol="<module>", start_line=1, end_line=nlines
        )
        if pf.main_guard:
            mid = f"{pf.path}::<main>"
            graph.functions[mid] = FunctionNode.model_construct(
                id=mid,
                path=pf.path,
                symbol="<main>",
                start_line=pf.main_guard[0],
                end_line=pf.main_guard[1],
            )
        for d in pf.defs:
            nid = f"{pf.path}::{d.symbol}"
            graph.functions[nid] = FunctionNode.model_construct(
                id=nid,
                path=pf.path,
                symbol=d.symbol,
                start_line=d.start_line,
                end_line=d.end_line,
                docstring=(d.docstring or "")[:400] or None,
            )
            if "." not in d.symbol:
                self.top[pf.path][d.name] = nid
                if d.kind == "class":
                    self.classes[pf.path][d.name] = nid
            elif d.kind == "function" and d.symbol.count(".") == 1:
                self.methods[d.name].append(nid)

    def add_bindings(self, pf: PyFile) -> None:
        """Aliases of repository functions and variables bound to repository classes."""
        for exported, local in pf.exports.items():
            # ``export default Agent`` / ``export { run as start }``: names the module offers
            node = self.top[pf.path].get(local)
            if node is not None:
                self.top[pf.path].setdefault(exported, node)
        for a in pf.assigns:
            if a.extra.get("rhs_type") == "identifier":
                # ``fn = get_response`` then ``fn(...)``: an alias of a repository function
                rhs = a.text.split("=", 1)[1].strip() if "=" in a.text else ""
                hit = self.resolve_name(pf, rhs)
                lhs = a.extra.get("lhs", "")
                if hit and "::<module>" not in hit and _BARE_NAME.fullmatch(lhs):
                    self.aliases[(pf.path, a.symbol)][lhs] = hit
                continue
            if a.extra.get("rhs_type") not in ("call", "conditional_expression"):
                continue
            lhs = a.extra.get("lhs", "")
            if not self.bound_name.fullmatch(lhs):
                continue
            rhs = a.text.split("=", 1)[1] if "=" in a.text else ""
            found = []
            for name in _CLASS_CALL.findall(rhs):
                hit = self.resolve_name(pf, name)
                if hit and "::<module>" not in hit and hit.rsplit("::", 1)[1][:1].isupper():
                    found.append(hit)
            if found:
                scope = a.symbol.split(".")[0] if self._on_self(lhs) else a.symbol
                bound = self.var_types[(pf.path, scope)].setdefault(lhs, [])
                bound += [f for f in found if f not in bound]

    # -- lookups -----------------------------------------------------------------------

    def in_module(self, module: str, name: str, depth: int = 0) -> str | None:
        p = self.index.path(module)
        if not p:
            return None
        hit = self.top[p].get(name)
        if hit is None and self.shape.reexports and depth < 4 and p in self.files:
            hit = self._reexported(self.files[p], name, depth)
        return hit

    def _reexported(self, pf: SourceFile, name: str, depth: int) -> str | None:
        """A name a module offers by importing it (``export { x } from "./a"``) or by
        re-exporting every name of another (``export * from "./a"``)."""
        origin = pf.imports.get(name)
        if origin and "." in origin:
            mod, _, attr = origin.rpartition(".")
            hit = self.in_module(mod, attr, depth + 1)
            if hit:
                return hit
        for star in pf.star_exports:
            hit = self.in_module(star, name, depth + 1)
            if hit:
                return hit
        return None

    def class_method(self, cls_node: str, name: str) -> str | None:
        cand = f"{cls_node}.{name}"
        return cand if cand in self.graph.functions else None

    def resolve_name(self, pf: PyFile, name: str) -> str | None:
        """A name of the file: its own top-level definition or what it imports."""
        if name in self.top[pf.path]:
            return self.top[pf.path][name]
        origin = pf.imports.get(name)
        if origin and "." in origin:
            mod, _, attr = origin.rpartition(".")
            hit = self.in_module(mod, attr)
            if hit:
                return hit
            p = self.index.path(origin)
            if p:
                return f"{p}::<module>"
        return None

    def _on_self(self, name: str) -> bool:
        """Is ``name`` an attribute of the method's first receiver (``self.x``)?"""
        own = self.shape.self_names
        return bool(own) and name.startswith(own[0] + ".")

    def typed(self, pf: PyFile, c: Call, head: str) -> list[str]:
        scope = c.symbol.split(".")[0] if self._on_self(head) else c.symbol
        return self.var_types.get((pf.path, scope), {}).get(head, [])

    # -- call sites --------------------------------------------------------------------

    def resolve(self, pf: PyFile, c: Call) -> list[str]:
        """The graph nodes a call site may run (plus callbacks it hands on)."""
        if c.callee_type != "identifier" and c.callee_type != "attribute":
            return []
        parts = c.callee.split(".")
        out: list[str] = []
        if len(parts) == 1:
            out += self._bare(pf, c, parts[0])
        elif parts[0] in self.shape.self_names and len(parts) == 2:
            out += self._own_method(pf, c, parts[1])
        else:
            typed = self._typed_method(pf, c, parts)
            if typed:
                return typed
            out += self._dotted(pf, parts)
        if _CALLBACK_TAKERS.search(c.callee):
            out += self._callbacks(pf, c)
        return out

    def _bare(self, pf: PyFile, c: Call, name: str) -> list[str]:
        """``f(...)``: an alias, a definition or an import; a class means its constructor."""
        hit = self.aliases.get((pf.path, c.symbol), {}).get(name) or self.resolve_name(pf, name)
        if not hit:
            return []
        init = (
            self.class_method(hit, self.shape.constructor)
            if hit.split("::")[1] in self.classes[pf.path] or hit.rsplit("::", 1)[1][:1].isupper()
            else None
        )
        return [init or hit]

    def _own_method(self, pf: PyFile, c: Call, attr: str) -> list[str]:
        """``self.m(...)``: the class's own method, else the only method of that name."""
        cls = c.symbol.split(".")[0]
        hit = self.class_method(f"{pf.path}::{cls}", attr)
        if hit:
            return [hit]
        if attr not in _GENERIC and len(self.methods.get(attr, [])) == 1:
            return [self.methods[attr][0]]
        return []

    def _typed_method(self, pf: PyFile, c: Call, parts: list[str]) -> list[str]:
        """``runner.m(...)`` where ``runner`` was bound to a repository class."""
        head, attr = ".".join(parts[:-1]), parts[-1]
        classes_of = self.typed(pf, c, head)
        if not classes_of:
            return []
        return [m for m in (self.class_method(k, attr) for k in classes_of) if m]

    def _dotted(self, pf: PyFile, parts: list[str]) -> list[str]:
        """``mod.f(...)`` or ``Class.m(...)``, else the only method of that name."""
        head, attr = ".".join(parts[:-1]), parts[-1]
        origin = pf.imports.get(parts[0])
        full = f"{origin}.{'.'.join(parts[1:-1])}".rstrip(".") if origin else head
        hit = self.in_module(full, attr)
        if hit is None:
            cls_node = self.resolve_name(pf, head) if len(parts) == 2 else None
            if cls_node and "::<module>" not in cls_node:
                hit = self.class_method(cls_node, attr)
        if hit is None and attr not in _GENERIC and len(self.methods.get(attr, [])) == 1:
            hit = self.methods[attr][0]
        return [hit] if hit else []

    def _callbacks(self, pf: PyFile, c: Call) -> list[str]:
        """Functions handed to ``submit``/``Thread(target=...)`` and the like run too."""
        out: list[str] = []
        refs = list(c.positional[:1]) + [
            c.kwargs[k] for k in ("target", "func", "fn") if k in c.kwargs
        ]
        for ref in refs:
            if _REF.fullmatch(ref):
                sub = Call(
                    callee=ref,
                    full=ref,
                    start_line=c.start_line,
                    end_line=c.end_line,
                    stmt_start=c.stmt_start,
                    stmt_end=c.stmt_end,
                    symbol=c.symbol,
                    args_text="",
                    kwargs={},
                    positional=[],
                    callee_type="attribute" if "." in ref else "identifier",
                )
                out.extend(self.resolve(pf, sub))
        return out
