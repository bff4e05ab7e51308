"""Check the cells of a report's tables that cite the source or a record.

Why: an epistemic report's Coverage, inventory, ledger and comparison tables carry
evidence in cells, not in witnesses, so the witness verifier never sees them.  A cell
that names a file absent at the pinned revision, or a record ID that neither the
runtime input nor the draft defines, is an invented citation; a reviewer must see it.

Decisions worth knowing:
- Which cells cite source paths is read from the column header ("Source path",
  "... anchor"), never guessed from the text of every cell: prose such as "CSV/report
  persistence" would otherwise read as a path.
- A token in such a cell counts as a path when it has a slash or a file suffix; source
  IDs (``SRC-1``), "none" and "see ..." are not paths.
- Record IDs are checked in every cell: any ``RT-``/``EPI-`` ID must be known.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from drafter.model import CITED_ID_RE, Report, Table

#: A record ID anywhere in a cell: the same pattern the report's own citation check uses.
CELL_ID_RE = CITED_ID_RE
_SOURCE_ID = re.compile(r"^SRC-\d+$")
_PATHLIKE = re.compile(r"^[A-Za-z0-9_.\-/]+$")
_SUFFIX = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,7}$")


def is_path_column(header: str) -> bool:
    """Columns whose cells cite repository paths."""
    h = header.lower()
    return "source path" in h or "anchor" in h


def path_tokens(cell: str) -> list[str]:
    """The path-like tokens of a source-citing cell: comma-separated, before any ";"
    (what follows a semicolon is the evidence layer, e.g. "doctrine/design")."""
    out: list[str] = []
    for raw in cell.split(";", 1)[0].split(","):
        tok = raw.strip().strip("().")
        if not tok or _SOURCE_ID.match(tok) or tok.lower() in ("none", "see record", "see route"):
            continue
        if not _PATHLIKE.match(tok):
            continue
        if "/" in tok or _SUFFIX.search(tok):
            out.append(tok)
    return out


def row_paths(table: Table, row: list[str]) -> list[str]:
    """Paths cited by a row's source-citing columns, in column order, without repeats."""
    out: list[str] = []
    for j, cell in enumerate(row):
        if j < len(table.header) and is_path_column(table.header[j]):
            out.extend(p for p in path_tokens(cell) if p not in out)
    return out


@dataclass(frozen=True)
class CellProblem:
    """One cell citation that does not resolve."""

    table: str
    row: int  # 1-based row under the header
    column: str
    value: str
    kind: str  # "path" or "record"

    def __str__(self) -> str:
        what = "path absent at the revision" if self.kind == "path" else "unknown record ID"
        return f"{self.table} row {self.row}, {self.column}: {what}: {self.value}"


def check_table(
    title: str,
    table: Table,
    path_exists: Callable[[str], bool],
    known_ids: set[str],
) -> list[CellProblem]:
    """Problems in one table: absent paths in path columns, unknown IDs anywhere."""
    out: list[CellProblem] = []
    for i, row in enumerate(table.rows, start=1):
        for j, cell in enumerate(row):
            column = table.header[j] if j < len(table.header) else f"column {j + 1}"
            if is_path_column(column):
                for p in path_tokens(cell):
                    if not path_exists(p):
                        out.append(CellProblem(title, i, column, p, "path"))
            for rid in CELL_ID_RE.findall(cell):
                if rid not in known_ids:
                    out.append(CellProblem(title, i, column, rid, "record"))
    return out


def check_report_tables(
    report: Report,
    path_exists: Callable[[str], bool],
    extra_ids: Iterable[str] = (),
) -> list[CellProblem]:
    """Every table of ``report``; known IDs are its own records plus ``extra_ids``."""
    known = {r.id for r in report.records} | set(extra_ids)
    out: list[CellProblem] = []
    for section in report.account:
        for t in section.tables:
            out.extend(check_table(section.title, t, path_exists, known))
    return out


def cited_ids(report: Report) -> set[str]:
    """Record IDs cited anywhere in tables and prose of the account and records."""
    texts: list[str] = []
    for section in report.account:
        for b in section.blocks:
            if isinstance(b, Table):
                texts.extend(c for row in b.rows for c in row)
            elif hasattr(b, "text"):
                texts.append(b.text)
    for r in report.records:
        texts.append(r.body_text())
        if r.part_of:
            texts.append(r.part_of)
    return {m for t in texts for m in CELL_ID_RE.findall(t)}
