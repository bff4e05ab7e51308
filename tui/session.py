"""Everything the review screens need that is not drawing: the draft, the pinned
snapshot, the decision store, filtering, search and navigation order.

Why apart from the widgets: the same logic serves the app, the batch CLI and the
tests, and a widget that only renders a :class:`ReviewSession` stays small.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from drafter.errors import BadInput
from drafter.model import KIND_SECTION, Record, Report, VerifyStatus, Witness
from drafter.review_identity import identity_store_path
from drafter.review_store import Mark, RecordState, ReviewStore, apply_edit
from drafter.snapshot import Snapshot
from tui.loading import ensure_verified, load_draft

#: Filters offered on the filter key, in menu order: (key, description).
FILTERS: tuple[tuple[str, str], ...] = (
    ("all", "All records"),
    ("pending", "Pending (including changed since review)"),
    ("accepted", "Accepted"),
    ("rejected", "Rejected"),
    ("changed", "Changed since review"),
    ("unverified", "Records with unverified witnesses"),
    *((f"kind:{k}", f"Kind {k} — {title}") for k, title in KIND_SECTION.items()),
)
FILTER_KEYS = tuple(k for k, _ in FILTERS)


@dataclass(frozen=True, slots=True)
class Section:
    """A section title with the records of it that pass the current view."""

    title: str
    records: list[Record]


def witness_ok(w: Witness) -> bool:
    return w.verification is not None and w.verification.status == VerifyStatus.verified


class ReviewSession:
    """One analyst's review of one draft at one pinned revision."""

    def __init__(
        self,
        draft_path: str | os.PathLike[str],
        repo: str | os.PathLike[str],
        *,
        rev: str | None = None,
        store_path: str | os.PathLike[str] | None = None,
        clock: Callable[[], float] = time.time,
        verify: bool = True,
    ):
        self.draft_path = Path(draft_path)
        self.report: Report = load_draft(self.draft_path)
        pinned = rev or (self.report.source.revision if self.report.source else None)
        if not pinned:
            raise BadInput(
                "the draft names no pinned revision; pass --rev", where=str(self.draft_path)
            )
        self.snapshot = Snapshot(repo, pinned)
        self.rev_mismatch = bool(
            rev
            and self.report.source
            and self.report.source.revision
            and self.snapshot.sha != self.report.source.revision
        )
        if verify:
            ensure_verified(self.report, self.snapshot)
        self.store = ReviewStore(
            store_path or identity_store_path(self.draft_path, self.report), clock=clock
        )
        self.filter = "all"
        self.query = ""
        self._states: dict[str, RecordState] = {}
        self.refresh_states()

    # -- state ------------------------------------------------------------------------

    def refresh_states(self) -> None:
        self._states = self.store.states(self.report.records)

    def state(self, record_id: str) -> RecordState:
        return self._states[record_id]

    def record(self, record_id: str) -> Record:
        r = self.report.record(record_id)
        if r is None:
            raise KeyError(record_id)
        return r

    def shown(self, record_id: str) -> Record:
        """The record as the analyst last edited it (witness decisions aside)."""
        r = self.record(record_id)
        for name, value in self.state(record_id).edits.items():
            r = apply_edit(r, name, value)
        return r

    # -- view ---------------------------------------------------------------------------

    def passes(self, r: Record) -> bool:
        st = self._states[r.id]
        f = self.filter
        ok = (
            f == "all"
            or (f == "pending" and st.mark in (Mark.pending, Mark.changed))
            or (f == "accepted" and st.mark == Mark.accepted)
            or (f == "rejected" and st.mark == Mark.rejected)
            or (f == "changed" and st.mark == Mark.changed)
            or (f == "unverified" and any(not witness_ok(w) for w in r.witnesses))
            or (f.startswith("kind:") and r.kind == f.removeprefix("kind:"))
        )
        if not ok:
            return False
        if self.query:
            q = self.query.lower()
            hay = " ".join(
                [r.id, r.label, r.part_of or "", r.body_text(), *(w.quote for w in r.witnesses)]
            )
            return q in hay.lower()
        return True

    def sections(self) -> list[Section]:
        out = []
        for s in self.report.sections:
            recs = [r for r in s.records if self.passes(r)]
            if recs:
                out.append(Section(s.title, recs))
        return out

    def visible_ids(self) -> list[str]:
        return [r.id for s in self.sections() for r in s.records]

    def next_pending(self, current: str | None, step: int = 1) -> str | None:
        """The next (or previous) pending record in view after ``current``, wrapping."""
        ids = self.visible_ids()
        if not ids:
            return None
        start = ids.index(current) if current in ids else (-1 if step > 0 else 0)
        n = len(ids)
        for k in range(1, n + 1):
            rid = ids[(start + step * k) % n]
            if self._states[rid].mark in (Mark.pending, Mark.changed) and rid != current:
                return rid
        return None

    def close(self) -> None:
        self.store.close()
        self.snapshot.close()
