"""A witness's file at the pinned revision: syntax-highlighted, quoted lines marked.

The file is read through the snapshot (git objects of the pinned revision, never a
work tree) in a worker thread, so a large file or a slow disk never freezes the keys.
For a quote that was not found, the verifier's nearest real passage is marked instead
and the header says so: the reviewer must never mistake a near miss for the quote.
"""

from __future__ import annotations

from rich.text import Text
from textual import getters, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Static

from drafter.errors import DrafterError
from drafter.model import LineRange, Witness
from drafter.sanitize import plain, visible
from tui.deciding import DecidingApp
from tui.session import ReviewSession
from tui.widgets.code_view import CodeView, highlight_lines
from tui.widgets.key_bar import KeyBar
from tui.widgets.marks import badge, status_of
from tui.widgets.witness_list import witness_line

_FIND_HINT = "/ find · n/N next/previous · : go to line · ←/→ scroll sideways"

#: Lines of context kept above the first marked line when scrolling it into view.
CONTEXT_ABOVE = 3


def marked_span(w: Witness) -> tuple[str, LineRange | None, str]:
    """The file to show, the lines to mark in it, and what those lines are."""
    v = w.verification
    if v is not None and v.lines is not None:
        kind = f", {v.match_kind.value} match" if v.match_kind else ""
        return w.path, v.lines, f"{v.status.value}{kind}"
    if w.lines is not None:
        return w.path, w.lines, f"{status_of(w).value}; lines as cited"
    if v is not None and v.nearest:
        p = v.nearest[0]
        where = "nearest real passage" if p.path == w.path else f"quote cited from {w.path}"
        return p.path, p.lines, f"{v.status.value}; marked: {where}"
    return w.path, None, status_of(w).value


class SourceScreen(Screen[None]):
    """The file of witness ``index`` of record ``record_id``."""

    BINDINGS = [
        Binding("escape,q", "close", "Back"),
        Binding("w", "accept_witness", "Accept witness"),
        Binding("W", "reject_witness", "Reject witness"),
        Binding("right_square_bracket", "step(1)", "Next witness"),
        Binding("left_square_bracket", "step(-1)", "Prev witness"),
        Binding("slash", "find", "Find", tooltip="Find text in the file (n/N: next/previous)"),
        Binding("n", "find_next(1)", "Next match", show=False),
        Binding("N", "find_next(-1)", "Prev match", show=False),
        Binding("colon", "goto", "Go to line"),
        Binding(
            "o",
            "other_revision",
            "Other rev",
            tooltip="Show the file at the revision the draft was carried from, and back",
        ),
    ]

    #: The app, typed: witness decisions go through it (see tui.deciding).
    app = getters.app(DecidingApp)

    def __init__(self, session: ReviewSession, record_id: str, index: int):
        super().__init__()
        self.session = session
        self.record_id = record_id
        self.index = index
        self.at_old = False  # showing the revision the draft was carried from

    def compose(self) -> ComposeResult:
        yield Static(id="source-title")
        yield Static(id="source-witness")
        yield CodeView(id="source-code")
        yield Static(id="source-find")
        yield KeyBar([*self.BINDINGS, *type(self.app).BINDINGS], id="keys")

    def on_mount(self) -> None:
        self.query_one(CodeView).focus()
        self.show_witness()

    @property
    def witness(self) -> Witness:
        return self.session.record(self.record_id).witnesses[self.index]

    def show_witness(self) -> None:
        w = self.witness
        path, span, what = marked_span(w)
        sym, style = badge(w)
        snap = self.session.snapshot
        old = self.session.old_snapshot() if self.at_old else None
        if old is not None:
            snap = old
            path, span, what = w.path, None, "at the revision carried from"
        n = len(self.session.record(self.record_id).witnesses)
        title = Text(no_wrap=True, overflow="ellipsis")
        title.append(f"{sym} ", style=style)
        title.append(visible(path, keep_newlines=False), style="bold")
        title.append(f" @ {snap.sha[:12]}")
        if span:
            title.append(f"  lines {span}")
        title.append(f"  #{self.index + 1}/{n} ({what})", style="dim")
        self._title = title
        self.query_one("#source-title", Static).update(title)
        decided = self.session.state(self.record_id).witness_decision(w)
        self.query_one("#source-witness", Static).update(witness_line(w, decided))
        self.query_one("#source-find", Static).update(_FIND_HINT)
        self.load_file(path, span, self.at_old)

    @work(thread=True, exclusive=True, group="source")
    def load_file(self, path: str, span: LineRange | None, old: bool = False) -> None:
        snap = (self.session.old_snapshot() if old else None) or self.session.snapshot
        try:
            if old:
                from drafter.verify import Verifier

                v = Verifier(snap).verify(self.witness)
                span = v.lines if v.ok else None
            tf = snap.read_text(path)
        except DrafterError as exc:
            self.app.call_from_thread(self._failed, str(exc))
            return
        if tf.binary:
            self.app.call_from_thread(self._failed, f"{path} is a binary file")
            return
        lines = highlight_lines(path, tf.text)
        marked = set(range(span.start, span.end + 1)) if span else set()
        self.app.call_from_thread(self._loaded, lines, marked, span)

    def _failed(self, message: str) -> None:
        self.query_one(CodeView).show_message(Text(visible(message), style="red"))
        self.notify(message, severity="error")

    def _loaded(self, lines: list[Text], marked: set[int], span: LineRange | None) -> None:
        if self.at_old:  # the quote's place at the old revision is known only now
            where = f"  lines {span}" if span else "  quote not found here either"
            self.query_one("#source-title", Static).update(self._title + Text(where))
        view = self.query_one(CodeView)
        view.show_code(lines, marked)
        if span:
            y = max(0, span.start - 1 - CONTEXT_ABOVE)
            view.scroll_to(y=y, animate=False, force=True)
            # and again once the new lines are laid out: the first scroll is clamped to
            # the height the view had before, which may be a line short
            view.call_after_refresh(view.scroll_to, y=y, animate=False, force=True)

    # -- actions ----------------------------------------------------------------------

    def action_close(self) -> None:
        self.dismiss(None)

    def action_find(self) -> None:
        from tui.screens.prompt import PromptScreen

        def done(text: str | None) -> None:
            if text:
                self._found(self.query_one(CodeView).find(text), text)

        self.app.push_screen(PromptScreen("Find in this file", placeholder="text"), done)

    def action_find_next(self, step: int) -> None:
        view = self.query_one(CodeView)
        if view.needle:
            self._found(view.find(view.needle, step), view.needle)

    def _found(self, line: int | None, text: str) -> None:
        msg = f"{text!r}: line {line} (n/N: next/previous)" if line else f"{text!r}: not found"
        self.query_one("#source-find", Static).update(plain(msg))

    def action_goto(self) -> None:
        from tui.screens.prompt import PromptScreen

        def done(text: str | None) -> None:
            if text is None:
                return
            try:
                line = int(text.strip())
            except ValueError:
                self.notify(f"{text!r} is not a line number.", severity="warning")
                return
            got = self.query_one(CodeView).goto(line)
            self.query_one("#source-find", Static).update(f"line {got}")

        self.app.push_screen(PromptScreen("Go to line", placeholder="number"), done)

    def action_other_revision(self) -> None:
        if self.session.old_snapshot() is None:
            self.notify("This draft was not carried from another revision.", severity="warning")
            return
        self.at_old = not self.at_old
        self.show_witness()

    def action_step(self, delta: int) -> None:
        n = len(self.session.record(self.record_id).witnesses)
        self.index = (self.index + delta) % n
        self.show_witness()

    def action_accept_witness(self) -> None:
        self.app.decide_witness(self.record_id, self.index, True)
        self.show_witness()

    def action_reject_witness(self) -> None:
        def done(reason: str | None) -> None:
            if reason is not None:
                self.app.decide_witness(self.record_id, self.index, False, reason or None)
                self.show_witness()

        from tui.screens.prompt import PromptScreen

        self.app.push_screen(
            PromptScreen("Reject witness — reason (optional)", allow_empty=True), done
        )
