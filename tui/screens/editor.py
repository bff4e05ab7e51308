"""A multi-line editor for a paragraph: the text wraps, Ctrl+S saves, Esc cancels.

Why not the one-line prompt: a paragraph of a record is often several hundred
characters; editing it in a single scrolling line hides most of it.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, TextArea

from drafter.sanitize import plain, unescape, visible


class EditorScreen(ModalScreen[str | None]):
    """Returns the edited text (newlines folded to spaces: prose is one line per
    block in the report format), or None on Escape."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "save", "Save", priority=True),
    ]

    def __init__(self, title: str, value: str):
        super().__init__()
        self.title_text = title
        self.value = value

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="editor-dialog"):
            yield Label(plain(self.title_text), classes="dialog-title")
            # control characters visible while editing, read back on save (as in prompt.py)
            yield TextArea(visible(self.value), soft_wrap=True, id="editor-text")
            yield Label("Ctrl+S saves · Esc cancels", classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_save(self) -> None:
        text = unescape(" ".join(self.query_one(TextArea).text.split()))
        if not text:
            self.notify("A paragraph cannot be empty; Esc cancels.", severity="warning")
            return
        self.dismiss(text)

    def action_cancel(self) -> None:
        self.dismiss(None)
