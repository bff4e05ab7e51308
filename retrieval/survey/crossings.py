"""Where a route leaves one language for another: an HTTP request to a route the
repository's server defines, or a process started on a script of the repository.

Why a named boundary and not a call edge: each language's call graph is resolved apart
(a TypeScript import never names a Python module), but a mixed system's routes do cross,
at a request a front end sends to its own back end or at a script a process spawns.  The
crossing is a node of its own, ``<target path>::<HTTP GET /api/x>`` or
``<target path>::<subprocess scripts/x.py>``, between the caller and what it starts, so
a route that crosses says where and how it does.

Shapes read, each an ordinary one of its side:
- served: a function under a route decorator (``@app.get("/x")``, ``@router.post``,
  ``@bp.route``), prefixed by the ``APIRouter(prefix=...)`` / ``Blueprint(url_prefix=...)``
  its file makes;
- requested: ``fetch(url)``, ``axios.get(url)`` and the like with a literal or template
  path (substitutions match one path segment);
- spawned: a process call (``spawn``, ``exec``, ``execFile``, ``execa``,
  ``subprocess.run``, ``exec.Command``) whose arguments name a script file of the
  repository in another language.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from retrieval.languages.facts import Call, SourceFile
from retrieval.languages.javascript.package import source_candidates
from retrieval.survey.model import CallGraph, Crossing, FunctionNode

_ROUTE_DECORATOR = re.compile(
    r"^[\w.]+\.(get|post|put|patch|delete|route|websocket|api_route)\(\s*(?:path\s*=\s*)?"
    r"[rbuf]?['\"]([^'\"]*)['\"](.*)$",
    re.S,
)
_METHODS_ARG = re.compile(r"methods\s*=\s*\[([^\]]*)\]")
_PREFIX_CALLS = {"APIRouter": "prefix", "Blueprint": "url_prefix", "Router": "prefix"}
_REQUESTERS = re.compile(r"(^|\.)(fetch|get|post|put|patch|delete|request)$")
_HTTP_VERBS = {"get", "post", "put", "patch", "delete"}
_SPAWNERS = re.compile(
    r"(^|\.)(spawn|spawnSync|exec|execSync|execFile|execFileSync|fork|execa|execaSync|"
    r"run|Popen|call|check_call|check_output|Command|CommandContext)$"
)
_SCRIPT = re.compile(r"[\w./-]+\.(?:py|[cm]?[jt]s|go|sh)\b")
_HANDLER = re.compile(r"\s*(async\b|function\b|\([^)]*\)\s*(:[^=]*)?=>|\w+\s*=>)")
_SUBST = re.compile(r"\$\{[^}]*\}|\{[^}]*\}|<[^>]*>|:\w+")


@dataclass(frozen=True, slots=True)
class _Served:
    method: str
    segments: tuple[str, ...]
    node: str
    path: str
    line: int
    #: the handler's last header line: its decorators and its ``def`` line
    header_end: int


def _segments(url: str) -> tuple[str, ...]:
    """A URL path's segments, each substitution (``${id}``, ``{id}``, ``:id``) as ``*``,
    with scheme, host and query dropped."""
    u = re.sub(r"^\w+://[^/]*", "", url.strip()).split("?", 1)[0].split("#", 1)[0]
    parts = [_SUBST.sub("*", p) for p in u.split("/") if p]
    return tuple("*" if "*" in p else p for p in parts)


def _literal(text: str) -> str | None:
    t = text.strip()
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "'\"`":
        return t[1:-1]
    return None


def served_routes(files: list[SourceFile]) -> list[_Served]:
    """Route handlers the repository's servers define, with their full paths."""
    out: list[_Served] = []
    for pf in files:
        prefixes: dict[str, str] = {}
        for a in pf.assigns:
            for call, key in _PREFIX_CALLS.items():
                m = re.search(rf"{call}\((.*)\)", a.extra.get("rhs", "") or a.text, re.S)
                hit = m and re.search(rf"{key}\s*=\s*['\"]([^'\"]*)['\"]", m.group(1))
                if hit:
                    prefixes[a.extra.get("lhs", "")] = hit.group(1)
        for d in pf.defs:
            for dec in d.decorators:
                m = _ROUTE_DECORATOR.match(dec)
                if m is None:
                    continue
                owner = dec.split(".", 1)[0]
                verb = m.group(1)
                methods = _METHODS_ARG.search(m.group(3))
                method = (
                    re.sub(r"[^A-Za-z,]", "", methods.group(1)).split(",")[0].upper()
                    if methods
                    else (verb.upper() if verb in _HTTP_VERBS else "ANY")
                )
                full = prefixes.get(owner, "").rstrip("/") + "/" + m.group(2).lstrip("/")
                node = f"{pf.path}::{d.symbol}"
                end = min(d.start_line + len(d.decorators), d.end_line)
                segs = _segments(full)
                out.append(_Served(method, segs, node, pf.path, d.start_line, end))
    return out


def _request(c: Call) -> tuple[str, tuple[str, ...]] | None:
    """(method, path segments) of an HTTP request call with a literal path."""
    m = _REQUESTERS.search(c.callee)
    if m is None or not c.positional:
        return None
    if m.group(2) != "fetch" and "." not in c.callee:
        return None
    if any(_HANDLER.match(a) for a in c.positional[1:]):
        return None  # ``http.get("/x", (req) => ...)`` defines a route (a mock server's)
    url = _literal(c.positional[0])
    if url is None or not (url.startswith("/") or "://" in url or url.startswith("${")):
        return None
    if m.group(2) == "fetch":
        found = re.search(r"method\s*:\s*['\"`](\w+)", c.args_text)
        method = found.group(1).upper() if found else "GET"
    else:
        method = m.group(2).upper() if m.group(2) in _HTTP_VERBS else "ANY"
    segs = _segments(url)
    while segs and segs[0] == "*":  # a base URL substituted in front
        segs = segs[1:]
    return (method, segs) if segs else None


def _matches(req: tuple[str, ...], served: tuple[str, ...]) -> bool:
    return len(req) == len(served) and all(
        a == b or a == "*" or b == "*" for a, b in zip(req, served, strict=True)
    )


#: Launchers that run a package's program named after them (``npx chat``).
_LAUNCHERS = {"npx", "bunx", "pnpx", "npm", "pnpm", "yarn", "bun"}
_LAUNCHER_WORDS = {"exec", "run", "dlx", "x", "-y", "--yes", "--"}
_LITERAL = re.compile(r"'([^'\n]*)'|\"([^\"\n]*)\"|`([^`$]*)`")


def _spawned(c: Call, programs: Mapping[str, str]) -> list[tuple[str, str]]:
    """(what is started, the repository file it runs) for a process call: each script
    path its arguments name, and a program a package declares as its ``bin`` when the
    call starts it by name (``["chat", ...]``, ``"npx chat"``)."""
    out = [(s, s.removeprefix("./")) for s in _SCRIPT.findall(c.args_text)]
    words = [w for m in _LITERAL.finditer(c.args_text) for w in "".join(m.groups("")).split()]
    while words and (words[0] in _LAUNCHERS or words[0] in _LAUNCHER_WORDS):
        words = words[1:]
    if words and words[0] in programs:
        out.append((f"package bin {words[0]}", programs[words[0]]))
    return out


def named_programs(texts: Iterable[tuple[str, str]], paths: set[str]) -> dict[str, str]:
    """Programs the repository's packages declare (``package.json`` ``bin``: a name to a
    file, or one file named after the package), each with the source file it is built
    from (:func:`source_candidates`): what a process started by name runs."""
    out: dict[str, str] = {}
    for path, text in texts:
        if path.rsplit("/", 1)[-1] != "package.json":
            continue
        try:
            doc = json.loads(text)
        except ValueError:
            continue
        if not isinstance(doc, dict):
            continue
        bins = doc.get("bin")
        if isinstance(bins, str) and isinstance(doc.get("name"), str):
            bins = {doc["name"].rsplit("/", 1)[-1]: bins}
        if not isinstance(bins, dict):
            continue
        base = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
        for name, target in bins.items():
            if not isinstance(target, str):
                continue
            src = next((p for p in source_candidates(base, target) if p in paths), None)
            if src is not None:
                out.setdefault(str(name), src)
    return out


def add_crossings(
    graph: CallGraph, files: list[SourceFile], programs: Mapping[str, str] | None = None
) -> None:
    """Add each crossing between languages to ``graph`` as a boundary node between the
    caller and what it starts (edges only; no language's own resolution changes), and
    record it with the lines of both sides in ``graph.crossings``.  ``programs``: the
    package programs a process may start by name (:func:`named_programs`)."""
    programs = programs or {}
    seen: set[tuple[str, str, int]] = set()
    by_path = {pf.path: pf for pf in files}
    routes = served_routes(files)
    for pf in files:
        for c in pf.calls:
            caller = f"{pf.path}::{c.symbol}"
            if caller not in graph.functions:
                caller = f"{pf.path}::<module>"
            req = _request(c) if routes else None
            if req is not None:
                for r in routes:
                    if by_path[r.path].language == pf.language:
                        continue
                    if (req[0] in (r.method, "ANY") or r.method == "ANY") and _matches(
                        req[1], r.segments
                    ):
                        via = f"{r.method} /{'/'.join(r.segments)}"
                        node = _link(graph, caller, r.path, f"<HTTP {via}>", r.line, r.node)
                        _record(graph, Crossing(
                            node=node, kind="http", via=via, caller=caller,
                            call_start=c.stmt_start, call_end=c.stmt_end,
                            target=r.node, target_start=r.line, target_end=r.header_end,
                        ), seen)  # fmt: skip
            if _SPAWNERS.search(c.callee):
                for via, path in _spawned(c, programs):
                    target = by_path.get(path)
                    if target is None or target.language == pf.language:
                        continue
                    start = f"{target.path}::<main>"
                    if start not in graph.functions:
                        start = f"{target.path}::<module>"
                    label = f"<subprocess {target.path}>"
                    node = _link(graph, caller, target.path, label, 1, start)
                    line = graph.functions[start].start_line if start in graph.functions else 1
                    _record(graph, Crossing(
                        node=node, kind="subprocess", via=via, caller=caller,
                        call_start=c.stmt_start, call_end=c.stmt_end,
                        target=start, target_start=line, target_end=line,
                    ), seen)  # fmt: skip


def _link(graph: CallGraph, caller: str, path: str, label: str, line: int, target: str) -> str:
    node = f"{path}::{label}"
    if node not in graph.functions:
        graph.functions[node] = FunctionNode(
            id=node, path=path, symbol=label, start_line=line, end_line=line
        )
    for src, dst in ((caller, node), (node, target)):
        have = graph.edges.setdefault(src, [])
        if dst not in have:
            have.append(dst)
    return node


def _record(graph: CallGraph, c: Crossing, seen: set[tuple[str, str, int]]) -> None:
    """Keep ``c`` once: a call site matched to the same handler twice is one crossing."""
    key = (c.caller, c.node, c.call_start)
    if key not in seen:
        seen.add(key)
        graph.crossings.append(c)


def is_boundary(node: str) -> bool:
    """Is ``node`` a crossing between languages (not a function of the repository)?"""
    sym = node.partition("::")[2]
    return sym.startswith(("<HTTP ", "<subprocess "))
