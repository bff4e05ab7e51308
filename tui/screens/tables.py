"""The tables of an epistemic report, one at a time, row by row.

Keys: ``]``/``[`` switch table, Enter/``s`` opens the highlighted row's cited file at
the pinned revision (a choice when it cites several), ``g`` goes to a record of the
draft the row cites (the screen closes with that record's ID, and the review screen
selects it).  Decisions stay on records: tables are evidence to read, not to accept.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Static

from drafter.cellcheck import row_paths
from drafter.model import Table
from drafter.sanitize import plain
from tui.screens.choice import ChoiceScreen
from tui.screens.file_view import FileScreen
from tui.session import ReviewSession
from tui.widgets.key_bar import KeyBar
from tui.widgets.report_table import ReportTable, row_ids


def report_tables(session: ReviewSession) -> list[tuple[str, Table]]:
    """(section title, table) of every table in the draft's account, in order."""
    return [(a.title, t) for a in session.report.account for t in a.tables]


class TablesScreen(Screen[str | None]):
    BINDINGS = [
        Binding("escape,q", "close", "Back"),
        Binding("right_square_bracket", "step(1)", "Next table"),
        Binding("left_square_bracket", "step(-1)", "Prev table"),
        Binding("enter,s", "source", "Source", priority=True),
        Binding("g", "goto", "Go to record"),
    ]

    def __init__(self, session: ReviewSession, index: int = 0):
        super().__init__()
        self.session = session
        self.tables = report_tables(session)
        self.index = index

    def compose(self) -> ComposeResult:
        yield Static(id="table-title")
        yield ReportTable(id="table-rows")
        yield Static(id="table-row")
        yield KeyBar([*self.BINDINGS], id="keys")

    def on_mount(self) -> None:
        self.show_table()
        self.query_one(ReportTable).focus()

    def show_table(self) -> None:
        title, table = self.tables[self.index]
        n = len(self.tables)
        self.query_one("#table-title", Static).update(
            plain(f"{title} ({self.index + 1}/{n}) — {len(table.rows)} rows")
        )
        self.query_one(ReportTable).show(table)
        self.show_row()

    def show_row(self) -> None:
        row = self.query_one(ReportTable).current_row
        text = "" if row is None else " | ".join(row)
        self.query_one("#table-row", Static).update(plain(text))

    @on(DataTable.RowHighlighted, "#table-rows")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_row()

    def action_step(self, delta: int) -> None:
        self.index = (self.index + delta) % len(self.tables)
        self.show_table()

    def action_source(self) -> None:
        widget = self.query_one(ReportTable)
        row = widget.current_row
        paths = row_paths(widget.table, row) if row and widget.table else []
        if not paths:
            self.notify("This row cites no source path.", severity="warning")
            return
        if len(paths) == 1:
            self.app.push_screen(FileScreen(self.session, paths[0]))
            return

        def chosen(path: str | None) -> None:
            if path:
                self.app.push_screen(FileScreen(self.session, path))

        self.app.push_screen(ChoiceScreen("Open which file?", [(p, p) for p in paths]), chosen)

    def action_goto(self) -> None:
        row = self.query_one(ReportTable).current_row
        ids = [i for i in row_ids(row or []) if self.session.report.record(i) is not None]
        if not ids:
            self.notify("This row cites no record of this draft.", severity="warning")
            return
        self.dismiss(ids[0])

    def action_close(self) -> None:
        self.dismiss(None)
