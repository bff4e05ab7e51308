"""Render the report model as report text, in the style of the hand-written reports.

The layout rules mirror what the parser reads: one blank line between blocks, none
between consecutive bullets, numbered items or table rows.  Runtime reports indent
bullets and numbered items by two spaces ("  • "), epistemic reports do not ("• "),
as the analysts' own reports do.  The output parses back to an equal model.
"""

from __future__ import annotations

from drafter.model import (
    EPISTEMIC_SECTIONS,
    RUNTIME_SECTIONS,
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
from drafter.textformat.escapes import escape_report
from drafter.textformat.lines import BULLET, WITNESS_SEP, format_witness, is_id_like, split_witness
from drafter.textformat.parser import (
    ACCOUNT_SECTIONS,
    ANNOTATIONS,
    SHARED_RECORDS,
    TYPE_PATHS,
)

#: Indentation of bullets and numbered items per report type (gold style).
ITEM_INDENT = {ReportType.runtime: "  ", ReportType.epistemic: ""}


#: Lines the parser reads as structure when they stand alone.
_STRUCTURAL = frozenset(
    {SHARED_RECORDS, ANNOTATIONS, *RUNTIME_SECTIONS, *EPISTEMIC_SECTIONS}
    | {t for titles in ACCOUNT_SECTIONS.values() for t in titles}
)


def _one_line(text: str) -> str:
    """Prose is one line per block in the text format; fold newlines and TABs."""
    return " ".join(part.strip() for part in text.replace("\t", " ").splitlines() if part.strip())


def _prose(text: str) -> str:
    """One line of prose that the parser will not mistake for a witness.

    The text format has no escapes, so model-written prose that happens to look like
    structure is defused minimally: a trailing `` --- token`` (which would read as a
    witness) gets an em dash.  Gold-style prose is never affected; check.py detects
    whatever still reads back differently.
    """
    line = _one_line(text)
    while split_witness(line) is not None:  # each pass removes one "---"
        if line.rstrip().endswith("---"):
            cut = line.rfind("---")
            line = line[:cut] + "—" + line[cut + 3 :]
        elif WITNESS_SEP in line:
            head, _, tail = line.rpartition(WITNESS_SEP)
            line = f"{head} — {tail}"
        else:
            line = line.replace("---", "—", 1)
    return line


def _defuse_line(line: str, in_records: bool = True) -> str:
    """A standalone line that would start a record (in the records part) or a section
    is changed just enough: a bare ID is parenthesised, a bare title gets a full stop."""
    if in_records and is_id_like(line):
        return f"({line})"
    if line in _STRUCTURAL:
        return line + "."
    return line


def _block_lines(block: Block, indent: str, in_records: bool) -> list[str]:
    if isinstance(block, Paragraph | Heading):
        return [_defuse_line(_prose(block.text), in_records)]
    if isinstance(block, Bullet):
        return [f"{indent}{BULLET} {_prose(block.text)}".rstrip()]
    if isinstance(block, NumberedItem):
        return [f"{indent}{block.number}. {_prose(block.text)}"]
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


def render_blocks(blocks: list[Block], indent: str, *, in_records: bool = True) -> list[str]:
    """Lines for a run of blocks (no leading or trailing blank line)."""
    out: list[str] = []
    prev: Block | None = None
    for b in blocks:
        if prev is not None and not _tight(prev, b):
            out.append("")
        out.extend(_block_lines(b, indent, in_records))
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


def _note_lines(note: str) -> list[str]:
    """A section note, one paragraph per line; only ID/title look-alikes are defused."""
    paras = [_defuse_line(_one_line(p)) for p in note.split("\n\n") if p.strip()]
    return [line for i, p in enumerate(paras) for line in ([p] if i == 0 else ["", p])]


def render_text(report: Report) -> str:
    """The whole report in the text format (ends with one newline).

    Control characters are written as ``⟨U+XXXX⟩`` (see :mod:`drafter.sanitize`), so
    the file never carries a raw escape sequence and parses back to the same text.
    """
    report = escape_report(report)
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
            out += ["", *render_blocks(section.blocks, indent, in_records=False)]
    out += ["", SHARED_RECORDS]
    for rs in report.sections:
        out += ["", rs.title]
        if rs.note:
            out += ["", *_note_lines(rs.note)]
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
