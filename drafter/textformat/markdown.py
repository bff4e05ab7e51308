"""Render the report model as Markdown for reading in a browser or a code host.

Why a separate renderer rather than "text in a code fence": analysts read drafts in
review tools that render Markdown.  Record IDs become headings (so each record has an
anchor to link to), witnesses become blockquotes with their path in code, TAB tables
become Markdown tables, and a verified or failed witness shows its verdict.  This
output is for reading only; the text format is what is parsed back.
"""

from __future__ import annotations

import re

from drafter.model import (
    Block,
    Bullet,
    Heading,
    NumberedItem,
    Paragraph,
    Record,
    Report,
    Table,
    VerifyStatus,
    Witness,
    WitnessBlock,
)
from drafter.text import collapse
from drafter.textformat.escapes import escape_report
from drafter.textformat.parser import ANNOTATIONS, SHARED_RECORDS, TYPE_PATHS

_INLINE_SPECIAL = re.compile(r"([\\`*\[\]<>|&])")
_LINE_START_SPECIAL = re.compile(r"^(\s*)([#>+\-=]|\d+)([.)]?)(\s|$)")
_UNDERSCORE_EDGE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")

_MARKS = {
    VerifyStatus.verified: "✓ verified",
    VerifyStatus.not_found: "✗ not found",
    VerifyStatus.path_missing: "✗ path missing",
    VerifyStatus.ambiguous: "? ambiguous",
}


def escape(text: str) -> str:
    """Escape prose so Markdown shows it literally (intraword underscores stay readable)."""
    text = collapse(text)
    text = _INLINE_SPECIAL.sub(r"\\\1", text)
    text = _UNDERSCORE_EDGE.sub(r"\\_", text)
    return _LINE_START_SPECIAL.sub(_escape_start, text)


def _escape_start(m: re.Match[str]) -> str:
    """``# x`` -> ``\\# x``; ``1. x`` -> ``1\\. x`` (a backslash before a digit is literal)."""
    lead, marker, punct, space = m.groups()
    if marker.isdigit():
        return f"{lead}{marker}\\{punct}{space}" if punct else m.group(0)
    return f"{lead}\\{marker}{punct}{space}"


def code(text: str) -> str:
    """An inline code span that survives backticks inside the text."""
    text = collapse(text)
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def anchor_of(record_id: str) -> str:
    """The GitHub-style heading anchor of a record ID heading."""
    return record_id.lower()


def _witness(w: Witness) -> list[str]:
    mark = ""
    if w.verification is not None and w.verification.status in _MARKS:
        mark = f" — {_MARKS[w.verification.status]}"
    return [f"> {code(w.quote)}", ">", f"> — {code(w.anchor)}{mark}"]


def _table(t: Table) -> list[str]:
    width = max([len(t.header), *(len(r) for r in t.rows)])

    def row(cells: list[str]) -> str:
        padded = [escape(c) for c in cells] + [""] * (width - len(cells))
        return "| " + " | ".join(padded) + " |"

    return [row(t.header), "|" + "|".join(["---"] * width) + "|", *(row(r) for r in t.rows)]


def _block(b: Block) -> list[str]:
    if isinstance(b, Heading):
        return [f"### {escape(b.text)}"]
    if isinstance(b, Paragraph):
        return [escape(b.text)]
    if isinstance(b, Bullet):
        if b.name is not None:
            return [f"- **{escape(b.name)}:** {escape(b.value)}"]
        return [f"- {escape(b.value)}"]
    if isinstance(b, NumberedItem):
        return [f"{b.number}. {escape(b.text)}"]
    if isinstance(b, WitnessBlock):
        return _witness(b.witness)
    if isinstance(b, Table):
        return _table(b)
    raise TypeError(f"unknown block {type(b).__name__}")  # pragma: no cover


def _tight(a: Block, b: Block) -> bool:
    return (isinstance(a, Bullet) and isinstance(b, Bullet)) or (
        isinstance(a, NumberedItem) and isinstance(b, NumberedItem)
    )


def _blocks(blocks: list[Block]) -> list[str]:
    out: list[str] = []
    prev: Block | None = None
    for b in blocks:
        if prev is not None and not _tight(prev, b):
            out.append("")
        out.extend(_block(b))
        prev = b
    return out


def _record(r: Record) -> list[str]:
    out = [f"#### {r.id}", "", f"**Label:** {escape(r.label)}"]
    if r.part_of:
        out += ["", f"**Part of:** [{r.part_of}](#{anchor_of(r.part_of)})"]
    if r.flags:
        out += ["", *(f"- ⚠ {escape(f.text)}" for f in r.flags)]
    if r.blocks:
        out += ["", *_blocks(r.blocks)]
    return out


def render_markdown(report: Report) -> str:
    """The whole report as CommonMark/GFM text (control characters made visible)."""
    report = escape_report(report)
    out = [f"# {escape(report.system)} {report.type.value} report", ""]
    out.append(f"Type: {code(report.type_path or TYPE_PATHS[report.type])}")
    if report.source is not None:
        src = f"{report.source.id}: {code(report.source.repository)}"
        if report.source.revision:
            src += f" at {code(report.source.revision)}"
        out += ["", f"Source: {src}"]
    for section in report.account:
        out += ["", f"## {escape(section.title)}"]
        if section.blocks:
            out += ["", *_blocks(section.blocks)]
    if report.sections:
        out += ["", f"## {SHARED_RECORDS}"]
    for rs in report.sections:
        out += ["", f"### {escape(rs.title)}"]
        if rs.note:
            out += ["", f"_{escape(rs.note)}_"]
        for r in rs.records:
            out += ["", *_record(r)]
    if report.annotations is not None or report.type.value == "runtime":
        paras = re.split(r"\n\s*\n", report.annotations or "none")
        out += ["", f"## {ANNOTATIONS}", "", "\n\n".join(escape(p) for p in paras)]
    return "\n".join(out) + "\n"
