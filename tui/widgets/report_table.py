"""One table of an epistemic report (Coverage, inventory, ledger, comparison), row by row.

A DataTable so that long ledger rows scroll sideways and the cursor selects a whole
row; the cited paths of the highlighted row come from the columns that cite the
source (:func:`drafter.cellcheck.is_path_column`), the same rule the cell checker uses.
"""

from __future__ import annotations

from typing import Unpack

from rich.text import Text
from textual.widgets import DataTable

from drafter.cellcheck import CELL_ID_RE
from drafter.model import Table
from drafter.sanitize import plain
from tui.widgets.options import WidgetOptions

#: Widest a cell is drawn; the full text stays in the row and in the detail line.
CELL_WIDTH = 48


def row_ids(row: list[str]) -> list[str]:
    """Record IDs cited anywhere in a row, in order, without repeats."""
    out: list[str] = []
    for cell in row:
        out.extend(i for i in CELL_ID_RE.findall(cell) if i not in out)
    return out


def _clip(text: str) -> Text:
    """A cell as literal text: DataTable reads a plain ``str`` as markup."""
    return plain(
        text if len(text) <= CELL_WIDTH else text[: CELL_WIDTH - 1] + "…", keep_newlines=False
    )


class ReportTable(DataTable[Text]):
    """The rows of one report table; ``table`` is the model's Table."""

    def __init__(self, **kw: Unpack[WidgetOptions]) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kw)
        self.table: Table | None = None

    def show(self, table: Table) -> None:
        self.table = table
        self.clear(columns=True)
        self.add_columns(*(_clip(h) for h in table.header))
        for i, row in enumerate(table.rows):
            cells = [_clip(c) for c in row] + [Text()] * (len(table.header) - len(row))
            self.add_row(*cells[: len(table.header)], key=str(i))

    @property
    def current_row(self) -> list[str] | None:
        if self.table is None or not self.table.rows:
            return None
        i = self.cursor_row
        return self.table.rows[i] if 0 <= i < len(self.table.rows) else None
