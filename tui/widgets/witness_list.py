"""The right pane's lower part: the selected record's witnesses, one line each.

A line shows the verifier's badge, the analyst's decision, the anchor and the start of
the quote; Enter opens the file at the pinned revision on that witness.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from drafter.model import Record, Witness
from drafter.review_store import RecordState
from tui.widgets.marks import badge

#: Characters of the quote shown in the list; the source view shows it whole.
QUOTE_CHARS = 46


def witness_line(w: Witness, decided: bool | None, width: int = QUOTE_CHARS) -> Text:
    sym, style = badge(w)
    t = Text(no_wrap=True, overflow="ellipsis")
    t.append(sym, style=style)
    t.append(
        {True: "+", False: "−", None: " "}[decided],
        style={True: "green", False: "red", None: ""}[decided],
    )
    lines = w.verification.lines if w.verification and w.verification.lines else w.lines
    anchor = f"{w.path}:{lines}" if lines else w.path
    t.append(f" {anchor}", style="bold")
    quote = " ".join(w.quote.split())
    if len(quote) > width:
        quote = quote[: width - 1] + "…"
    t.append("\n   " + quote, style="dim")
    return t


class WitnessList(OptionList):
    """Witnesses of one record; option IDs are ``w<index>``."""

    def show(self, r: Record | None, st: RecordState | None) -> None:
        keep = self.highlighted
        self.clear_options()
        if r is None or st is None:
            return
        ws = r.witnesses
        width = max(20, self.size.width - 6) if self.size.width else QUOTE_CHARS
        self.add_options(
            Option(witness_line(w, st.witness_decision(w), width), id=f"w{i}")
            for i, w in enumerate(ws)
        )
        if ws:
            self.highlighted = min(keep, len(ws) - 1) if keep is not None else 0

    @property
    def index(self) -> int | None:
        return self.highlighted
