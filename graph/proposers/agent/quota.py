"""The plan's own budget for claim and object records, enforced on ``submit_plan``.

Why enforced and not only asked for: the plan prompt asked for claim and object
records, and drafts still held one claim where the reference reports hold four or
five (claims were 8 of the 19 records a draft missed).  So the plan phase's converter
counts them: a plan short of its minimums is refused once, saying how many of each it
has and needs; the corrected plan is taken as it comes (a second refusal would cost
the whole draft).  A plan longer than ``max_records`` is cut here, keeping the
minimum claims and objects before the rest in plan order, where a plain cut would
drop the claims a planner lists last.

The minimums (:func:`claim_slots`) are about a quarter claims and a fifth objects,
at least a third together, and never so many that a small cap leaves no room for the
components and routes.
"""

from __future__ import annotations

from collections.abc import Callable

from graph.proposer import Plan, PlanItem


def claim_slots(max_records: int) -> tuple[int, int]:
    """(claims, objects) a plan of ``max_records`` keeps at least: together at least a
    third of the records, claims about a quarter; at least two thirds of a small plan
    (and at least half of any) stay free for components and routes, and a plan of
    three records or fewer has no minimum."""
    if max_records < 4:
        return 0, 0  # components and the main route first
    claims = max(1, (max_records + 1) // 4)
    objects = max(max_records // 5, -(-max_records // 3) - claims)
    free = max(max_records // 2, 2 * max_records // 3 if max_records <= 9 else 0)
    while claims + objects > max_records - free and objects > 0:
        objects -= 1
    while claims + objects > max_records - free and claims > 0:
        claims -= 1
    return claims, objects


def _count(items: list[PlanItem], kind: str) -> int:
    return sum(1 for i in items if i.kind.strip().upper() == kind)


def keep_quota(items: list[PlanItem], cap: int, claims: int, objects: int) -> list[PlanItem]:
    """At most ``cap`` items in plan order: the first ``claims`` claim items and the
    first ``objects`` object items kept before any other."""
    want = {"CLM": claims, "OBJ": objects}
    keep: set[int] = set()
    for i, item in enumerate(items):
        k = item.kind.strip().upper()
        if want.get(k, 0) > 0 and len(keep) < cap:
            keep.add(i)
            want[k] -= 1
    for i in range(len(items)):
        if len(keep) >= cap:
            break
        keep.add(i)
    return [item for i, item in enumerate(items) if i in keep]


class PlanQuota:
    """The plan converter that holds a plan to its claim and object minimums."""

    def __init__(
        self, max_records: int, promises: bool, inner: Callable[[Plan], Plan] | None = None
    ):
        self.max_records = max_records
        #: whether the planner was shown documented promises (no claim minimum without)
        self.promises = promises
        self.inner = inner
        self.calls = 0

    def needs(self, n_items: int) -> tuple[int, int]:
        """The minimums for a plan of ``n_items`` (a shorter plan than the cap keeps
        its share, not the cap's)."""
        claims, objects = claim_slots(min(n_items, self.max_records))
        return (claims if self.promises else 0), objects

    def shortfall(self, plan: Plan) -> str | None:
        """Why ``plan`` is short of its minimums, or None."""
        claims, objects = self.needs(len(plan.items))
        have_c, have_o = _count(plan.items, "CLM"), _count(plan.items, "OBJ")
        if have_c >= claims and have_o >= objects:
            return None
        return (
            f"the plan has {have_c} claim record(s) (CLM) and {have_o} object record(s)"
            f" (OBJ); it needs at least {claims} and {objects}: replace routes or"
            " components of least weight by claim records testing the documented"
            " promises listed in your first message and object records for the core"
            " state, and call submit_plan again"
        )

    def __call__(self, plan: Plan) -> Plan:
        # only the first submission is refused (together with the inner check's
        # reasons): the loop gives one corrective turn, and a second refusal would
        # cost the whole plan
        self.calls += 1
        short = self.shortfall(plan) if self.calls == 1 else None
        try:
            if self.inner is not None:
                plan = self.inner(plan)
        except ValueError as exc:
            if short is not None:
                raise ValueError(f"{exc}\nAlso: {short}") from exc
            raise
        if short is not None:
            raise ValueError(short)
        if len(plan.items) > self.max_records:
            claims, objects = self.needs(self.max_records)
            items = keep_quota(plan.items, self.max_records, claims, objects)
            plan = plan.model_copy(update={"items": items})
        return plan
