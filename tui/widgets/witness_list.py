"""The right pane's lower part: the selected record's witnesses, one line each.

A line shows the verifier's badge, the analyst's decision, the anchor (and whether it
moved or went stale at a new revision) and the whole quote, wrapped;
Enter opens the file at the pinned revision on that witness.
"""

from __future__ import annotations

import textwrap

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from drafter.model import Anchor, Record, Witness
from drafter.review_store import RecordState
from drafter.sanitize import visible
from tui.widgets.marks import badge


def anchor_tag(w: Witness) -> tuple[str, str] | None:
    """("moved"|"stale", style) for a witness carried to a new revision, else None."""
    anchor = w.verification.anchor if w.verification else None
    if anchor == Anchor.moved:
        return "moved", "yellow"
    if anchor == Anchor.stale:
        return "stale", "bold red"
    return None


def witness_line(w: Witness, decided: bool | None, width: int = 0) -> Text:
    """Badge, decision, anchor and the whole quote.

    With ``width`` the quote is wrapped here with a hanging indent, so continuation
    lines stay under the quote rather than under the badge; without it the widget
    wraps it."""
    sym, style = badge(w)
    t = Text()
    t.append(sym, style=style)
    t.append(
        {True: "+", False: "−", None: " "}[decided],
        style={True: "green", False: "red", None: ""}[decided],
    )
    lines = w.verification.lines if w.verification and w.verification.lines else w.lines
    anchor = visible(f"{w.path}:{lines}" if lines else w.path, keep_newlines=False)
    t.append(f" {anchor}", style="bold")
    tag = anchor_tag(w)
    if tag is not None:
        t.append(f" [{tag[0]}]", style=tag[1])
    quote = visible(" ".join(w.quote.split()))
    if width > 10:
        quote = textwrap.fill(quote, width, initial_indent="   ", subsequent_indent="   ")
    else:
        quote = "   " + quote
    t.append("\n" + quote, style="dim")
    return t


class WitnessList(OptionList):
    """Witnesses of one record; option IDs are ``w<index>``.

    Quotes are wrapped to the list's width, which is known only once it is laid out
    (and changes with the terminal), so the lines are made again on every resize;
    otherwise the first record shown wrapped its quotes without the hanging indent.
    """

    _shown: tuple[Record | None, RecordState | None] = (None, None)

    def on_resize(self) -> None:
        if self._shown[0] is not None:
            self.show(*self._shown)

    def show(self, r: Record | None, st: RecordState | None) -> None:
        self._shown = (r, st)
        keep = self.highlighted
        self.clear_options()
        if r is None or st is None:
            return
        ws = r.witnesses
        width = self.size.width - 2  # the option list's own padding and scrollbar
        self.add_options(
            Option(witness_line(w, st.witness_decision(w), width), id=f"w{i}")
            for i, w in enumerate(ws)
        )
        if ws:
            self.highlighted = min(keep, len(ws) - 1) if keep is not None else 0

    @property
    def index(self) -> int | None:
        return self.highlighted
