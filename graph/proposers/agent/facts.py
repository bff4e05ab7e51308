"""``submit_plan``'s ``facts`` checked against the survey: an unknown ID is answered
with the nearest real ones.

Why: the planner cites survey findings by ID, and a model that saw only a summary of
the survey guesses IDs from the ones it was shown.  A guessed ID silently pointed a
record at nothing.  The first submission with unknown IDs is refused with, for each,
the nearest real IDs (same file and category first, then by line distance); the
corrected submission is accepted, and any ID still unknown is removed rather than
costing the whole plan.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from difflib import get_close_matches

from graph.proposer import Plan
from retrieval.survey import Survey

#: A location fact: ``path:line`` or ``path:first-last``.
LOCATION = re.compile(r"^(?P<path>[^\s:][^:]*):(?P<a>\d+)(?:-(?P<b>\d+))?$")
#: How many lines a file has at the revision, or None when it is not a text file there.
LineCount = Callable[[str], "int | None"]


def real_location(fact: str, line_count: LineCount | None) -> bool:
    """Whether ``fact`` names lines of a file at the revision (``path:12`` or
    ``path:12-40``): a location the planner read or a promise's line, which the
    record's drafter can open; never a finding ID (those hold a category first)."""
    m = LOCATION.match(fact.strip())
    if m is None or line_count is None:
        return False
    n = line_count(m.group("path"))
    a = int(m.group("a"))
    b = int(m.group("b") or a)
    return n is not None and 1 <= a <= b <= n


#: Nearest real IDs offered per unknown one.
NEAREST_IDS = 3


def _parts(fid: str) -> tuple[str, str, int]:
    """(category, path, line) of an ID ``category:path:line[#n]``; ("", "", 0) if not."""
    head, _, tail = fid.partition(":")
    path, _, line = tail.rpartition(":")
    try:
        return head, path, int(line.split("#", 1)[0])
    except ValueError:
        return head, tail, 0


def nearest_ids(fid: str, known: list[str], by_path: dict[str, list[str]]) -> list[str]:
    """Real IDs most like ``fid``: the same file by category then line, else by spelling."""
    cat, path, line = _parts(fid)
    same_file = by_path.get(path, [])
    if same_file:
        return sorted(same_file, key=lambda k: (_parts(k)[0] != cat, abs(_parts(k)[2] - line), k))[
            :NEAREST_IDS
        ]
    return get_close_matches(fid, known, n=NEAREST_IDS, cutoff=0.4)


class FactCheck:
    """The plan phase's converter: refuses unknown ``facts`` once, then drops them."""

    def __init__(self, survey: Survey | None, line_count: LineCount | None = None):
        findings = survey.findings if survey is not None else []
        self.line_count = line_count
        self.known = [f.id for f in findings]
        self.ids = set(self.known)
        self.by_path: dict[str, list[str]] = {}
        for f in findings:
            self.by_path.setdefault(f.path, []).append(f.id)
        self.refused = 0

    def __call__(self, plan: Plan) -> Plan:
        if not self.ids:  # no survey to check against (nothing surveyed)
            return plan
        unknown = [(i.id, f) for i in plan.items for f in i.facts if not self._known(f)]
        if not unknown:
            return plan
        if self.refused == 0:
            self.refused += 1
            rows = []
            for item_id, fid in unknown[:12]:
                near = nearest_ids(fid, self.known, self.by_path)
                rows.append(
                    f"{item_id}: unknown fact {fid!r}; nearest real IDs: "
                    + (", ".join(near) or "none")
                )
            more = f"\n(and {len(unknown) - 12} more)" if len(unknown) > 12 else ""
            raise ValueError(
                "facts must be survey finding IDs exactly (`category:path:line`, as the map"
                " and the finding-ID index of your first message show them; for a file the"
                " index does not list, `survey(path=...)` lists its findings with their"
                " IDs) or locations at the revision written `path:first-last` (lines of a"
                " file that exists; e.g. a range a read_file answer showed you):\n"
                + "\n".join(rows)
                + more
            )
        items = [
            i.model_copy(update={"facts": [f for f in i.facts if self._known(f)]})
            for i in plan.items
        ]
        return plan.model_copy(update={"items": items})

    def _known(self, fact: str) -> bool:
        return fact in self.ids or real_location(fact, self.line_count)
