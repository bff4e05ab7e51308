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

from difflib import get_close_matches

from graph.proposer import Plan
from retrieval.survey import Survey

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

    def __init__(self, survey: Survey | None):
        findings = survey.findings if survey is not None else []
        self.known = [f.id for f in findings]
        self.ids = set(self.known)
        self.by_path: dict[str, list[str]] = {}
        for f in findings:
            self.by_path.setdefault(f.path, []).append(f.id)
        self.refused = 0

    def __call__(self, plan: Plan) -> Plan:
        if not self.ids:  # no survey to check against (nothing surveyed)
            return plan
        unknown = [(i.id, f) for i in plan.items for f in i.facts if f not in self.ids]
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
                " IDs):\n" + "\n".join(rows) + more
            )
        items = [
            i.model_copy(update={"facts": [f for f in i.facts if f in self.ids]})
            for i in plan.items
        ]
        return plan.model_copy(update={"items": items})
