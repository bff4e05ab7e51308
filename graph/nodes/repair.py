"""Give one record back to the proposer with the verifier's misses.

The proposer sees each rejected quote with the nearest real passages of that file (or
the files where the quote does occur), the repair-by-evidence loop the design asks
for.  Its answer goes back through verify; nothing here marks anything verified.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from graph.configuration import RunContext
from graph.jsontypes import JsonDict
from graph.nodes.common import call_proposer, prepare_proposer, record_from_state, record_to_state
from graph.nodes.draft_record import build_record_context, clean_record
from graph.proposer import Miss, Plan, PlanItem
from graph.state import RecordTask


def repair(state: RecordTask, runtime: Runtime[RunContext]) -> JsonDict:
    ctx = runtime.context
    item = PlanItem.model_validate(state["item"])
    plan = Plan.model_validate(state["plan"])
    record = record_from_state(state["record"] or {})
    misses = [Miss.model_validate(m) for m in state.get("misses", [])]
    rctx = build_record_context(ctx, plan, item).model_copy(
        update={"repair_round": int(state.get("round") or 1)}
    )
    prepare_proposer(ctx, plan.system)
    result = call_proposer(ctx, "repair", lambda: ctx.proposer.repair_record(rctx, record, misses))
    update: JsonDict = {"usage": result.usage, "notes": result.notes_for(item.id)}
    if result.value is not None:
        fixed = clean_record(result.value, item)
        fixed = fixed.model_copy(
            update={"flags": list(dict.fromkeys([*record.flags, *fixed.flags]))}
        )
        update["drafts"] = {item.id: record_to_state(fixed)}
    else:
        why = result.budget_stop or result.rejected or "the proposer offered no repair"
        rnd = state.get("round", "?")
        update["notes"] = [*update["notes"], f"{item.id}: repair round {rnd} gave nothing ({why})"]
    return update
