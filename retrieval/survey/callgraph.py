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

from retrieval.survey.model import CallGraph, FunctionNode
from retrieval.survey.source import Call, PyFile, module_name

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
    """Dotted module names → repository paths (also by suffix, for src/ layouts)."""

    def __init__(self, paths: list[str]):
        self.by_name: dict[str, str] = {}
        for p in sorted(paths, key=lambda x: (x.count("/"), x)):
            parts = module_name(p).split(".")
            for i in range(len(parts)):
                self.by_name.setdefault(".".join(parts[i:]), p)

    def path(self, module: str) -> str | None:
        return self.by_name.get(module)


Resolver = Callable[[PyFile, Call], list[str]]


def build_call_graph(files: list[PyFile]) -> tuple[CallGraph, Resolver]:
    """The graph, plus the resolver the loop rule reuses to follow call sites."""
    graph = CallGraph()
    index = ModuleIndex([f.path for f in files])
    top: dict[str, dict[str, str]] = defaultdict(dict)  # path -> top-level name -> node id
    methods: dict[str, list[str]] = defaultdict(list)  # method name -> node ids
    classes: dict[str, dict[str, str]] = defaultdict(dict)  # path -> class name -> node id
    for pf in files:
        nlines = max(1, len(pf.lines))
        mod_id = f"{pf.path}::<module>"
        graph.functions[mod_id] = FunctionNode(
            id=mod_id, path=pf.path, symbol="<module>", start_line=1, end_line=nlines
        )
        if pf.main_guard:
            mid = f"{pf.path}::<main>"
            graph.functions[mid] = FunctionNode(
                id=mid,
                path=pf.path,
                symbol="<main>",
                start_line=pf.main_guard[0],
                end_line=pf.main_guard[1],
            )
        for d in pf.defs:
            nid = f"{pf.path}::{d.symbol}"
            graph.functions[nid] = FunctionNode(
                id=nid,
                path=pf.path,
                symbol=d.symbol,
                start_line=d.start_line,
                end_line=d.end_line,
                docstring=(d.docstring or "")[:400] or None,
            )
            if "." not in d.symbol:
                top[pf.path][d.name] = nid
                if d.kind == "class":
                    classes[pf.path][d.name] = nid
            elif d.kind == "function" and d.symbol.count(".") == 1:
                methods[d.name].append(nid)

    def in_module(module: str, name: str) -> str | None:
        p = index.path(module)
        return top[p].get(name) if p else None

    def class_method(cls_node: str, name: str) -> str | None:
        cand = f"{cls_node}.{name}"
        return cand if cand in graph.functions else None

    def resolve_name(pf: PyFile, name: str) -> str | None:
        if name in top[pf.path]:
            return top[pf.path][name]
        origin = pf.imports.get(name)
        if origin and "." in origin:
            mod, _, attr = origin.rpartition(".")
            hit = in_module(mod, attr)
            if hit:
                return hit
            p = index.path(origin)
            if p:
                return f"{p}::<module>"
        return None

    # local variables bound to repository classes: ``runner = TauRunner(...)``
    var_types: dict[tuple[str, str], dict[str, list[str]]] = defaultdict(dict)
    aliases: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)
    for pf in files:
        for a in pf.assigns:
            if a.extra.get("rhs_type") == "identifier":
                # ``fn = get_response`` then ``fn(...)``: an alias of a repository function
                rhs = a.text.split("=", 1)[1].strip() if "=" in a.text else ""
                hit = resolve_name(pf, rhs)
                lhs = a.extra.get("lhs", "")
                if hit and "::<module>" not in hit and re.fullmatch(r"[A-Za-z_]\w*", lhs):
                    aliases[(pf.path, a.symbol)][lhs] = hit
                continue
            if a.extra.get("rhs_type") not in ("call", "conditional_expression"):
                continue
            lhs = a.extra.get("lhs", "")
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*|self\.[A-Za-z_][A-Za-z0-9_]*", lhs):
                continue
            rhs = a.text.split("=", 1)[1] if "=" in a.text else ""
            found = []
            for name in re.findall(r"(?<![\w.])([A-Z][A-Za-z0-9_]*)\(", rhs):
                hit = resolve_name(pf, name)
                if hit and "::<module>" not in hit and hit.rsplit("::", 1)[1][:1].isupper():
                    found.append(hit)
            if found:
                scope = a.symbol.split(".")[0] if lhs.startswith("self.") else a.symbol
                var_types[(pf.path, scope)].setdefault(lhs, [])
                var_types[(pf.path, scope)][lhs] += [
                    f for f in found if f not in var_types[(pf.path, scope)][lhs]
                ]

    def typed(pf: PyFile, c: Call, head: str) -> list[str]:
        scope = c.symbol.split(".")[0] if head.startswith("self.") else c.symbol
        return var_types.get((pf.path, scope), {}).get(head, [])

    def resolve(pf: PyFile, c: Call) -> list[str]:
        if c.callee_type != "identifier" and c.callee_type != "attribute":
            return []
        parts = c.callee.split(".")
        out: list[str] = []
        if len(parts) == 1:
            hit = aliases.get((pf.path, c.symbol), {}).get(parts[0]) or resolve_name(pf, parts[0])
            if hit:
                init = (
                    class_method(hit, "__init__")
                    if hit.split("::")[1] in classes[pf.path]
                    or hit.rsplit("::", 1)[1][:1].isupper()
                    else None
                )
                out.append(init or hit)
        elif parts[0] in ("self", "cls") and len(parts) == 2:
            cls = c.symbol.split(".")[0]
            hit = class_method(f"{pf.path}::{cls}", parts[1])
            if hit:
                out.append(hit)
            elif parts[1] not in _GENERIC and len(methods.get(parts[1], [])) == 1:
                out.append(methods[parts[1]][0])
        else:
            head, attr = ".".join(parts[:-1]), parts[-1]
            classes_of = typed(pf, c, head)
            if classes_of:
                got = [m for m in (class_method(k, attr) for k in classes_of) if m]
                if got:
                    return got
            origin = pf.imports.get(parts[0])
            full = f"{origin}.{'.'.join(parts[1:-1])}".rstrip(".") if origin else head
            hit = in_module(full, attr)
            if hit is None:
                cls_node = resolve_name(pf, head) if len(parts) == 2 else None
                if cls_node and "::<module>" not in cls_node:
                    hit = class_method(cls_node, attr)
            if hit is None and attr not in _GENERIC and len(methods.get(attr, [])) == 1:
                hit = methods[attr][0]
            if hit:
                out.append(hit)
        if _CALLBACK_TAKERS.search(c.callee):
            refs = list(c.positional[:1]) + [
                c.kwargs[k] for k in ("target", "func", "fn") if k in c.kwargs
            ]
            for ref in refs:
                if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", ref):
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
                    out.extend(resolve(pf, sub))
        return out

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
    graph.edges = {k: list(v) for k, v in sorted(edges.items())}
    return graph, resolve
