"""The symbols a reviewer reads at a glance: record marks and witness badges.

Kept in one place so the list, the detail pane and the help screen agree.
"""

from __future__ import annotations

from drafter.model import VerifyStatus, Witness
from drafter.review_store import Mark

MARK_SYMBOL = {
    Mark.pending: "·",
    Mark.accepted: "✔",
    Mark.rejected: "✘",
    Mark.changed: "Δ",
}
MARK_STYLE = {
    Mark.pending: "dim",
    Mark.accepted: "green",
    Mark.rejected: "red",
    Mark.changed: "yellow",
}
#: Shown beside a record analysts disagree about.
CONFLICT = "⚡"
BADGE = {
    VerifyStatus.verified: ("✓", "green"),
    VerifyStatus.not_found: ("✗", "red"),
    VerifyStatus.path_missing: ("∅", "red"),
    VerifyStatus.ambiguous: ("≈", "yellow"),
    VerifyStatus.unchecked: ("?", "dim"),
}


def status_of(w: Witness) -> VerifyStatus:
    return w.verification.status if w.verification is not None else VerifyStatus.unchecked


def badge(w: Witness) -> tuple[str, str]:
    """(symbol, style) of a witness's verification verdict."""
    return BADGE[status_of(w)]


LEGEND = (
    "Marks: · pending  ✔ accepted  ✘ rejected  Δ changed since review\n"
    "Badges: ✓ verified  ✗ not found  ∅ path missing  ≈ ambiguous  ? unchecked\n"
    "Witness decisions: + accepted  − rejected\n"
    "List: ● marked for a bulk decision  ⚑ flagged (stale witness, machine note)\n"
    "Witnesses carried to a new revision: [moved] new lines  [stale] quote gone"
)
