"""A footer that wraps: every key of the current screen, on as many lines as needed.

Why not Textual's ``Footer``: it is one line, and the review screen has fifteen keys;
at 80 columns most of them would fall off the edge.  The bar is built from the same
``BINDINGS`` as the help screen, so the two cannot disagree.
"""

from __future__ import annotations

from typing import Unpack

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import Static

from tui.widgets.options import WidgetOptions

_KEY_NAMES = {
    "question_mark": "?",
    "slash": "/",
    "space": "Space",
    "colon": ":",
    "ctrl+s": "Ctrl+S",
    "home": "Home",
    "left": "←",
    "right": "→",
    "escape": "Esc",
    "enter": "Enter",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
}


def key_name(key: str) -> str:
    return _KEY_NAMES.get(key, key)


def key_items(bindings: list[BindingType]) -> list[Text]:
    """One ``key description`` item per shown binding."""
    out = []
    taken: set[str] = set()
    for b in bindings:
        if not isinstance(b, Binding):
            continue
        names = [k.strip() for k in b.key.split(",")]
        # a key the screen already binds shadows the app's binding of it
        names = [k for k in names if k not in taken]
        taken.update(names)
        if not names or not b.show or not b.description:
            continue
        keys = "/".join(key_name(k) for k in names)
        item = Text()
        item.append(keys, style="bold cyan")
        item.append(" " + b.description)
        out.append(item)
    return out


def lay_out(items: list[Text], width: int) -> Text:
    """Items on lines of at most ``width`` cells, never splitting an item."""
    lines: list[Text] = [Text()]
    for item in items:
        line = lines[-1]
        need = item.cell_len + (2 if line.cell_len else 0)
        if line.cell_len and line.cell_len + need > width:
            lines.append(Text())
            line = lines[-1]
        if line.cell_len:
            line.append("  ")
        line.append_text(item)
    return Text("\n").join(lines)


class KeyBar(Static):
    """Shows ``bindings`` (screen keys first, then the app's), wrapped to the width."""

    def __init__(self, bindings: list[BindingType], **kw: Unpack[WidgetOptions]) -> None:
        super().__init__(**kw)
        self.items = key_items(bindings)

    def render(self) -> Text:
        return lay_out(self.items, max(20, self.content_size.width or 78))
