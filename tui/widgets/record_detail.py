"""The right pane's upper part: everything about the selected record but its witnesses.

Everything is shown as the literal text of the draft.  Paragraphs were once rendered
as Markdown, so repository text became formatting: ``AgenticSystem.__init__()`` showed
as a bold "init", and a quoted ``*`` or backtick vanished.  A reviewer must see what the
report says, character for character (control characters made visible).  The lead
fields, the nine route fields and the statuses are shown as labelled lines, with a
missing route field said to be missing rather than silently left out.
"""

from __future__ import annotations

import difflib
import re

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from drafter.model import LEAD_LABELS, NINE_ROUTE_FIELDS, ROUTE_FIELDS, Bullet, Record
from drafter.review_store import Mark, RecordState
from drafter.sanitize import visible as v
from tui.widgets.marks import MARK_STYLE, MARK_SYMBOL

_MARK_WORD = {
    Mark.pending: "pending",
    Mark.accepted: "accepted",
    Mark.rejected: "rejected",
    Mark.changed: "changed since review",
}


def header_text(r: Record, st: RecordState) -> Text:
    t = Text()
    t.append(v(r.id), style="bold")
    t.append("  ")
    t.append(f"{MARK_SYMBOL[st.mark]} {_MARK_WORD[st.mark]}", style=MARK_STYLE[st.mark])
    if st.previous is not None:
        t.append(f" (was {st.previous.value})", style="yellow")
    if st.conflict:
        t.append(f"\n⚡ CONFLICT: {v(st.who_said())}", style="bold red")
    elif len(st.votes) > 1 or any(x.lead for x in st.votes.values()):
        t.append(f"\nDecided by: {v(st.who_said())}", style="dim")
    t.append(f"\nLabel: {v(r.label)}")
    if r.part_of:
        t.append(f"\nPart of: {v(r.part_of)}")
    if st.reason:
        t.append(f"\nReason: {v(st.reason)}", style="italic")
    for note in st.notes:
        t.append(f"\nNote: {v(note)}", style="cyan")
    if st.edits:
        t.append("\nEdited: " + v(", ".join(st.edits)), style="magenta")
    for flag in r.flags:
        t.append(f"\n⚑ {v(flag.text)}", style="yellow")
    return t


def fields_text(r: Record) -> Text:
    """Lead fields, route fields and statuses as labelled lines."""
    t = Text()
    for name, value in r.lead.items():
        t.append(f"{v(name)}: ", style="bold")
        t.append(v(value) + "\n")
    if r.kind == "RTE":
        present = r.route_fields_present
        fields = {k.lower(): v for k, v in r.fields.items()}
        stats = {s.name.lower(): s.value for s in r.statuses}
        for f in NINE_ROUTE_FIELDS:
            t.append(f"• {f}: ", style="bold")
            if not present[f]:
                t.append("missing\n", style="red")
            else:
                t.append(v(fields.get(f.lower()) or stats.get(f.lower(), "")) + "\n")
    shown = {f.lower() for f in NINE_ROUTE_FIELDS} if r.kind == "RTE" else set()
    for s in r.statuses:
        if s.name.lower() in shown:
            continue
        t.append(f"• {v(s.name)}: ", style="bold")
        t.append(
            v(s.value) + ("" if s.known else " (unknown value)") + "\n",
            style="" if s.known else "yellow",
        )
    for b in r.blocks:
        if (
            isinstance(b, Bullet)
            and b.name not in ROUTE_FIELDS
            and "conclusion status" not in b.text
        ):
            t.append(f"• {v(b.text)}\n")
    return t


def body_paragraphs(r: Record) -> list[str]:
    """The record's paragraphs without what the fields above already show.

    The lead ("Source-native identity: … Storage substrate: …", "Endpoints: …") and
    inline statuses are shown as labelled lines; repeating them in the body doubled
    the text and left a third of the detail pane at 80×24.
    """
    labels = LEAD_LABELS.get(r.kind, ())
    out: list[str] = []
    for text in r.paragraphs:
        rest = text
        for label, value in r.lead.items():
            if label in labels and value:
                rest = rest.replace(f"{label}: {value}", "", 1)
        rest = re.sub(r"^[\s.;,]+", "", rest).strip()
        if rest and rest not in ".;,":
            out.append(v(rest))
    return out


def version_diff(old: Record, new: Record) -> str:
    """A unified diff of two versions of a record, as report text."""
    from drafter.textformat.render import render_record

    a = render_record(old).splitlines()
    b = render_record(new).splitlines()
    return "\n".join(difflib.unified_diff(a, b, "reviewed", "now", lineterm="", n=1))


class RecordDetail(VerticalScroll, can_focus=False):
    """Header, fields and paragraphs (literal text) of one record.

    Not focusable, so Tab goes straight from the record list to the witness list;
    it scrolls with J/K from anywhere on the screen (and with the mouse wheel).
    """

    def compose(self) -> ComposeResult:
        yield Static(id="detail-header")
        yield Static(id="detail-fields")
        yield Static(id="detail-body")
        yield Static(id="detail-diff")

    def show(
        self, r: Record | None, st: RecordState | None, previous: Record | None = None
    ) -> None:
        header = self.query_one("#detail-header", Static)
        fields = self.query_one("#detail-fields", Static)
        body = self.query_one("#detail-body", Static)
        diff = self.query_one("#detail-diff", Static)
        if r is None or st is None:
            header.update("No record selected.")
            fields.update("")
            body.update("")
            diff.update("")
            return
        header.update(header_text(r, st))
        fields.update(fields_text(r))
        body.update(Text("\n\n".join(body_paragraphs(r))))
        diff.update(_diff_text(previous, r) if previous is not None and st.previous else "")
        self.scroll_home(animate=False)


def _diff_text(old: Record, new: Record) -> Text:
    t = Text("Changed since review:\n", style="bold yellow")
    for line in version_diff(old, new).splitlines():
        style = "green" if line.startswith("+") else "red" if line.startswith("-") else "dim"
        t.append(v(line) + "\n", style=style)
    return t
