"""Write the runtime account: the narrative that ties records together.

The account is model output like any other: its inline witnesses are verified here
and dropped when they fail (there is no repair loop for prose; the note says what
went), and record IDs it mentions that are not in the draft are reported.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from drafter.model import CITED_ID_RE, AccountSection, Block, Verification, Witness, WitnessBlock
from graph.configuration import RunContext
from graph.jsontypes import JsonDict
from graph.nodes.common import call_proposer, prepare_proposer, record_from_state
from graph.proposer import AccountContext, Plan
from graph.state import DraftState
from graph.witness_policy import settle_inline


def account(state: DraftState, runtime: Runtime[RunContext]) -> JsonDict:
    ctx = runtime.context
    records = [record_from_state(r) for r in (state.get("drafts") or {}).values() if r is not None]
    plan = Plan.model_validate(state.get("plan") or {"system": state.get("system") or "system"})
    prepare_proposer(ctx, plan.system)
    actx = AccountContext(plan=plan, records=records, survey=ctx.resources.survey())
    result = call_proposer(ctx, "account", lambda: ctx.proposer.account(actx))
    update: JsonDict = {
        "usage": result.usage,
        "account": [],
        "notes": result.notes_for("runtime account"),
    }
    if result.value is None:
        reason = result.budget_stop or result.rejected or "the proposer wrote no account"
        update["missing"] = [f"runtime account: {reason}"]
        return update
    known = {r.id for r in records}

    def check(w: Witness) -> Verification:
        return ctx.resources.verify(w.model_copy(update={"verification": None}))

    notes: list[str] = []
    dropped = 0
    sections: list[JsonDict] = []
    for sec in result.value:
        blocks: list[Block] = []
        for b in sec.blocks:  # block by block, so the notes keep the account's order
            if isinstance(b, WitnessBlock):
                kept, lost, said = settle_inline([b], check, "account")
                blocks += kept
                dropped += lost
                notes += said
                continue
            for ref in CITED_ID_RE.findall(getattr(b, "text", "") or ""):
                if ref not in known:
                    notes.append(f"account mentions {ref}, which is not a record of this draft")
            blocks.append(b)
        sections.append(AccountSection(title=sec.title, blocks=blocks).model_dump(mode="json"))
    update["account"] = sections
    update["account_dropped"] = dropped
    update["notes"] = list(dict.fromkeys([*update["notes"], *notes]))
    return update
