"""Render the report model as report text, in the style of the hand-written reports.

The layout rules mirror what the parser reads: one blank line between blocks, none
between consecutive bullets, numbered items or table rows.  Runtime reports indent
bullets and numbered items by two spaces ("  • "), epistemic reports do not ("• "),
as the analysts' own reports do.  The output parses back to an equal model.
"""

from __future__ import annotations

from drafter.model import (
    Block,
    Bullet,
    Heading,
    NumberedItem,
    Paragraph,
    Record,
    Report,
    ReportType,
    Table,
    WitnessBlock,
)
from drafter.textformat.lines import BULLET, format_witness
from drafter.textformat.parser import ANNOTATIONS, SHARED_RECORDS, TYPE_PATHS

#: Indentation of bullets and numbered items per report type (gold style).
ITEM_INDENT = {ReportType.runtime: "  ", ReportType.epistemic: ""}


def _one_line(text: str) -> str:
    """Prose is one line per block in the text format; fold any newlines."""
    return " ".join(part.strip() for part in text.splitlines() if part.strip()) or text.strip()


def _block_lines(block: Block, indent: str) -> list[str]:
    if isinstance(block, Paragraph | Heading):
        return [_one_line(block.text)]
    if isinstance(block, Bullet):
        return [f"{indent}{BULLET} {_one_line(block.text)}".rstrip()]
    if isinstance(block, NumberedItem):
        return [f"{indent}{block.number}. {_one_line(block.text)}"]
    if isinstance(block, WitnessBlock):
        w = block.witness
        quote_indent = indent if w.quote.startswith(BULLET) else ""
        return [format_witness(w.model_copy(update={"quote": _one_line(w.quote)}), quote_indent)]
    if isinstance(block, Table):
        return ["\t".join(_one_line(c) for c in row) for row in [block.header, *block.rows]]
    raise TypeError(f"unknown block {type(block).__name__}")  # pragma: no cover


def _tight(a: Block, b: Block) -> bool:
    """Blocks written on adjacent lines with no blank line between them."""
    return (isinstance(a, Bullet) and isinstance(b, Bullet)) or (
        isinstance(a, NumberedItem) and isinstance(b, NumberedItem)
    )


def render_blocks(blocks: list[Block], indent: str) -> list[str]:
    """Lines for a run of blocks (no leading or trailing blank line)."""
    out: list[str] = []
    prev: Block | None = None
    for b in blocks:
        if prev is not None and not _tight(prev, b):
            out.append("")
        out.extend(_block_lines(b, indent))
        prev = b
    return out


def render_record(record: Record, rtype: ReportType = ReportType.runtime) -> str:
    """One record as text (ID, label, part-of, body)."""
    return "\n".join(_record_lines(record, ITEM_INDENT[rtype]))


def _record_lines(r: Record, indent: str) -> list[str]:
    out = [r.id, "", f"Label: {_one_line(r.label)}"]
    if r.part_of:
        out += ["", f"Part of: {r.part_of}"]
    if r.blocks:
        out += ["", *render_blocks(r.blocks, indent)]
    return out


def render_text(report: Report) -> str:
    """The whole report in the text format (ends with one newline)."""
    indent = ITEM_INDENT[report.type]
    out = [
        f"{report.system} {report.type.value} report",
        "",
        f"Type: {report.type_path or TYPE_PATHS[report.type]}",
    ]
    if report.source is not None:
        src = f"Source: {report.source.id} {report.source.repository}"
        if report.source.revision:
            src += f" at {report.source.revision}"
        out += ["", src]
    for section in report.account:
        out += ["", section.title]
        if section.blocks:
            out += ["", *render_blocks(section.blocks, indent)]
    out += ["", SHARED_RECORDS]
    for rs in report.sections:
        out += ["", rs.title]
        if rs.note:
            out += ["", rs.note]
        for r in rs.records:
            out += ["", *_record_lines(r, indent)]
    if report.type == ReportType.runtime:
        out += [
            "",
            ANNOTATIONS,
            "",
            report.annotations if report.annotations is not None else "none",
        ]
    elif report.annotations is not None:
        out += ["", ANNOTATIONS, "", report.annotations]
    return "\n".join(out) + "\n"
