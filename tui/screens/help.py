"""Every key of the review app, generated from the bindings so it cannot go stale."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from drafter.sanitize import plain
from tui.widgets.key_bar import key_name
from tui.widgets.marks import LEGEND


def bindings_table(groups: list[tuple[str, list[BindingType]]]) -> Group:
    """One titled table per group; titles sit above their table, so none is cut."""
    tables = []
    for title, bindings in groups:
        table = Table(
            box=None,
            show_header=False,
            padding=(0, 1),
            expand=True,
            title=Text(title, style="bold underline"),
            title_justify="left",
        )
        table.add_column("key", style="bold cyan", no_wrap=True, width=10)
        table.add_column("action")
        for b in bindings:
            if isinstance(b, Binding) and b.description:
                keys = ", ".join(key_name(k.strip()) for k in b.key.split(","))
                table.add_row(keys, b.tooltip or b.description)
        tables.append(table)
    return Group(*tables)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "close", "Close help")]

    def __init__(self, groups: list[tuple[str, list[BindingType]]], store: str = ""):
        super().__init__()
        self.groups = groups
        #: where the decisions are kept (``--store`` takes it, or the draft's path)
        self.store = store

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog", id="help"):
            yield Static(Text("Keys", style="bold"))
            yield Static(bindings_table(self.groups))
            yield Static(Text(LEGEND, style="dim"))
            if self.store:
                yield Static(plain(f"Decisions are saved as you make them in {self.store}"))
            yield Static(Text("Esc closes this help.", style="italic"))

    def action_close(self) -> None:
        self.dismiss(None)
