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

from drafter.model import KIND_SECTION, Record, Report, VerifyStatus, Witness
from drafter.review_identity import resolve_store
from drafter.review_store import Mark, RecordState, ReviewStore, apply_edit
from drafter.snapshot import Snapshot
from tui.loading import load_draft
from tui.pinning import open_pinned, verify_at

#: Filters offered on the filter key, in menu order: (key, description).
FILTERS: tuple[tuple[str, str], ...] = (
    ("all", "All records"),
    ("pending", "Pending (including changed since review)"),
    ("accepted", "Accepted"),
    ("rejected", "Rejected"),
    ("changed", "Changed since review"),
    ("unverified", "Records with unverified witnesses"),
    ("flagged", "Flagged records (stale witnesses, machine notes)"),
    *((f"kind:{k}", f"Kind {k} — {title}") for k, title in KIND_SECTION.items()),
)
FILTER_KEYS = tuple(k for k, _ in FILTERS)
#: Filters on the review state; any one of them may match.
STATE_FILTERS = ("pending", "accepted", "rejected", "changed")


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
        allow_mismatch: bool = False,
        analyst: str | None = None,
        lead: bool = False,
        keep_offline: bool = False,
        resolve: str | None = None,
    ):
        self.draft_path = Path(draft_path)
        self.report: Report = load_draft(self.draft_path)
        #: why the repository or revision shown is not the draft's (None when it is)
        self.mismatch: str | None
        self.snapshot, self.mismatch = open_pinned(
            repo, self.report, rev, where=str(self.draft_path), allow_mismatch=allow_mismatch
        )
        if verify:
            verify_at(self.report, self.snapshot, mismatch=self.mismatch is not None)
        self.store = ReviewStore(
            resolve_store(store_path, self.draft_path, self.report),
            clock=clock,
            analyst=analyst,
            lead=lead,
            keep_offline=keep_offline,
        )
        #: how an export settles conflicts between analysts (None: it refuses them)
        self.resolve = resolve
        self.filters: set[str] = set()
        self.query = ""
        #: records marked for a bulk decision (space, v)
        self.marked: set[str] = set()
        self._old: Snapshot | None = None
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

    @property
    def filter(self) -> str:
        """The filters in force as one label ("all" when none)."""
        return ",".join(k for k in FILTER_KEYS if k in self.filters) or "all"

    @filter.setter
    def filter(self, key: str) -> None:
        self.filters = set() if key == "all" else {key}

    def _state_ok(self, st: RecordState) -> bool:
        wanted = {f for f in self.filters if f in STATE_FILTERS}
        if not wanted:
            return True
        mark = st.mark
        return mark.value in wanted or ("pending" in wanted and mark == Mark.changed)

    def passes(self, r: Record) -> bool:
        """Filters combine: any chosen state, any chosen kind, and every chosen property."""
        if not self._state_ok(self._states[r.id]):
            return False
        kinds = {f.removeprefix("kind:") for f in self.filters if f.startswith("kind:")}
        if kinds and r.kind not in kinds:
            return False
        if "unverified" in self.filters and all(witness_ok(w) for w in r.witnesses):
            return False
        if "flagged" in self.filters and not r.flags:
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

    def previous(self, record_id: str) -> Record | None:
        """The version of a redrafted record the analyst reviewed (kept in the draft)."""
        meta = self.report.meta
        raw = (meta.extra.get("previous_versions") or {}).get(record_id) if meta else None
        try:
            return Record.model_validate(raw) if raw else None
        except ValueError:
            return None

    def old_snapshot(self) -> Snapshot | None:
        """The revision this draft was carried from by ``drafter reverify``, if any."""
        meta = self.report.meta
        old = meta.extra.get("reverified_from") if meta else None
        if not isinstance(old, str):
            return None
        if self._old is None:
            try:
                self._old = Snapshot(self.snapshot.repo, old)
            except Exception:  # noqa: BLE001 - an unreachable old revision: no second view
                return None
        return self._old

    def remember(self, record_id: str | None) -> None:
        """Keep the current record so that reopening the review returns to it."""
        if record_id:
            self.store.set_setting("last_record", record_id)

    def last_record(self) -> str | None:
        rid = self.store.get_setting("last_record")
        return rid if rid and self.report.record(rid) is not None else None

    def close(self) -> None:
        self.store.close()
        self.snapshot.close()
        if self._old is not None:
            self._old.close()
