"""Helpers shared by the nodes: metered proposer calls and record (de)serialisation.

Every node that asks the proposer something goes through :func:`call_proposer`, so
accounting, the ``--max-cost`` budget and rejected proposals are handled the same way
everywhere: a budget stop becomes a "missing" entry, a rejection a dropped record with
its reason, and neither aborts the run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from drafter.model import Record
from graph.costs import BudgetExceeded, metered
from graph.jsontypes import JsonDict
from graph.proposer import PlanContext, ProposalRejected

from ..configuration import RunContext

T = TypeVar("T")


@dataclass
class CallResult:
    value: Any = None
    usage: list[JsonDict] = field(default_factory=list)
    budget_stop: str | None = None
    rejected: str | None = None
    #: What the proposer noted about its calls (a request cut to fit the context
    #: window, a tool call read from text), for the draft's notes.
    notes: list[str] = field(default_factory=list)

    def notes_for(self, who: str) -> list[str]:
        """The notes, each saying which item or node it is about."""
        return [f"{who}: {n}" for n in dict.fromkeys(self.notes)]


def call_proposer(ctx: RunContext, node: str, fn: Callable[[], T]) -> CallResult:
    """Run one proposer call with a meter for ``node``; never raises for budget or
    rejection, which are outcomes the draft reports, not crashes."""
    from graph.interrupt import check_stop

    check_stop()  # after Ctrl-C a node that has not started does not start
    out = CallResult()
    with metered(node, ctx.budget) as meter:
        try:
            ctx.budget.check()
            out.value = fn()
        except BudgetExceeded as exc:
            out.budget_stop = str(exc)
        except ProposalRejected as exc:
            out.rejected = exc.reason
        out.usage = meter.entries()
        out.notes = list(meter.notes)
    return out


def record_to_state(record: Record) -> JsonDict:
    return record.model_dump(mode="json")


def record_from_state(raw: JsonDict) -> Record:
    return Record.model_validate(raw)


def plan_context(ctx: RunContext, system: str) -> PlanContext:
    """What the planner sees, rebuilt the same way in any process (resume included)."""
    res = ctx.resources
    snap = res.snapshot()
    return PlanContext(
        system=system,
        repository=snap.name,
        revision=snap.sha,
        files=snap.files(),
        survey=res.survey(),
        max_records=ctx.config.max_records,
    )


def prepare_proposer(ctx: RunContext, system: str) -> None:
    """Let a proposer with shared per-run context (Claude's cached block) build it
    (:meth:`graph.proposer.RuntimeProposer.prepare`; a no-op by default)."""
    ctx.proposer.prepare(plan_context(ctx, system))
