"""Pick one of a few options: filters, export formats, fields to edit."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option


class ChoiceScreen(ModalScreen[str | None]):
    """Returns the chosen option's key, or None on Escape."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, options: list[tuple[str, str]], current: str | None = None):
        super().__init__()
        self.title_text = title
        self.options = options
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text, classes="dialog-title")
            yield OptionList(
                *(Option(desc, id=key) for key, desc in self.options), id="choice-list"
            )
            yield Label("Enter to choose · Esc to cancel", classes="dialog-hint")

    def on_mount(self) -> None:
        ol = self.query_one(OptionList)
        keys = [k for k, _ in self.options]
        if self.current in keys:
            ol.highlighted = keys.index(self.current)
        ol.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
