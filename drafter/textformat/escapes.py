"""Carry control characters through the report text format, both ways.

Why at the model level: the renderer folds whitespace and the parser strips lines, and
both treat several control characters (CR, VT, FF, the information separators, NEL) as
line breaks or spaces.  Escaping every string of the model *before* rendering, and
unescaping every string of the parsed model *after* parsing, means neither ever sees a
raw control character: the file holds ``⟨U+001B⟩`` where the quote held ESC, and the
parsed quote holds ESC again, so ``verify`` compares the real bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drafter.model import Report
from drafter.sanitize import unescape, visible


def _map(value: Any, fn: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, list):
        return [_map(v, fn) for v in value]
    if isinstance(value, dict):
        return {k: _map(v, fn) for k, v in value.items()}
    return value


def map_report_strings(report: Report, fn: Callable[[str], str]) -> Report:
    """A copy of ``report`` with ``fn`` applied to every string value."""
    data = report.model_dump(mode="json")
    mapped = _map(data, fn)
    if mapped == data:
        return report
    return Report.model_validate(mapped)


def escape_report(report: Report) -> Report:
    """Every control character of every string written as its visible ``⟨U+XXXX⟩`` form."""
    return map_report_strings(report, visible)


def unescape_report(report: Report) -> Report:
    """The inverse of :func:`escape_report`, applied to a freshly parsed report."""
    return map_report_strings(report, unescape)
