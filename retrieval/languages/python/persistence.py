"""Persistence: what the system writes that outlives the call that wrote it.

File writes and appends (``open`` in a writing mode, ``Path.write_text``), json /
pickle / torch / numpy / csv / parquet / yaml saves, file copies and moves, sqlite
statements, and git commands that change repository state (commit, reset, checkout).
"""

from __future__ import annotations

import re

from retrieval.languages.python.values import constant, literal
from retrieval.survey.base import Hit, clip
from retrieval.survey.details import PersistenceDetail
from retrieval.survey.model import Category, PersistenceKind
from retrieval.survey.source import Call, PyFile

_SAVE_CALLS: dict[str, PersistenceKind] = {
    "json.dump": "json",
    "pickle.dump": "pickle",
    "torch.save": "torch",
    "numpy.save": "numpy",
    "numpy.savez": "numpy",
    "numpy.savetxt": "numpy",
    "np.save": "numpy",
    "np.savez": "numpy",
    "yaml.dump": "yaml",
    "yaml.safe_dump": "yaml",
    "csv.writer": "csv",
    "csv.DictWriter": "csv",
    "shutil.copy": "copy",
    "shutil.copy2": "copy",
    "shutil.copyfile": "copy",
    "shutil.copytree": "copy",
    "shutil.move": "move",
    "os.rename": "move",
    "os.replace": "move",
    "shutil.rmtree": "delete",
    "os.remove": "delete",
    "os.unlink": "delete",
    "sqlite3.connect": "sqlite",
    "joblib.dump": "pickle",
    "dill.dump": "pickle",
    "cloudpickle.dump": "pickle",
}
_METHOD_SAVES: dict[str, PersistenceKind] = {
    "write_text": "file",
    "write_bytes": "file",
    "to_csv": "csv",
    "to_parquet": "parquet",
    "to_json": "json",
    "to_pickle": "pickle",
    "save_pretrained": "model",
    "savefig": "figure",
    "to_excel": "excel",
    "save_to_disk": "dataset",
}
_GIT_WRITE = re.compile(
    r"""\bgit\b['",\s]+(?:-C['",\s]+\S+['",\s]+)?(commit|reset|checkout|apply|push|stash|clean|merge|rebase|add|rm|am|cherry-pick)\b"""
)
_SQL_WRITE = re.compile(
    r"^\s*['\"]{1,3}\s*(INSERT|UPDATE|DELETE|CREATE|REPLACE|DROP|ALTER)\b", re.I
)


def _mode(c: Call) -> str:
    mode = c.kwargs.get("mode") or (c.positional[1] if len(c.positional) > 1 else "")
    return literal(mode) or ""


def _written(pf: PyFile, expr: str) -> PersistenceDetail:
    out: PersistenceDetail = {"target": clip(expr, 100)}
    val = constant(pf, expr.strip())
    if val:
        out["target_value"] = val
    return out


def _extend_to_write(pf: PyFile, start: int, end: int) -> int:
    """For ``with open(...) as f:`` include the following write line(s), up to 3 lines total."""
    if not pf.lines[start - 1].lstrip().startswith(("with ", "async with ")):
        return end
    for ln in range(end + 1, min(end + 3, len(pf.lines)) + 1):
        if ln - start >= 3:
            break
        if re.search(r"\.(write|writelines|dump)\(|dump\(|writer", pf.lines[ln - 1]):
            return ln
    return end


def persistence_findings(pf: PyFile) -> list[Hit]:
    """Every call of the file that writes something lasting (see the module doc)."""
    hits: list[Hit] = []
    covered: set[int] = set()  # lines already inside a "with open(..., 'w')" finding
    for c in pf.calls:
        if c.start_line in covered and c.start_line == c.stmt_start:
            continue
        hit = _persistence_at(pf, c, covered)
        if hit is not None:
            hits.append(hit)
    return hits


_OPENS = ("open", "io.open", "codecs.open")
_PROCESS_CALLS = (
    "subprocess.run",
    "subprocess.call",
    "subprocess.check_call",
    "subprocess.check_output",
    "subprocess.Popen",
    "os.system",
    "os.popen",
)
_GIT_API = re.compile(r"\.git\.(commit|reset|checkout|apply|push)$|\.index\.commit$")


def _persistence_at(pf: PyFile, c: Call, covered: set[int]) -> Hit | None:
    """The one persistence finding a call site makes, tried in order: an ``open`` for
    writing, a save call, an SQL write, a git command."""
    last = c.full.rsplit(".", 1)[-1]
    if c.callee in _OPENS or (
        last == "open"
        and c.callee_type == "attribute"
        and c.callee.endswith(("Path.open", ".open"))
        and _mode(c)
    ):
        return _open_write(pf, c, covered)
    kind: PersistenceKind | None = _SAVE_CALLS.get(c.full)
    if kind is None and c.callee_type == "attribute" and last in _METHOD_SAVES:
        kind = _METHOD_SAVES[last]
    if kind is not None:
        return _save(pf, c, kind, last)
    if (
        last in ("execute", "executemany", "executescript")
        and c.positional
        and _SQL_WRITE.match(c.positional[0])
    ):
        return Hit.at_call(
            pf,
            c,
            category=Category.PERSISTENCE,
            kind="sqlite",
            detail={"statement": clip(c.positional[0], 100)},
        )
    return _git_write(pf, c, last)


def _open_write(pf: PyFile, c: Call, covered: set[int]) -> Hit | None:
    """``open(path, "w")`` and the like; a ``with`` block's write lines join the snippet
    (and are marked ``covered`` so they make no finding of their own)."""
    mode = _mode(c)
    if not any(ch in mode for ch in "wax+"):
        return None
    write_kind: PersistenceKind = "append" if "a" in mode else "write"
    target = c.positional[0] if c.positional and c.callee in _OPENS else c.callee.rsplit(".", 1)[0]
    detail: PersistenceDetail = {"mode": mode, **_written(pf, target)}
    end = _extend_to_write(pf, c.stmt_start, c.stmt_end)
    covered.update(range(c.stmt_end + 1, end + 1))
    return Hit(
        category=Category.PERSISTENCE,
        kind=write_kind,
        path=pf.path,
        start_line=c.stmt_start,
        end_line=end,
        symbol=c.symbol,
        detail=detail,
    )


def _save(pf: PyFile, c: Call, kind: PersistenceKind, last: str) -> Hit | None:
    """A save call (``json.dump``, ``df.to_csv``, ``shutil.copy`` ...) with what it writes."""
    if (
        kind in ("json", "pickle", "yaml", "torch")
        and len(c.positional) < 2
        and "file" not in c.kwargs
        and "f" not in c.kwargs
    ):
        return None  # json.dumps-like use without a file argument
    if kind in ("copy", "move"):
        target = c.positional[1] if len(c.positional) > 1 else c.kwargs.get("dst", "")
    elif kind in ("json", "pickle", "yaml", "torch", "numpy"):
        target = (
            c.positional[1]
            if kind != "numpy" and len(c.positional) > 1
            else (c.positional[0] if c.positional else "")
        )
    elif kind == "delete" or kind == "sqlite":
        target = c.positional[0] if c.positional else ""
    elif last in ("write_text", "write_bytes"):
        target = c.callee.rsplit(".", 1)[0]  # the Path written, not the content
    else:
        target = c.positional[0] if c.positional else c.callee.rsplit(".", 1)[0]
    return Hit.at_call(
        pf,
        c,
        category=Category.PERSISTENCE,
        kind=kind,
        detail={"call": clip(c.callee, 60), **_written(pf, target)},
    )


def _git_write(pf: PyFile, c: Call, last: str) -> Hit | None:
    """A git command that changes repository state, run as a process or through an API."""
    if c.full in _PROCESS_CALLS or last in ("run_command", "exec_run"):
        m = _GIT_WRITE.search(c.args_text)
        if not m:
            return None
        return Hit.at_call(
            pf,
            c,
            category=Category.PERSISTENCE,
            kind="git",
            detail={"git": m.group(1), "command": clip(c.args_text, 120)},
        )
    if _GIT_API.search(c.callee):
        return Hit.at_call(
            pf,
            c,
            category=Category.PERSISTENCE,
            kind="git",
            detail={"git": c.callee.rsplit(".", 1)[-1], "command": clip(c.args_text, 120)},
        )
    return None
