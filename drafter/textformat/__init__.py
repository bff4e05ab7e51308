"""The report text format: parse hand-written or drafted reports, render the model back.

Public API: :func:`parse_report` (text -> :class:`ParseResult` with the report and
warnings), :func:`render_text` and :func:`render_markdown`.
"""

from drafter.textformat.lines import format_witness, split_witness
from drafter.textformat.markdown import render_markdown
from drafter.textformat.parser import ParseResult, parse_report
from drafter.textformat.render import render_record, render_text

__all__ = [
    "ParseResult",
    "format_witness",
    "parse_report",
    "render_markdown",
    "render_record",
    "render_text",
    "split_witness",
]
