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
from collections.abc import Callable, Mapping
from functools import cached_property

from retrieval.languages import by_name, for_path
from retrieval.languages.facts import Call, SourceFile
from retrieval.languages.spec import GraphShape
from retrieval.roles import in_test_code
from retrieval.survey.crossings import add_crossings
from retrieval.survey.dispatch import add_dispatch
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


def build_call_graph(
    files: list[SourceFile], programs: Mapping[str, str] | None = None
) -> tuple[CallGraph, Resolver]:
    """The graph, plus the resolver the loop rule reuses to follow call sites.

    One graph per language, resolved apart (a TypeScript import never names a Python
    module), kept in one :class:`CallGraph` whose node ids are path-qualified, so no
    call edge crosses languages; a crossing at a subprocess or an HTTP request is a
    boundary node of its own between the two (:mod:`retrieval.survey.crossings`);
    ``programs`` are the package programs a process may start by name.
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
        if names.shape.typed_dispatch:
            for pf in group:
                names.add_heritage(pf)
            for pf in group:
                names.add_typed(pf)
            for pf in group:
                names.add_returned(pf)
        if names.shape.reexports:
            for pf in group:
                names.add_offered(pf)
        resolvers[lang] = names
    edges: dict[str, list[str]] = {}
    for lang, group in by_lang.items():
        edges.update(_edges(group, graph, resolvers[lang].resolve))
        add_dispatch(graph, resolvers[lang], group, edges, _in_tests)
        for path, offered in resolvers[lang].offered.items():
            if not offered:
                continue
            mod = f"{path}::<module>"
            have = edges.setdefault(mod, [])
            have += [n for n in offered if n not in have and n != mod]

    def resolve(pf: SourceFile, c: Call) -> list[str]:
        names = resolvers.get(pf.language)
        return names.resolve(pf, c) if names is not None else []

    graph.edges = edges
    if len(by_lang) > 1:
        add_crossings(graph, files, programs)
    graph.edges = dict(sorted(graph.edges.items()))
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


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


_EXAMPLE_DIRS = re.compile(r"(^|/)(examples?|samples?|demos?)/")


def _in_tests(path_or_node: str) -> bool:
    """Is a file (or a node of one) test or example code: code that hands an
    implementation in to the system, which the system's own code never names?"""
    path = path_or_node.split("::", 1)[0]
    return in_test_code(path) or _EXAMPLE_DIRS.search(path) is not None


_NAME = r"[A-Za-z_$][A-Za-z0-9_$]*"
_CLASS_CALL = re.compile(r"(?<![\w.])([A-Z][A-Za-z0-9_]*)\(")
_REF = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
#: The function an assigned call runs (``await bound(x)`` -> ``bound``).
_CALLEE = re.compile(
    r"^\s*(?:await\s+)?([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)?)\s*(?:<[^()]*>)?\("
)


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
        self.members: dict[str, list[str]] = defaultdict(list)  # class node -> its methods
        self.classes: dict[str, dict[str, str]] = defaultdict(dict)  # path -> class -> node
        # local variables bound to repository classes: ``runner = TauRunner(...)``
        self.var_types: dict[tuple[str, str], dict[str, list[str]]] = defaultdict(dict)
        self.aliases: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)
        self.files: dict[str, SourceFile] = {}
        # declared types (classes by node id, interfaces by ``path::Name``) and subtyping
        self.types: dict[str, dict[str, str]] = defaultdict(dict)
        self.subtypes: dict[str, list[str]] = defaultdict(list)
        self.supertypes: dict[str, list[str]] = defaultdict(list)
        # what a module offers by re-exporting it (``export { x } from``): module -> nodes
        self.offered: dict[str, list[str]] = {}

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
        # a tool handler is a property of an object, not a name of the module
        handlers = {h.extra.get("def") for h in pf.handlers} if pf.handlers else set()
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
            if d.symbol in handlers:
                pass
            elif "." not in d.symbol:
                self.top[pf.path][d.name] = nid
                if d.kind == "class":
                    self.classes[pf.path][d.name] = nid
            elif d.kind == "function" and d.symbol.count(".") == 1:
                self.methods[d.name].append(nid)
                self.members[f"{pf.path}::{d.symbol.split('.')[0]}"].append(nid)
        if self.shape.typed_dispatch:
            own = self.types[pf.path]
            own.update(self.classes[pf.path])
            own.update({n: f"{pf.path}::{n}" for n in pf.interfaces})
            own.update({n: f"{pf.path}::{n}" for n in pf.aliases})
            for exported, local in pf.exports.items():
                if local in own:
                    own.setdefault(exported, own[local])

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

    def module_path(self, module: str) -> str | None:
        """The repository file a module name names, or a workspace package's entry."""
        p = self.index.path(module)
        if p is None and self.shape.package_modules is not None:
            p = next(
                (q for m in self.shape.package_modules(module) if (q := self.index.path(m))),
                None,
            )
        return p

    def in_module(
        self, module: str, name: str, depth: int = 0, table: dict[str, dict[str, str]] | None = None
    ) -> str | None:
        """The node (or, with ``table``, the entry of that table) ``name`` is in ``module``."""
        names = self.top if table is None else table
        p = self.module_path(module)
        if not p:
            return None
        hit = names[p].get(name)
        if hit is None and self.shape.reexports and depth < 4 and p in self.files:
            hit = self._reexported(self.files[p], name, depth, names)
        return hit

    def _reexported(
        self, pf: SourceFile, name: str, depth: int, table: dict[str, dict[str, str]]
    ) -> str | None:
        """A name a module offers by importing it (``export { x } from "./a"``) or by
        re-exporting every name of another (``export * from "./a"``)."""
        origin = pf.imports.get(name)
        if origin and "." in origin:
            mod, _, attr = origin.rpartition(".")
            hit = self.in_module(mod, attr, depth + 1, table)
            if hit:
                return hit
        for star in pf.star_exports:
            hit = self.in_module(star, name, depth + 1, table)
            if hit:
                return hit
        return None

    # -- declared types ----------------------------------------------------------------

    def type_key(self, pf: SourceFile, name: str) -> str | None:
        """The class node or interface a type name of ``pf`` names (``Model``, ``ns.Model``)."""
        own = self.types[pf.path].get(name)
        if own is not None:
            return own
        head, _, rest = name.partition(".")
        origin = pf.imports.get(head)
        if origin is None:
            return None
        if rest:
            return self.in_module(origin, rest, table=self.types)
        mod, _, attr = origin.rpartition(".")
        return self.in_module(mod, attr, table=self.types) if mod else None

    def add_heritage(self, pf: SourceFile) -> None:
        """Which declared types each class and interface of ``pf`` derives from."""
        for symbol, bases in pf.bases.items():
            sub = self.types[pf.path].get(symbol)
            if sub is None:
                continue
            for b in bases:
                sup = self.type_key(pf, b)
                if sup is not None and sup != sub and sub not in self.subtypes[sup]:
                    self.subtypes[sup].append(sub)
                    self.supertypes[sub].append(sup)
        for alias, names in pf.aliases.items():
            # ``type Like = Session | Other``: what implements Session implements Like
            key = self.types[pf.path].get(alias)
            for name in names:
                target = self.type_key(pf, name)
                if key is not None and target is not None and target != key:
                    if target not in self.subtypes[key]:
                        self.subtypes[key].append(target)
                        self.supertypes[target].append(key)

    def add_typed(self, pf: SourceFile) -> None:
        """Names declared with a type (``model: Model``) bound to the classes a call on
        them may run: the type itself when a class, and every class deriving from it
        (an interface's implementations, a base class's subclasses).  A class in test or
        example code is left out for a caller outside them: only they hand it in."""
        caller_tests = _in_tests(pf.path)
        for t in pf.typed:
            lhs = t.extra.get("lhs", "")
            found: list[str] = []
            for name in t.extra.get("types", "").split(","):
                key = self.type_key(pf, name) if name else None
                if key is None:
                    continue
                for k in (key, *self._descendants(key)):
                    usable = k in self.graph.functions and (caller_tests or not _in_tests(k))
                    if usable and k not in found:
                        found.append(k)
            if found:
                scope = t.symbol.split(".")[0] if self._on_self(lhs) else t.symbol
                bound = self.var_types[(pf.path, scope)].setdefault(lhs, [])
                bound += [f for f in found if f not in bound]

    def _implementations(self, caller: str, key: str) -> list[str]:
        """The classes a value of declared type ``key`` may be: the type itself when a
        class, and every class deriving from it (outside tests for a caller outside them)."""
        tests = _in_tests(caller)
        return [
            k
            for k in (key, *self._descendants(key))
            if k in self.graph.functions and (tests or not _in_tests(k))
        ]

    def add_returned(self, pf: SourceFile) -> None:
        """Names bound to what a repository function returns (``const s = bound(x)``)
        bound to the classes its declared return type may be."""
        for a in pf.assigns:
            lhs = a.extra.get("lhs", "")
            if a.extra.get("rhs_type") != "call" or not self.bound_name.fullmatch(lhs):
                continue
            m = _CALLEE.match(a.extra.get("rhs", ""))
            if m is None:
                continue
            callee = m.group(1)
            if callee.startswith("this.") and callee.count(".") == 1:
                fn = self.method_of(f"{pf.path}::{a.symbol.split('.')[0]}", callee[5:])
            else:
                fn = self.resolve_name(pf, callee) if "." not in callee else None
            home = self.files.get(fn.split("::", 1)[0]) if fn else None
            if fn is None or home is None:
                continue
            found: list[str] = []
            for name in home.returns.get(fn.split("::", 1)[1], []):
                key = self.type_key(home, name)
                if key is not None:
                    found += [k for k in self._implementations(pf.path, key) if k not in found]
            if found:
                scope = a.symbol.split(".")[0] if self._on_self(lhs) else a.symbol
                bound = self.var_types[(pf.path, scope)].setdefault(lhs, [])
                bound += [f for f in found if f not in bound]

    def _descendants(self, key: str) -> list[str]:
        out: list[str] = []
        todo = list(self.subtypes.get(key, []))
        while todo and len(out) < 200:
            k = todo.pop(0)
            if k not in out and k != key:
                out.append(k)
                todo += self.subtypes.get(k, [])
        return out

    def method_of(self, cls_node: str, name: str) -> str | None:
        """``name`` on a class: its own method, else the nearest base class's."""
        seen: set[str] = set()
        todo = [cls_node]
        while todo:
            k = todo.pop(0)
            if k in seen:
                continue
            seen.add(k)
            hit = self.class_method(k, name)
            if hit:
                return hit
            if not self.shape.typed_dispatch:
                return None
            todo += self.supertypes.get(k, [])
        return None

    # -- what a module offers ----------------------------------------------------------

    def add_offered(self, pf: SourceFile) -> None:
        """A module that re-exports other modules' names offers their code: reaching it
        (a package's ``main`` or ``exports``) reaches every function it offers and the
        public methods of every class it offers."""
        if not pf.star_exports and not any(e in pf.imports for e in pf.exports):
            return
        classes = self.class_nodes
        out: dict[str, None] = {}
        for name in self._offered_names(pf, 0):
            node = self.top[pf.path].get(name) or self._reexported(pf, name, 0, self.top)
            if node is None or "::<module>" in node:
                continue
            out[node] = None
            if node in classes:
                out.update(dict.fromkeys(self._public_methods(node)))
        self.offered[pf.path] = list(out)

    def _offered_names(self, pf: SourceFile, depth: int) -> list[str]:
        """Names ``pf`` exports, its ``export *`` modules' names included."""
        names = list(pf.exports)
        if depth < 4:
            for star in pf.star_exports:
                p = self.module_path(star)
                sub = self.files.get(p) if p else None
                if sub is not None:
                    names += self._offered_names(sub, depth + 1)
        return list(dict.fromkeys(names))

    def _public_methods(self, cls_node: str) -> list[str]:
        """A class's own methods whose names do not mark them private (``_x``, ``#x``)."""
        own = self.members.get(cls_node, [])
        return [m for m in own if not m.rsplit(".", 1)[1].startswith(("_", "#"))]

    def class_method(self, cls_node: str, name: str) -> str | None:
        cand = f"{cls_node}.{name}"
        return cand if cand in self.graph.functions else None

    def resolve_name(self, pf: PyFile, name: str) -> str | None:
        """A name of the file: its own top-level definition or what it imports."""
        if name in self.top[pf.path]:
            return self.top[pf.path][name]
        if self.shape.folder_packages:
            hit = self.folder_top.get(_folder(pf.path), {}).get(name)
            if hit is not None:
                return hit
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
        got = self.var_types.get((pf.path, scope), {}).get(head, [])
        if got or not self.shape.closures or self._on_self(head):
            return got
        # a closure uses the names of the functions enclosing it (innermost first)
        parts = scope.split(".")[:-1]
        while parts and not got:
            got = self.var_types.get((pf.path, ".".join(parts)), {}).get(head, [])
            parts.pop()
        return got

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
        elif self.shape.closures:
            out += [n for n in self._named_arguments(pf, c) if n not in out]
        return out

    @cached_property
    def folder_top(self) -> dict[str, dict[str, str]]:
        """Top-level names of each folder's files: a folder package's namespace."""
        out: dict[str, dict[str, str]] = defaultdict(dict)
        for path, names in sorted(self.top.items()):
            for name, node in names.items():
                out[_folder(path)].setdefault(name, node)
        return out

    def in_folder_package(self, import_path: str, name: str) -> str | None:
        """``name`` in the repository folder an import path ends with (the longest)."""
        best = ""
        for folder in self.folder_top:
            if folder and len(folder) > len(best):
                if import_path == folder or import_path.endswith("/" + folder):
                    best = folder
        return self.folder_top[best].get(name) if best else None

    @cached_property
    def class_nodes(self) -> frozenset[str]:
        """Every class of the language (asked once the nodes are all added)."""
        return frozenset(n for by in self.classes.values() for n in by.values())

    def _enclosed(self, pf: SourceFile, symbol: str, name: str) -> str | None:
        """``name`` defined in the calling function or one enclosing it (innermost first)."""
        scope = symbol.split(".") if symbol not in ("<module>", "<main>") else []
        while scope:
            cand = f"{pf.path}::{'.'.join(scope)}.{name}"
            if cand in self.graph.functions:
                return cand
            scope.pop()
        return None

    def _named_arguments(self, pf: SourceFile, c: Call) -> list[str]:
        """Functions of the repository handed to a call by name (``withSpan(run)``), or
        as a property of an object argument (``withTimeout({ invoke: run })``)."""
        out: list[str] = []
        for ref in [*c.positional, *(v for v in c.kwargs.values() if v not in c.positional)]:
            if not _BARE_NAME.fullmatch(ref):
                continue
            hit = self._enclosed(pf, c.symbol, ref) or self.resolve_name(pf, ref)
            if hit and "::<module>" not in hit and hit not in self.class_nodes:
                out.append(hit)
        return out

    def _bare(self, pf: PyFile, c: Call, name: str) -> list[str]:
        """``f(...)``: an alias, a definition or an import; a class means its constructor."""
        hit = self.aliases.get((pf.path, c.symbol), {}).get(name)
        hit = hit or (self._enclosed(pf, c.symbol, name) if self.shape.closures else None)
        hit = hit or self.resolve_name(pf, name)
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
        hit = self.method_of(f"{pf.path}::{cls}", attr)
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
        return list(dict.fromkeys(m for m in (self.method_of(k, attr) for k in classes_of) if m))

    def _dotted(self, pf: PyFile, parts: list[str]) -> list[str]:
        """``mod.f(...)`` or ``Class.m(...)``, else the only method of that name."""
        head, attr = ".".join(parts[:-1]), parts[-1]
        origin = pf.imports.get(parts[0])
        if origin and self.shape.folder_packages and len(parts) == 2:
            hit = self.in_folder_package(origin, attr)
            if hit is not None:
                return [hit]
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
