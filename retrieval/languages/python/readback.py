"""Read-backs: where a file the system writes is read again later.

A persisted artifact matters by what reads it: a score history read by a gate, a
program file handed to an agent.  Static reading can see the read site when it names
the same thing the write names — the same module constant (``RESULTS_FILE``), the
same literal path, or the same file name joined onto a directory — so each read is
matched to the writes by those names only.  Two indirections are followed because
they are how most code reads its own state back: a path held in a local variable
assigned earlier in the same function (``path = os.path.join(d, "runs.jsonl")`` …
``load(path)``), and a repository helper whose parameter reaches a read
(``def load_runs(p): return read_file(p)``, itself ``open(p).read()``), followed
through the call graph to a fixed depth.  Reads through paths computed some other way
are not found, and the offline draft says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from retrieval.languages.python.values import constant, literal
from retrieval.survey.base import Hit, clip
from retrieval.survey.callgraph import Resolver
from retrieval.survey.details import ReadBackDetail
from retrieval.survey.model import Category
from retrieval.survey.source import Call, PyFile

#: Calls that read a file named by their first argument.
_READ_CALLS = {
    "json.load",
    "pickle.load",
    "yaml.safe_load",
    "yaml.load",
    "torch.load",
    "numpy.load",
    "np.load",
    "numpy.loadtxt",
    "np.loadtxt",
    "pandas.read_csv",
    "pd.read_csv",
    "pandas.read_json",
    "pd.read_json",
    "pandas.read_parquet",
    "pd.read_parquet",
    "csv.reader",
    "csv.DictReader",
    "joblib.load",
}
_READ_METHODS = ("read_text", "read_bytes")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LOCAL = re.compile(r"[a-z_][A-Za-z0-9_]*")
#: How many helper layers a read is followed through (``load_runs`` → ``read_file`` → open).
HELPER_DEPTH = 3


def write_key(pf: PyFile, expr: str) -> tuple[str | None, set[str], set[str]]:
    """What a write's or read's path expression names: its resolved value (when known),
    the module-level names it mentions and the file names (with an extension) in it."""
    value = literal(expr) or constant(pf, expr.strip())
    names = {n for n in _NAME.findall(expr) if n.isupper() and len(n) > 3}
    files = set(re.findall(r"""['"/]([\w.-]+\.[A-Za-z0-9]{1,6})['"]""", expr))
    if value:
        files.add(value.rsplit("/", 1)[-1])
    return value, names, {f for f in files if len(f) >= 5}


def _read_target(c: Call) -> str | None:
    last = c.full.rsplit(".", 1)[-1]
    if c.callee in ("open", "io.open", "codecs.open"):
        mode = c.kwargs.get("mode") or (c.positional[1] if len(c.positional) > 1 else "")
        if any(ch in (literal(mode) or "") for ch in "wax+"):
            return None
        return c.positional[0] if c.positional else None
    if c.full in _READ_CALLS:
        arg = c.positional[0] if c.positional else None
        return arg if arg is not None and "open(" not in arg else None
    if c.callee_type == "attribute" and last in _READ_METHODS:
        return c.callee.rsplit(".", 1)[0]
    return None


def local_value(pf: PyFile, expr: str, symbol: str, line: int) -> str | None:
    """The right-hand side last assigned to the local name ``expr`` in function ``symbol``
    before ``line``; None when ``expr`` is not a plain lower-case name or has no such
    assignment (module constants are :func:`constant`'s job)."""
    name = expr.strip()
    if not _LOCAL.fullmatch(name) or symbol in ("<module>", "<main>"):
        return None
    rhs = None
    for a in pf.assigns:
        if a.symbol == symbol and a.extra.get("lhs") == name and a.start_line < line:
            rhs = a.text.split("=", 1)[1].strip() if "=" in a.text else None
    return rhs


def path_key(
    pf: PyFile, expr: str, symbol: str, line: int
) -> tuple[str | None, set[str], set[str]]:
    """:func:`write_key` of ``expr``, joined with the key of the local assignment it names."""
    value, names, files = write_key(pf, expr)
    rhs = local_value(pf, expr, symbol, line)
    if rhs:
        v2, n2, f2 = write_key(pf, rhs)
        value, names, files = value or v2, names | n2, files | f2
    return value, names, files


def _params(pf: PyFile) -> dict[str, list[str]]:
    """Graph node of each function in ``pf`` → its parameters, ``self``/``cls`` dropped."""
    out = {}
    for d in pf.defs:
        if d.kind == "function":
            ps = [p.lstrip("*") for p in d.params]
            out[f"{pf.path}::{d.symbol}"] = ps[1:] if ps[:1] in (["self"], ["cls"]) else ps
    return out


@dataclass(frozen=True, slots=True)
class Reader:
    """A repository function that reads the file one of its parameters names."""

    param: str  # the parameter holding the path
    params: list[str]  # all parameters, ``self``/``cls`` dropped, to find it at a call

    def argument(self, c: Call) -> str | None:
        """The expression call ``c`` passes for the path (by keyword, else by position)."""
        if self.param in c.kwargs:
            return c.kwargs[self.param]
        i = self.params.index(self.param)
        return c.positional[i] if i < len(c.positional) else None


def reader_helpers(files: list[PyFile], resolve: Resolver) -> dict[str, Reader]:
    """Repository functions that read the file named by one of their parameters, by
    graph node.  A direct read of the parameter makes a reader; so does passing it on to
    a reader, up to :data:`HELPER_DEPTH` layers."""
    params = {n: ps for pf in files for n, ps in _params(pf).items()}
    readers: dict[str, Reader] = {}
    for pf in files:
        for c in pf.calls:
            node, expr = f"{pf.path}::{c.symbol}", _read_target(c)
            if expr and node not in readers and expr.strip() in params.get(node, ()):
                readers[node] = Reader(expr.strip(), params[node])
    for _ in range(HELPER_DEPTH - 1):
        found: dict[str, Reader] = {}
        for pf, c, reader in _helper_calls(files, resolve, readers):
            node = f"{pf.path}::{c.symbol}"
            arg = (reader.argument(c) or "").strip()
            if node not in readers and node not in found and arg in params.get(node, ()):
                found[node] = Reader(arg, params[node])
        if not found:
            break
        readers.update(found)
    return readers


def _helper_calls(
    files: list[PyFile], resolve: Resolver, readers: dict[str, Reader]
) -> list[tuple[PyFile, Call, Reader]]:
    """Calls that run one of ``readers`` (a cheap name test first: resolving is slower)."""
    names = {n.rsplit("::", 1)[-1].rsplit(".", 1)[-1] for n in readers}
    out = []
    for pf in files:
        for c in pf.calls:
            if c.callee.rsplit(".", 1)[-1] not in names:
                continue
            hit = next((readers[n] for n in resolve(pf, c) if n in readers), None)
            if hit is not None:
                out.append((pf, c, hit))
    return out


def _reads(files: list[PyFile], resolve: Resolver | None) -> list[tuple[PyFile, Call, str]]:
    """Every read call with the path expression it reads: direct reads, and calls of a
    reader helper with the argument passed for the helper's path."""
    out = [(pf, c, e) for pf in files for c in pf.calls if (e := _read_target(c))]
    if resolve is not None:
        for pf, c, reader in _helper_calls(files, resolve, reader_helpers(files, resolve)):
            arg = reader.argument(c)
            if arg:
                out.append((pf, c, arg))
    order = {pf.path: i for i, pf in enumerate(files)}
    return sorted(out, key=lambda t: (order[t[0].path], t[1].start_line, t[1].end_line))


def read_back_findings(
    files: list[PyFile], writes: list[Hit], resolve: Resolver | None = None
) -> list[Hit]:
    """Reads of files the system writes, each naming the write target it matches."""
    by_path = {pf.path: pf for pf in files}
    targets: list[tuple[str, str | None, set[str], set[str]]] = []
    for h in writes:
        if h.category != Category.PERSISTENCE or h.kind in ("delete", "git", "sqlite"):
            continue
        written = h.view.get("target", "")
        pf = by_path.get(h.path)
        if not written or pf is None:
            continue
        value, names, fnames = path_key(pf, written, h.symbol, h.start_line)
        targets.append((written, value, names, fnames))
    if not targets:
        return []
    hits: list[Hit] = []
    for pf, c, expr in _reads(files, resolve):
        value, names, fnames = path_key(pf, expr, c.symbol, c.start_line)
        best: tuple[int, str, str | None] | None = None
        shared: set[str] = set()
        for wexpr, wvalue, wnames, wfiles in targets:
            # the strongest evidence wins: same value, then same constant, then file name
            rank = (
                0
                if value and wvalue and value == wvalue
                else 1
                if names & wnames
                else 2
                if fnames & wfiles
                else None
            )
            if rank is not None and (best is None or rank < best[0]):
                best, shared = (rank, wexpr, wvalue), fnames & wfiles
        if best is None:
            continue
        detail: ReadBackDetail = {"target": clip(expr, 100), "written_as": clip(best[1], 100)}
        if value:
            detail["target_value"] = value
        if best[2]:
            detail["written_value"] = best[2]
        if shared:
            detail["file"] = sorted(shared)[0]
        hits.append(Hit.at_call(pf, c, category=Category.READ_BACK, kind="read", detail=detail))
    return hits
