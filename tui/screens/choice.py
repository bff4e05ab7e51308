"""Pick one of a few options (export formats, fields to edit), or tick several filters."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, SelectionList
from textual.widgets.option_list import Option

from drafter.sanitize import plain


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
            yield Label(plain(self.title_text), classes="dialog-title")
            yield OptionList(
                *(Option(plain(desc), id=key) for key, desc in self.options), id="choice-list"
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


class FilterScreen(ModalScreen[list[str] | None]):
    """Tick any number of filters (space), Enter applies them; they combine.

    States (pending, accepted…) match if any ticked one does; kinds likewise; the
    other filters (unverified, flagged) must all hold.  Nothing ticked shows all.
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("enter", "apply", "Apply", priority=True),
    ]

    def __init__(self, title: str, options: list[tuple[str, str]], current: set[str]):
        super().__init__()
        self.title_text = title
        self.options = options
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(plain(self.title_text), classes="dialog-title")
            yield SelectionList[str](
                *((desc, key, key in self.current) for key, desc in self.options),
                id="filter-list",
            )
            yield Label("Space ticks · Enter applies · Esc cancels", classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one(SelectionList).focus()

    def action_apply(self) -> None:
        self.dismiss(list(self.query_one(SelectionList).selected))

    def action_cancel(self) -> None:
        self.dismiss(None)
