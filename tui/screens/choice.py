"""Pick one of a few options (export formats, fields to edit), or tick several filters."""

from __future__ import annotations

from typing import TypeVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Label, OptionList, SelectionList
from textual.widgets.option_list import Option

from drafter.sanitize import plain

ResultT = TypeVar("ResultT")


class OptionsDialog(ModalScreen[ResultT | None]):
    """A titled dialog over ``(key, description)`` options; Esc returns None.

    Why a base: the one-choice and the many-ticks dialogs differ only in the list
    widget, the hint and how a result is taken; the title, the layout and cancelling
    are one thing.
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    #: The line under the list that says which keys do what.
    HINT = ""

    def __init__(self, title: str, options: list[tuple[str, str]]):
        super().__init__()
        self.title_text = title
        self.options = options

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(plain(self.title_text), classes="dialog-title")
            yield self.option_list()
            yield Label(self.HINT, classes="dialog-hint")

    def option_list(self) -> Widget:
        """The widget that shows ``options``."""
        raise NotImplementedError

    def action_cancel(self) -> None:
        self.dismiss(None)


class ChoiceScreen(OptionsDialog[str]):
    """Returns the chosen option's key, or None on Escape."""

    HINT = "Enter to choose · Esc to cancel"

    def __init__(self, title: str, options: list[tuple[str, str]], current: str | None = None):
        super().__init__(title, options)
        self.current = current

    def option_list(self) -> Widget:
        return OptionList(
            *(Option(plain(desc), id=key) for key, desc in self.options), id="choice-list"
        )

    def on_mount(self) -> None:
        ol = self.query_one(OptionList)
        keys = [k for k, _ in self.options]
        if self.current in keys:
            ol.highlighted = keys.index(self.current)
        ol.focus()

    @on(OptionList.OptionSelected, "#choice-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)


class FilterScreen(OptionsDialog[list[str]]):
    """Tick any number of filters (space), Enter applies them; they combine.

    States (pending, accepted…) match if any ticked one does; kinds likewise; the
    other filters (unverified, flagged) must all hold.  Nothing ticked shows all.
    """

    BINDINGS = [Binding("enter", "apply", "Apply", priority=True)]  # Esc: OptionsDialog's
    HINT = "Space ticks · Enter applies · Esc cancels"

    def __init__(self, title: str, options: list[tuple[str, str]], current: set[str]):
        super().__init__(title, options)
        self.current = current

    def option_list(self) -> Widget:
        return SelectionList[str](
            *((desc, key, key in self.current) for key, desc in self.options),
            id="filter-list",
        )

    def on_mount(self) -> None:
        self.query_one(SelectionList).focus()

    def action_apply(self) -> None:
        self.dismiss(list(self.query_one(SelectionList).selected))
