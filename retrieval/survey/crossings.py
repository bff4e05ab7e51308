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

import re
from dataclasses import dataclass

from retrieval.languages.facts import Call, SourceFile
from retrieval.survey.model import CallGraph, FunctionNode

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
                out.append(_Served(method, _segments(full), node, pf.path, d.start_line))
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


def add_crossings(graph: CallGraph, files: list[SourceFile]) -> None:
    """Add each crossing between languages to ``graph`` as a boundary node between the
    caller and what it starts (edges only; no language's own resolution changes)."""
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
                        label = f"<HTTP {r.method} /{'/'.join(r.segments)}>"
                        _link(graph, caller, r.path, label, r.line, r.node)
            if _SPAWNERS.search(c.callee):
                for script in _SCRIPT.findall(c.args_text):
                    target = by_path.get(script.removeprefix("./"))
                    if target is None or target.language == pf.language:
                        continue
                    start = f"{target.path}::<main>"
                    if start not in graph.functions:
                        start = f"{target.path}::<module>"
                    label = f"<subprocess {target.path}>"
                    _link(graph, caller, target.path, label, 1, start)


def _link(graph: CallGraph, caller: str, path: str, label: str, line: int, target: str) -> None:
    node = f"{path}::{label}"
    if node not in graph.functions:
        graph.functions[node] = FunctionNode(
            id=node, path=path, symbol=label, start_line=line, end_line=line
        )
    for src, dst in ((caller, node), (node, target)):
        have = graph.edges.setdefault(src, [])
        if dst not in have:
            have.append(dst)


def is_boundary(node: str) -> bool:
    """Is ``node`` a crossing between languages (not a function of the repository)?"""
    sym = node.partition("::")[2]
    return sym.startswith(("<HTTP ", "<subprocess "))
