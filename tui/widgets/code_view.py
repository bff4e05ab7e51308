"""A virtual, syntax-highlighted view of one file with some lines marked.

Why not a Static holding a rich ``Syntax``: that re-renders the whole file, which
for a 6,000-line file blocks the keys for about a second.  Here the file is lexed
once in a worker (:func:`highlight_lines`) and only the visible lines are drawn
(Textual's line API), so opening and scrolling stay instant for any file size.
"""

from __future__ import annotations

from typing import Unpack

from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from drafter.sanitize import visible
from tui.widgets.options import WidgetOptions

THEME = "monokai"
MARK_STYLE = Style(bgcolor="#49483e")
GUTTER_STYLE = Style(color="#75715e")
MARK_GUTTER_STYLE = Style(color="#f8f8f2", bold=True)
FIND_STYLE = Style(bgcolor="#75715e", color="#f8f8f2")
#: Columns moved per left/right key press.
H_STEP = 8


def highlight_lines(path: str, code: str) -> list[Text]:
    """The file's lines as highlighted Text, lexer chosen from the path and content.

    Control characters are made visible first (``⟨U+001B⟩``): a file is repository
    text, and a raw ESC in a Rich ``Text`` reaches the terminal.  CRLF line ends are
    read as plain line ends, so an ordinary Windows file does not show a token per line.
    """
    code = visible(code.replace("\r\n", "\n"))
    lexer = Syntax.guess_lexer(path, code)
    syntax = Syntax(code, lexer, theme=THEME)
    text = syntax.highlight(code)
    lines = list(text.split("\n", allow_blank=True))
    if lines and not lines[-1].plain and code.endswith("\n"):
        lines.pop()
    return lines


class CodeView(ScrollView, can_focus=True):
    """Numbered lines; ``marked`` (1-based) lines get a background and a ``❱``.

    Long lines are never clipped for good: left/right (h/l) scroll sideways, Home
    returns to column 0.  ``find`` and ``goto`` serve the source screen's ``/`` and ``:``.
    """

    BINDINGS = [
        Binding("left,h", "hscroll(-1)", "Left", show=False),
        Binding("right,l", "hscroll(1)", "Right", show=False),
        Binding("home", "hscroll(0)", "Line start", show=False),
    ]

    DEFAULT_CSS = """
    CodeView { background: #272822; }
    """

    def __init__(self, **kw: Unpack[WidgetOptions]) -> None:
        super().__init__(**kw)
        self.lines: list[Text] = []
        self.marked: set[int] = set()
        self.message: Text | None = Text("Loading…")
        self._gutter = 4
        self.needle = ""
        self.cursor_line: int | None = None  # 1-based line of the last find / goto

    def show_message(self, message: Text) -> None:
        self.lines, self.marked, self.message = [], set(), message
        self.virtual_size = Size(self.size.width, 1)
        self.refresh()

    def show_code(self, lines: list[Text], marked: set[int]) -> None:
        self.lines, self.marked, self.message = lines, marked, None
        self._gutter = len(str(max(1, len(lines)))) + 3
        width = max((t.cell_len for t in lines), default=0) + self._gutter
        self.virtual_size = Size(width, len(lines))
        self.scroll_to(0, 0, animate=False, force=True)
        self.refresh()

    def action_hscroll(self, direction: int) -> None:
        x = 0 if direction == 0 else max(0, self.scroll_x + direction * H_STEP)
        self.scroll_to(x=x, animate=False, force=True)

    def find(self, needle: str, step: int = 1) -> int | None:
        """The next (or previous) 1-based line containing ``needle``, wrapping; the view
        moves there and every matching line is highlighted."""
        self.needle = needle
        self.refresh()
        if not needle or not self.lines:
            return None
        n = len(self.lines)
        start = (self.cursor_line or (int(self.scroll_y) + 1)) - 1
        low = needle.lower()
        for k in range(1, n + 1):
            idx = (start + step * k) % n
            if low in self.lines[idx].plain.lower():
                self.goto(idx + 1)
                return idx + 1
        return None

    def goto(self, line: int) -> int:
        """Scroll line ``line`` (clamped) into view with a little context above."""
        line = max(1, min(line, max(1, len(self.lines))))
        self.cursor_line = line
        self.scroll_to(y=max(0, line - 4), animate=False, force=True)
        self.refresh()
        return line

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if self.message is not None:
            if y:
                return Strip.blank(width)
            return Strip(list(self.message.render(self.app.console))).extend_cell_length(width)
        scroll_x, scroll_y = self.scroll_offset
        idx = scroll_y + y
        if idx >= len(self.lines):
            return Strip.blank(width)
        n = idx + 1
        marked = n in self.marked
        gutter = Text(
            f"{'❱' if marked else ' '}{n:>{self._gutter - 3}}  ",
            style=MARK_GUTTER_STYLE if marked else GUTTER_STYLE,
        )
        body = self.lines[idx].copy()
        body.expand_tabs(4)
        if marked:
            body.stylize(MARK_STYLE)
        if self.needle:
            body.highlight_words([self.needle], FIND_STYLE, case_sensitive=False)
        if n == self.cursor_line:
            gutter.stylize(Style(reverse=True))
        body_segments = list(body.render(self.app.console))
        strip = Strip(body_segments).crop(scroll_x, scroll_x + width - self._gutter)
        fill = MARK_STYLE if marked else None
        out = Strip([*gutter.render(self.app.console), *strip])
        out = out.extend_cell_length(width, fill or Style())
        return out.apply_style(Style(bgcolor="#272822")) if not marked else out
