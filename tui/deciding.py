"""The review app's decision path, apart from its screens.

Why a class of its own: the screens call the app to decide (``self.app.decide(...)``),
and the app imports the screens to show them.  With the path here, a screen types its
``app`` as :class:`DecidingApp` (``app = getters.app(DecidingApp)``, Textual's typed
accessor) without importing :mod:`tui.app`, and the type checker sees every call.

Every decision writes one row to the durable store before the screen changes.  A
refused decision (an empty reason, a bad edit) is shown with ``notify(severity="error")``
and nothing is stored.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import App
from textual.notifications import SeverityLevel

from drafter.errors import BadInput
from drafter.review_store import Action
from drafter.sanitize import visible
from tui.session import ReviewSession


class DecidingApp(App[None]):
    """An app over one :class:`ReviewSession` whose screens decide through it."""

    def __init__(self, session: ReviewSession):
        super().__init__()
        self.session = session
        #: a draft to review next, chosen in the app (the redraft just written); the
        #: CLI opens it when this app exits
        self.next_draft: Path | None = None

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every toast as literal text, control characters visible.

        Messages quote record IDs, paths and error text from the draft or the
        repository; read as markup, ``[@click=app.quit]`` in one would be a live action.
        Screens' and widgets' ``notify`` come here too.  ``markup`` is ignored.
        """
        super().notify(
            visible(message),
            title=visible(title),
            severity=severity,
            timeout=timeout,
            markup=False,
        )

    def decide(
        self, record_id: str, action: Action, *, text: str | None = None, field: str | None = None
    ) -> bool:
        """Store one record-level decision now; False (and an error shown) if refused."""
        store = self.session.store
        r = self.session.record(record_id)
        try:
            if action == Action.accept:
                store.accept(r)
            elif action == Action.reject:
                store.reject(r, text)
            elif action == Action.annotate:
                store.annotate(r, text or "")
            elif action == Action.edit:
                store.edit(r, field or "", text or "")
            else:  # a witness action: decide_witness stores those
                raise BadInput(f"{action.value} is not a record action")
        except BadInput as exc:
            self.notify(str(exc), severity="error")
            return False
        self.session.refresh_states()
        return True

    def decide_witness(
        self, record_id: str, index: int, accepted: bool, reason: str | None = None
    ) -> bool:
        """Accept or reject witness ``index`` of a record now; False if refused."""
        try:
            self.session.store.decide_witness(
                self.session.record(record_id), index, accepted, reason
            )
        except BadInput as exc:
            self.notify(str(exc), severity="error")
            return False
        self.session.refresh_states()
        return True
