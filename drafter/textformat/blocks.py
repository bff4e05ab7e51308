"""Turn a run of classified lines into model blocks, in order, dropping nothing.

Shared by account sections and record bodies: both are sequences of paragraphs,
bullets, numbered items, witness lines and TAB tables.  A line that fits no rule
becomes (part of) a paragraph, so text is never lost; lines that are merely unusual
produce a warning with their line number, and lines that cannot be meant any other
way than as a broken witness raise :class:`drafter.errors.ReportFormatError`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NoReturn

from drafter.errors import ReportFormatError
from drafter.model import (
    Block,
    Bullet,
    Heading,
    NumberedItem,
    Paragraph,
    Table,
    WitnessBlock,
    statuses_in,
)
from drafter.textformat.lines import Line, looks_like_subheading, split_bullet_name


@dataclass
class Diagnostics:
    """Collects warnings (``where:line: message``) and raises errors with a location."""

    where: str
    warnings: list[str] = field(default_factory=list)

    def warn(self, line: int, message: str) -> None:
        self.warnings.append(f"{self.where}:{line}: {message}")

    def error(self, line: int | None, message: str) -> NoReturn:
        raise ReportFormatError(message, where=self.where, line=line)


@dataclass
class BlockRun:
    """Blocks with the 1-based line number each one starts on."""

    blocks: list[Block] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)

    def add(self, block: Block, line: int) -> None:
        self.blocks.append(block)
        self.starts.append(line)


def build_blocks(
    lines: Iterable[tuple[int, Line]], diag: Diagnostics, *, headings: bool
) -> BlockRun:
    """Group lines into blocks.

    Paragraph lines that follow each other without a blank line are one paragraph
    (joined with a space, as hard-wrapped prose means).  An indented plain line right
    after a bullet or numbered item continues that item.  With ``headings`` (account
    sections) a one-line paragraph shaped like a title becomes a :class:`Heading`.
    """
    run = BlockRun()
    para: list[str] = []
    para_start = 0
    table: list[list[str]] = []
    table_start = 0
    prev: Line | None = None

    def flush_para() -> None:
        nonlocal para
        if not para:
            return
        text = " ".join(para)
        if headings and len(para) == 1 and looks_like_subheading(text):
            run.add(Heading(text=text), para_start)
        else:
            run.add(Paragraph(text=text), para_start)
        para = []

    def flush_table() -> None:
        nonlocal table
        if not table:
            return
        header, rows = table[0], table[1:]
        if not rows:
            diag.warn(table_start, "table has a header row but no rows")
        for i, row in enumerate(rows, start=1):
            if len(row) != len(header):
                diag.warn(
                    table_start + i,
                    f"table row has {len(row)} cells, header has {len(header)}",
                )
        run.add(Table(header=header, rows=rows), table_start)
        table = []

    for n, ln in lines:
        if ln.kind != "text":
            flush_para()
        if ln.kind != "table":
            flush_table()
        if ln.kind == "blank":
            prev = ln
            continue
        if ln.kind == "text":
            if not _continue_item(run, prev, ln):
                if not para:
                    para_start = n
                para.append(ln.text)
        elif ln.kind == "table":
            if not table:
                table_start = n
            table.append([c.strip() for c in ln.text.split("\t")])
        else:
            _add_item(run, diag, n, ln)
        prev = ln
    flush_para()
    flush_table()
    return run


def _continue_item(run: BlockRun, prev: Line | None, ln: Line) -> bool:
    """Append an indented text line to the bullet or numbered item right before it;
    False when it starts or continues a paragraph instead."""
    last = run.blocks[-1] if run.blocks else None
    if prev is None or prev.kind not in ("bullet", "numbered"):
        return False
    if len(ln.indent) <= len(prev.indent):
        return False
    if isinstance(last, Bullet):
        last.value = f"{last.value} {ln.text}".strip()
        return True
    if isinstance(last, NumberedItem):
        last.text = f"{last.text} {ln.text}"
        return True
    return False


def _add_item(run: BlockRun, diag: Diagnostics, n: int, ln: Line) -> None:
    """A one-line block: witness, bullet or numbered item (a bad witness is an error)."""
    if ln.kind == "witness":
        assert ln.witness is not None
        if ln.problem:
            diag.warn(n, ln.problem)
        run.add(WitnessBlock(witness=ln.witness), n)
    elif ln.kind == "bad_witness":
        diag.error(n, ln.problem or "malformed witness line")
    elif ln.kind == "bullet":
        if not ln.text:
            diag.warn(n, "empty bullet")
        name, value = split_bullet_name(ln.text)
        run.add(Bullet(name=name, value=value), n)
    elif ln.kind == "numbered":
        assert ln.number is not None
        run.add(NumberedItem(number=ln.number, text=ln.text), n)


def warn_unknown_statuses(run: BlockRun, diag: Diagnostics, owner: str) -> None:
    """Flag status values outside the known set; they are kept as written."""
    for block, line in zip(run.blocks, run.starts, strict=True):
        if isinstance(block, Bullet):
            found = statuses_in(block.text, inline=False)
        elif isinstance(block, Paragraph):
            found = statuses_in(block.text, inline=True)
        else:
            continue
        for s in found:
            if not s.known:
                diag.warn(line, f"{owner}: unknown status value {s.value!r} for {s.name!r} (kept)")
