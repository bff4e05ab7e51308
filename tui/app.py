"""The review app: one :func:`make_app` used by the CLI and by the tests.

The app owns the decision path (:class:`tui.deciding.DecidingApp`): every key that
decides something calls :meth:`~tui.deciding.DecidingApp.decide` or
:meth:`~tui.deciding.DecidingApp.decide_witness`, which write one row to the durable
store before the screen changes.  This module adds the screens, the clock and the
global keys.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from textual import events, work
from textual.binding import Binding, BindingType

from drafter.errors import BadInput
from drafter.review_store import IDLE_CAP
from tui.deciding import DecidingApp
from tui.screens.help import HelpScreen
from tui.screens.main import MainScreen
from tui.screens.source import SourceScreen
from tui.session import ReviewSession

#: Seconds between updates of the time-spent counter (each one also touches the store).
TICK_SECONDS = 1.0
#: Seconds between looks at the store for other analysts' decisions (and, while the
#: store is unreachable, attempts to send the decisions kept meanwhile).
POLL_SECONDS = 2.0


class ReviewApp(DecidingApp):
    CSS_PATH = "styles/app.tcss"
    TITLE = "drafter review"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [
        Binding("u", "undo", "Undo", tooltip="Undo the last decision"),
        Binding("question_mark", "help", "Help", tooltip="This list of keys"),
        Binding("q", "quit", "Quit", tooltip="Quit (decisions are already saved)"),
    ]

    def __init__(
        self, session: ReviewSession, *, live_clock: bool = True, poll: float | None = None
    ):
        super().__init__(session)
        self.live_clock = live_clock
        self.poll = poll
        self.main: MainScreen | None = None
        self._last_input = session.store.clock()

    def on_mount(self) -> None:
        self.session.store.start_session()
        self.main = MainScreen(self.session)
        self.push_screen(self.main)
        if self.session.mismatch:
            self.notify(
                f"Not the draft's repository or revision: {self.session.mismatch}. "
                "Every witness was checked again at what is shown.",
                severity="error",
                timeout=30,
            )
        if self.live_clock:
            self.set_interval(TICK_SECONDS, self._tick)
        if self.poll:
            self.set_interval(self.poll, self.poll_store)

    def poll_store(self) -> None:
        """Look for other analysts' decisions, or for the store coming back, off the
        screen's thread (a server that is away may take seconds to say so)."""
        self._poll_worker()

    @work(thread=True, exclusive=True, group="poll")
    def _poll_worker(self) -> None:
        try:
            changed = self.session.store.poll()
        except BadInput as exc:
            self.call_from_thread(self.notify, str(exc), severity="error")
            return
        self.call_from_thread(self._after_poll, changed)

    def _after_poll(self, changed: bool) -> None:
        store = self.session.store
        if self.main is None:
            return
        self.main.show_offline(store.offline, len(store.outbox) if store.outbox else 0)
        if changed and self.screen is self.main:
            self.main.refresh_view()  # keeps the record the analyst is on

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key | events.MouseDown | events.MouseScrollDown):
            self._last_input = self.session.store.clock()
        await super().on_event(event)

    def _tick(self) -> None:
        # time spent counts while the analyst is at the keys, not while the app idles
        if self.session.store.clock() - self._last_input < IDLE_CAP:
            self.session.store.touch()
        if self.main is not None and self.screen is self.main:
            self.main.refresh_progress()

    def on_unmount(self) -> None:
        self.session.close()

    # -- global actions ---------------------------------------------------------------

    def action_undo(self) -> None:
        row = self.session.store.undo()
        if row is None:
            self.notify("Nothing to undo.", severity="warning")
            return
        self.notify(f"Undid {row.action.value.replace('_', ' ')} of {row.record_id}.")
        self.session.refresh_states()
        if self.main is not None:
            if self.screen is self.main:
                self.main.current_id = row.record_id
            self.main.refresh_view(rebuild=True)
        if isinstance(self.screen, SourceScreen):
            self.screen.show_witness()

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        moving: list[BindingType] = [
            Binding("up,down", "", "Move through records or witnesses"),
            Binding("tab", "", "Switch between the record list and the witness list"),
            Binding("enter", "", "On a witness: open its source"),
            Binding("left,right", "", "In the source view: scroll sideways (Home: line start)"),
        ]
        groups: list[tuple[str, list[BindingType]]] = [
            ("Review", list(MainScreen.BINDINGS)),
            ("Moving", moving),
            ("Source view", list(SourceScreen.BINDINGS)),
            ("Everywhere", list(self.BINDINGS)),
        ]
        self.push_screen(HelpScreen(groups, self.session.store.where))


def make_app(
    draft: str | os.PathLike[str],
    repo: str | os.PathLike[str],
    *,
    rev: str | None = None,
    store: str | os.PathLike[str] | None = None,
    allow_mismatch: bool = False,
    clock: Callable[[], float] = time.time,
    live_clock: bool = True,
    analyst: str | None = None,
    lead: bool = False,
    resolve: str | None = None,
    poll: float | None = POLL_SECONDS,
) -> ReviewApp:
    """Build the review app over DRAFT at the pinned revision of REPO.

    Raises BadInput (before any screen is drawn) for a missing draft, an unknown
    revision, a repository or revision that is not the draft's (unless
    ``allow_mismatch``) or an unusable store, so the CLI can print one line and exit 2.
    """
    session = ReviewSession(
        draft, repo, rev=rev, store_path=store, clock=clock, allow_mismatch=allow_mismatch,
        analyst=analyst, lead=lead, resolve=resolve, keep_offline=True,
    )  # fmt: skip
    return ReviewApp(session, live_clock=live_clock, poll=poll)
