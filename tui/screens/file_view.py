"""A file at the pinned revision, opened from a table cell (no witness to mark).

Table cells cite whole files, so nothing is marked; the file is read from the git
objects of the pinned revision in a worker thread, like the witness source view.
"""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Static

from drafter.errors import DrafterError
from drafter.sanitize import visible
from tui.session import ReviewSession
from tui.widgets.code_view import CodeView, highlight_lines
from tui.widgets.key_bar import KeyBar


class FileScreen(Screen[None]):
    """``path`` at the session's pinned revision."""

    BINDINGS = [Binding("escape,q", "close", "Back")]

    def __init__(self, session: ReviewSession, path: str):
        super().__init__()
        self.session = session
        self.path = path

    def compose(self) -> ComposeResult:
        yield Static(id="source-title")
        yield CodeView(id="source-code")
        yield KeyBar([*self.BINDINGS], id="keys")

    def on_mount(self) -> None:
        title = Text(no_wrap=True, overflow="ellipsis")
        title.append(visible(self.path, keep_newlines=False), style="bold")
        title.append(f" @ {self.session.snapshot.sha[:12]}  (cited in a table)")
        self.query_one("#source-title", Static).update(title)
        self.query_one(CodeView).focus()
        self.load_file()

    @work(thread=True, exclusive=True, group="file")
    def load_file(self) -> None:
        try:
            tf = self.session.snapshot.read_text(self.path)
        except DrafterError as exc:
            self.app.call_from_thread(self._failed, str(exc))
            return
        if tf.binary:
            self.app.call_from_thread(self._failed, f"{self.path} is a binary file")
            return
        lines = highlight_lines(self.path, tf.text)  # control characters made visible there
        self.app.call_from_thread(self.query_one(CodeView).show_code, lines, set())

    def _failed(self, message: str) -> None:
        self.query_one(CodeView).show_message(Text(visible(message), style="red"))
        self.notify(message, severity="error")

    def action_close(self) -> None:
        self.dismiss(None)
