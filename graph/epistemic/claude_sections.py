"""What Claude may write outside the records: boundary, conclusion and table cells.

Why a narrow schema: the offline rules already build every table row and cite only
paths and records they can stand behind.  The model reads the source with the
investigation tools and then submits *edits*: new prose for the Source-and-claim
boundary and the Bounded conclusion (paragraphs plus inline witnesses, which the
workflow verifies like any other witness), and a value for a table cell it can
decide.  It cannot add or remove rows or change a row's first column (the row's
identity), and a cell it does not touch keeps the rules' text ("uninspected",
"not determinable statically").  Every edit is checked here; what is refused is
reported, and IDs it cites go through :mod:`graph.epistemic.idguard`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from drafter.model import AccountSection, Block, Paragraph, Report, Table, WitnessBlock
from drafter.text import collapse
from graph.epistemic.idguard import scrub
from graph.proposers.agent.prompts import data_block
from graph.proposers.agent.schema import (
    ItemEndLine,
    ItemStartLine,
    hint_lines,
    model_witness,
    tool,
)

SECTIONS_TOOL = "submit_sections"
TABLES = (
    "Coverage",
    "Epistemic-object inventory",
    "Authority-route ledger",
    "System-claim versus route comparison",
)
PROSE = ("Source-and-claim boundary", "Bounded conclusion")
MAX_CELL = 600


class ProseItem(BaseModel):
    type: Literal["paragraph", "witness"] = Field(description="A paragraph or an inline witness.")
    text: str = Field(
        max_length=4000, description="Paragraph text; for a witness the verbatim quote."
    )
    path: str | None = Field(default=None, description="For a witness: the file quoted; else null.")
    start_line: ItemStartLine = None
    end_line: ItemEndLine = None


class CellEdit(BaseModel):
    table: Literal[
        "Coverage",
        "Epistemic-object inventory",
        "Authority-route ledger",
        "System-claim versus route comparison",
    ]
    row: int = Field(ge=1, description="Row number as shown (1-based).")
    column: str = Field(description="Column header, exactly as shown.")
    value: str = Field(max_length=MAX_CELL, description="The new cell text.")


class SectionsDraft(BaseModel):
    boundary: list[ProseItem] = Field(
        default_factory=list, description="New Source-and-claim boundary; empty keeps the draft's."
    )
    conclusion: list[ProseItem] = Field(
        default_factory=list, description="New Bounded conclusion; empty keeps the draft's."
    )
    cells: list[CellEdit] = Field(
        default_factory=list, description="Cells you could decide from the source; others stay."
    )


SECTIONS_TOOL_DEF = tool(
    SECTIONS_TOOL, "Submit the boundary, the conclusion and the table cells.", SectionsDraft
)


def _section(report: Report, title: str) -> AccountSection | None:
    return next((s for s in report.account if s.title == title), None)


def _table(report: Report, title: str) -> Table | None:
    s = _section(report, title)
    return next((b for b in s.blocks if isinstance(b, Table)), None) if s else None


def sections_data(report: Report) -> str:
    """The draft's prose and tables as the model sees them (numbered rows)."""
    parts = []
    for title in PROSE:
        s = _section(report, title)
        body = "\n\n".join(getattr(b, "text", "") for b in (s.blocks if s else []))
        parts.append(data_block("draft_section", body or "(empty)", title=title))
    for title in TABLES:
        t = _table(report, title)
        if t is None:
            continue
        rows = [" | ".join(t.header)] + [f"{i}. " + " | ".join(r) for i, r in enumerate(t.rows, 1)]
        parts.append(data_block("draft_table", "\n".join(rows), title=title))
    return "\n\n".join(parts)


def _prose_blocks(
    items: list[ProseItem], known: set[str], notes: list[str], title: str
) -> list[Block]:
    blocks: list[Block] = []
    for it in items:
        if it.type == "witness":
            if it.path and it.text.strip():
                lines = hint_lines(it.start_line, it.end_line)
                witness = model_witness(it.text.strip(), it.path, lines)
                blocks.append(WitnessBlock(witness=witness))
            else:
                notes.append(f"{title}: a witness without path or quote was skipped")
            continue
        text = _scrubbed(it.text, known, notes, title)
        if text:
            blocks.append(Paragraph(text=text))
    return blocks


def _scrubbed(text: str, known: set[str], notes: list[str], where: str) -> str:
    """The model's text on one line without the record IDs it invented (noted)."""
    clean, bad = scrub(collapse(text), known)
    if bad:
        notes.append(f"{where}: invented record ID(s) removed: {', '.join(sorted(set(bad)))}")
    return clean


def apply_sections(report: Report, draft: SectionsDraft, known: set[str]) -> list[str]:
    """Apply the model's edits in place; return notes on what was refused or removed."""
    notes: list[str] = []
    for title, items in ((PROSE[0], draft.boundary), (PROSE[1], draft.conclusion)):
        s = _section(report, title)
        blocks = _prose_blocks(items, known, notes, title)
        if s is not None and any(isinstance(b, Paragraph) for b in blocks):
            s.blocks = blocks
            notes.append(f"{title}: written by the model")
    written = 0
    for e in draft.cells:
        t = _table(report, e.table)
        where = f"{e.table} row {e.row} column {e.column!r}"
        if t is None or e.row > len(t.rows) or e.column not in t.header:
            notes.append(f"cell edit refused: {where} does not exist")
            continue
        col = t.header.index(e.column)
        if col == 0:
            notes.append(f"cell edit refused: {where} is the row's identity")
            continue
        value = _scrubbed(e.value, known, notes, where)
        if value:
            row = t.rows[e.row - 1]
            row.extend([""] * (col + 1 - len(row)))
            row[col] = value
            written += 1
    if draft.cells:
        notes.append(f"table cells written by the model: {written} of {len(draft.cells)}")
    return notes
