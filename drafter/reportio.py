"""Load and save reports: draft JSON or report text, chosen by content, saved atomically.

Why here and not in the CLI: verify, review and eval all accept "a report" that may be
either a hand-written text report or a machine draft, and all must refuse the same bad
files the same way (too large, binary, not UTF-8, invalid JSON) with one clear line.
Saving goes through a temporary file in the same directory and ``os.replace``, so a
crash leaves either the old file or the new one, never half of one.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from drafter.errors import BadInput, ReportFormatError
from drafter.model import SCHEMA_VERSION, Report
from drafter.textformat import parse_report, render_markdown, render_text
from drafter.textformat.parser import ParseResult

#: Largest report file accepted; real reports are well under 1 MB.
MAX_REPORT_BYTES = 20 * 1024 * 1024


def read_report_text(path: str | os.PathLike[str]) -> str:
    """Read a report file as UTF-8 text, refusing missing, huge or binary files."""
    p = Path(path)
    where = str(p)
    if not p.exists():
        raise BadInput("no such file", where=where)
    if not p.is_file():
        raise BadInput("not a regular file", where=where)
    size = p.stat().st_size
    if size > MAX_REPORT_BYTES:
        raise ReportFormatError(
            f"file is {size / 1e6:.1f} MB; reports over "
            f"{MAX_REPORT_BYTES // (1024 * 1024)} MB are refused",
            where=where,
        )
    data = p.read_bytes()
    if b"\x00" in data:
        line = data.count(b"\n", 0, data.index(b"\x00")) + 1
        raise ReportFormatError(
            "NUL byte: this is a binary file, not a report", where=where, line=line
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ReportFormatError(
            f"not UTF-8 (byte 0x{data[exc.start]:02x})", where=where, line=line
        ) from None


def looks_like_json(text: str) -> bool:
    return text.lstrip("\ufeff \t\r\n").startswith("{")


def report_from_json(text: str, *, where: str = "<draft>") -> Report:
    """Validate draft JSON into a Report; errors become one line naming the first problem.

    Validation is strict: ``schema_version`` must be an integer this drafter reads (2,
    or 1, upgraded on load; not ``"1"``, not ``true``), ``sections`` must be present,
    and no value is coerced to another type, so a damaged or hand-edited draft is
    refused instead of read as an empty report.
    """
    body = text.lstrip("\ufeff")
    _check_top_level(body, where)
    try:
        return Report.model_validate_json(body, strict=True)
    except ValidationError as exc:
        errs = exc.errors()
        first = errs[0]
        loc = ".".join(str(x) for x in first.get("loc", ())) or "(top level)"
        more = f" (and {len(errs) - 1} more)" if len(errs) > 1 else ""
        msg = str(first.get("msg", "invalid")).replace("\n", " ")
        if first.get("type") == "json_invalid":
            ctx = first.get("ctx") or {}
            raise ReportFormatError(f"invalid JSON: {ctx.get('error', msg)}", where=where) from None
        raise ReportFormatError(f"invalid draft JSON at {loc}: {msg}{more}", where=where) from None


def json_problem(exc: ValueError | RecursionError) -> str:
    """What is wrong with a JSON text ``json.loads`` refused, in one line.

    Why not ``str(exc)``: besides syntax errors (``JSONDecodeError``), ``json.loads``
    raises a plain ValueError for an integer of more than 4,300 digits (CPython's guard
    against quadratic conversion) and RecursionError for deep nesting; both messages
    are long, and a caller that catches only JSONDecodeError shows a traceback instead.
    """
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} (line {exc.lineno}, column {exc.colno})"
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    if "integer string conversion" in str(exc):
        return "a number has more than 4300 digits"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def loads_json(text: str | bytes, *, where: str) -> Any:
    """``json.loads``, with every refusal one :class:`ReportFormatError` naming ``where``."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ReportFormatError(f"invalid JSON: {json_problem(exc)}", where=where) from None


def _check_top_level(body: str, where: str) -> None:
    """The keys a draft must carry, checked before the model's defaults could fill them."""
    data = loads_json(body, where=where)
    if not isinstance(data, dict):
        raise ReportFormatError("draft JSON must be an object", where=where)
    for key in ("schema_version", "sections"):
        if key not in data:
            raise ReportFormatError(f"invalid draft JSON: {key!r} is missing", where=where)
    v = data["schema_version"]
    if type(v) is not int:
        raise ReportFormatError(
            f"invalid draft JSON at schema_version: must be the integer {SCHEMA_VERSION}, "
            f"not {json.dumps(v)}",
            where=where,
        )
    if not isinstance(data["sections"], list):
        raise ReportFormatError("invalid draft JSON at sections: must be a list", where=where)


def load_report_with_warnings(path: str | os.PathLike[str]) -> ParseResult:
    """Load draft JSON or report text; text parsing warnings are returned, not printed."""
    text = read_report_text(path)
    where = str(path)
    if looks_like_json(text):
        report = report_from_json(text, where=where)
        return ParseResult(report=report, warnings=[f"{where}: {w}" for w in report.warnings()])
    return parse_report(text, where=where)


def load_report(path: str | os.PathLike[str]) -> Report:
    """Load draft JSON or report text (detected from the content) into a Report."""
    return load_report_with_warnings(path).report


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` so that a crash never leaves a partial file."""
    p = Path(path)
    if p.is_dir():
        raise BadInput("is a folder; give a file name to write", where=str(p))
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    except OSError as exc:
        why = "a parent is a file, not a folder" if _under_file(p) else exc.strerror
        raise BadInput(f"cannot write here: {why}", where=str(p)) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    try:  # make the rename itself durable
        dfd = os.open(p.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def check_output_path(path: str | os.PathLike[str]) -> None:
    """Refuse, before any work is done, an output path that can never be written."""
    p = Path(path)
    if p.is_dir():
        raise BadInput("is a folder; give a file name to write", where=str(p))
    if _under_file(p):
        raise BadInput("cannot write here: a parent is a file, not a folder", where=str(p))


def _under_file(p: Path) -> bool:
    """Is some parent of ``p`` an existing regular file?"""
    return any(q.is_file() for q in p.parents)


def format_for(path: str | os.PathLike[str]) -> str:
    """Output format chosen by file suffix: .md -> markdown, .txt -> text, else json."""
    suffix = Path(path).suffix.lower()
    if suffix in (".md", ".markdown"):
        return "markdown"
    if suffix == ".txt":
        return "text"
    return "json"


def dump_report(report: Report, fmt: str = "json") -> str:
    """The report serialised as json, text or markdown."""
    if fmt == "json":
        return report.to_json()
    if fmt == "text":
        return render_text(report)
    if fmt == "markdown":
        return render_markdown(report)
    raise BadInput(f"unknown report format {fmt!r} (json, text or markdown)")


def save_report(report: Report, path: str | os.PathLike[str], fmt: str | None = None) -> None:
    """Save atomically; the format defaults to the one the suffix names (JSON otherwise)."""
    atomic_write_text(path, dump_report(report, fmt or format_for(path)))


__all__ = [
    "MAX_REPORT_BYTES",
    "atomic_write_text",
    "check_output_path",
    "dump_report",
    "load_report",
    "load_report_with_warnings",
    "loads_json",
    "read_report_text",
    "report_from_json",
    "save_report",
]
