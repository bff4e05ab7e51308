"""Read-backs: where a file the system writes is read again later.

A persisted artifact matters by what reads it: a score history read by a gate, a
program file handed to an agent.  Static reading can see the read site when it names
the same thing the write names — the same module constant (``RESULTS_FILE``), the
same literal path, or the same file name joined onto a directory — so each read is
matched to the writes by those names only.  Reads through paths computed some other
way are not found, and the offline draft says so.
"""

from __future__ import annotations

import re

from retrieval.survey.base import Hit, clip, constant, literal
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


def read_back_findings(files: list[PyFile], writes: list[Hit]) -> list[Hit]:
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
        value, names, fnames = write_key(pf, written)
        targets.append((written, value, names, fnames))
    if not targets:
        return []
    hits: list[Hit] = []
    for pf in files:
        for c in pf.calls:
            expr = _read_target(c)
            if not expr:
                continue
            value, names, fnames = write_key(pf, expr)
            best: tuple[int, str, str | None] | None = None
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
                    best = (rank, wexpr, wvalue)
            if best is None:
                continue
            detail: ReadBackDetail = {"target": clip(expr, 100), "written_as": clip(best[1], 100)}
            if value:
                detail["target_value"] = value
            if best[2]:
                detail["written_value"] = best[2]
            hits.append(Hit.at_call(pf, c, category=Category.READ_BACK, kind="read", detail=detail))
    return hits
