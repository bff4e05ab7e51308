"""Check every witness of every drafted record against the pinned revision.

This node is the guarantee: only the verifier marks a witness verified.  Misses are
either sent back for repair (with the verifier's nearest real passages) while repair
rounds remain, or — once the rounds or the budget are spent — dropped from the record,
which is flagged so the analyst sees what was removed.  A failing witness is never
kept.
"""

from __future__ import annotations

from langgraph.runtime import Runtime
from langgraph.types import Send

from drafter.model import Flag, FlagKind, Record, VerifyStatus, WitnessBlock
from drafter.verify import settle_lines
from graph.configuration import RunContext
from graph.jsontypes import JsonDict
from graph.nodes.common import record_from_state, record_to_state
from graph.proposer import Miss
from graph.state import DraftState
from graph.universal import universal_flag
from graph.witness_policy import drop_unverified


def _check(record: Record, ctx: RunContext) -> tuple[Record, list[Miss]]:
    blocks = []
    misses: list[Miss] = []
    flags = list(record.flags)
    for b in record.blocks:
        if isinstance(b, WitnessBlock):
            v = ctx.resources.verify(b.witness.model_copy(update={"verification": None}))
            w, corrected = settle_lines(b.witness, v)
            if corrected is not None:
                flags.append(Flag(kind=FlagKind.lines_corrected, text=corrected))
            b = WitnessBlock(witness=w)
            if v.status != VerifyStatus.verified:
                misses.append(Miss(witness=w, status=str(v.status), nearest=list(v.nearest)))
        blocks.append(b)
    return record.model_copy(update={"blocks": blocks, "flags": flags}), misses


def _drop_failing(record: Record, rounds: int) -> Record:
    return drop_unverified(record, f"after {rounds} repair round(s)")


def verify(state: DraftState, runtime: Runtime[RunContext]) -> JsonDict:
    ctx = runtime.context
    rnd = state.get("round", 0)
    budget_spent = ctx.budget.exhausted  # --max-cost or --max-tokens-total
    can_repair = rnd < ctx.config.repair_rounds and not budget_spent
    drafts: dict[str, JsonDict | None] = {}
    pending: dict[str, list[JsonDict]] = {}
    for item_id, raw in (state.get("drafts") or {}).items():
        if raw is None:
            continue
        rec, misses = _check(record_from_state(raw), ctx)
        if misses and can_repair:
            pending[item_id] = [m.model_dump(mode="json") for m in misses]
        elif misses:
            rec = _drop_failing(rec, rnd)
        elif not rec.witnesses and not rec.flags_of(FlagKind.no_verified_witness):
            flag = Flag(kind=FlagKind.no_witness, text="no witness given")
            rec = rec.model_copy(update={"flags": [*rec.flags, flag]})
        # a model's universal statements are the ones asserted one read short; the
        # offline rules state only what their recipes traced
        if item_id not in pending and getattr(ctx.config, "generator", "offline") != "offline":
            universal = universal_flag(rec)
            if universal is not None:
                rec = rec.model_copy(update={"flags": [*rec.flags, universal]})
        drafts[item_id] = record_to_state(rec)
    update: JsonDict = {"drafts": drafts, "pending": pending}
    if pending:
        update["round"] = rnd + 1
    return update


def route_after_verify(state: DraftState) -> list[Send] | str:
    """Fan out one repair per record with misses, else go on to the account."""
    pending = state.get("pending") or {}
    if not pending:
        return "account"
    plan = state["plan"]
    items = {i["id"]: i for i in plan.get("items", [])}
    return [
        Send(
            "repair",
            {
                "item": items[item_id],
                "plan": plan,
                "record": state["drafts"][item_id],
                "misses": misses,
                "round": state.get("round", 1),
            },
        )
        for item_id, misses in sorted(pending.items())
        if item_id in items
    ]
