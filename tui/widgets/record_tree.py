"""The left pane: records grouped by section, each with its mark and witness badges."""

from __future__ import annotations

from collections import Counter
from typing import Unpack

from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from drafter.model import Record
from drafter.sanitize import visible
from tui.session import ReviewSession
from tui.widgets.marks import BADGE, CONFLICT, MARK_STYLE, MARK_SYMBOL, status_of
from tui.widgets.options import WidgetOptions

#: Shown before a record marked for a bulk decision (space, v).
SELECTED = "●"
#: Shown after a record the machine flagged (stale witness, dropped quote, redraft).
FLAGGED = "⚑"


def record_label(session: ReviewSession, r: Record) -> Text:
    """``● ✔ slug ✓3✗1 ⚑``: bulk mark, review mark, the ID's slug (the section names
    the kind), witness badges, and a flag when the machine left a note."""
    st = session.state(r.id)
    t = Text()
    if session.marked:
        t.append(f"{SELECTED} " if r.id in session.marked else "  ", style="bold cyan")
    t.append(MARK_SYMBOL[st.mark], style=MARK_STYLE[st.mark])
    t.append(" ")
    t.append(visible(r.slug))
    counts = Counter(status_of(w) for w in r.witnesses)
    for status, (sym, style) in BADGE.items():
        if counts[status]:
            t.append(f" {sym}{counts[status]}", style=style)
    if r.flags:
        t.append(f" {FLAGGED}", style="bold yellow")
    if st.conflict:
        t.append(f" {CONFLICT}", style="bold red")
    return t


class RecordTree(Tree[str]):
    """Section nodes hold records; a record node's data is its ID."""

    def __init__(self, session: ReviewSession, **kw: Unpack[WidgetOptions]) -> None:
        super().__init__("Records", **kw)
        self.session = session
        self.show_root = False
        self.guide_depth = 2

    def rebuild(self, keep: str | None = None) -> None:
        """Redraw from the session's current view, keeping ``keep`` selected if shown."""
        self.clear()
        target_line = None
        for sec in self.session.sections():
            node = self.root.add(
                Text(f"{visible(sec.title)} ({len(sec.records)})", style="bold"), expand=True
            )
            for r in sec.records:
                leaf = node.add_leaf(record_label(self.session, r), data=r.id)
                if r.id == keep:
                    target_line = leaf
        if not self.root.children:
            self.root.add_leaf(Text("No records in this view (f: filter, /: search)", style="dim"))
        if target_line is not None:
            self.call_after_refresh(self._select_node, target_line)

    def _select_node(self, node: TreeNode[str]) -> None:
        self.move_cursor(node, animate=False)

    def select_record(self, record_id: str) -> None:
        for sec in self.root.children:
            for leaf in sec.children:
                if leaf.data == record_id:
                    self.move_cursor(leaf, animate=False)
                    return

    def refresh_labels(self) -> None:
        """Update marks and badges in place after a decision."""
        for sec in self.root.children:
            for leaf in sec.children:
                if leaf.data:
                    leaf.set_label(record_label(self.session, self.session.record(leaf.data)))

    @property
    def current_id(self) -> str | None:
        node = self.cursor_node
        return node.data if node is not None and node.data else None
