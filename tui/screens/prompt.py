"""A one-line text prompt: rejection reasons, annotations, search, export paths."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from drafter.sanitize import plain, unescape, visible


class PromptScreen(ModalScreen[str | None]):
    """Returns the entered text, or None on Escape.  Empty text is allowed only if asked."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(
        self,
        title: str,
        value: str = "",
        *,
        allow_empty: bool = False,
        placeholder: str = "",
        hint: str = "",
    ):
        super().__init__()
        self.title_text = title
        self.value = value
        self.allow_empty = allow_empty
        self.placeholder = placeholder
        #: What the answer does, on its own wrapped line: a placeholder longer than the
        #: input is cut off ("empty: just").
        self.hint = hint

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(plain(self.title_text), classes="dialog-title")
            # a value from the draft is shown with control characters visible and read
            # back on Enter, as the report text format does (a raw ESC would reach the screen)
            yield Input(
                value=visible(self.value, keep_newlines=False),
                placeholder=self.placeholder,
                id="prompt-input",
            )
            if self.hint:
                yield Label(plain(self.hint), id="prompt-hint", classes="dialog-hint")
            yield Label("Enter to confirm · Esc to cancel", classes="dialog-hint")

    @on(Input.Submitted, "#prompt-input")
    def _submitted(self, event: Input.Submitted) -> None:
        text = unescape(event.value)
        if not text.strip() and not self.allow_empty:
            self.notify("Type something, or press Esc to cancel.", severity="warning")
            return
        self.dismiss(text)

    def action_cancel(self) -> None:
        self.dismiss(None)
