"""Ask the proposer for the outline, then make the outline safe to act on.

The plan is model output and therefore untrusted: IDs are normalised and made unique,
kinds must match their IDs, files outside the revision's tree are removed (they would
otherwise be read or searched), and the outline is capped at ``max_records``.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from drafter.ids import slug, unique_id
from drafter.model import KIND_ORDER, RECORD_ID_RE
from drafter.snapshot import safe_relpath
from graph.configuration import RunContext
from graph.jsontypes import JsonDict
from graph.nodes.common import call_proposer, plan_context
from graph.proposer import Plan, PlanItem, ReadingNote
from graph.state import DraftState


def plan(state: DraftState, runtime: Runtime[RunContext]) -> JsonDict:
    ctx = runtime.context
    system = state.get("system") or "system"
    pctx = plan_context(ctx, system)
    result = call_proposer(ctx, "plan", lambda: ctx.proposer.plan(pctx))
    update: JsonDict = {"usage": result.usage, "round": 0, "notes": result.notes_for("plan")}
    if result.value is None:
        reason = result.budget_stop or result.rejected or "the proposer returned no plan"
        update["plan"] = Plan(system=pctx.system, items=[]).model_dump(mode="json")
        update["missing"] = [f"plan: {reason}"]
        update["plan_failed"] = True
        return update
    clean, notes = sanitize_plan(result.value, set(state["files"]), ctx.config.max_records)
    # the run names the system, not the model: every later call then shares the very
    # context block the plan call cached
    clean = clean.model_copy(update={"system": pctx.system})
    update["plan"] = clean.model_dump(mode="json")
    update["notes"] = [*update["notes"], *notes]
    return update


def sanitize_plan(plan: Plan, tree: set[str], max_records: int) -> tuple[Plan, list[str]]:
    """Valid, unique IDs; only files of the tree; at most ``max_records`` items."""
    notes: list[str] = []
    seen: set[str] = set()
    items: list[PlanItem] = []
    for item in plan.items:
        kind = item.kind.strip().upper()
        m = RECORD_ID_RE.match(item.id.strip())
        if m and m.group("prefix") == "RT" and (kind not in KIND_ORDER or m.group("kind") == kind):
            kind = m.group("kind")
            rid = item.id.strip()
        else:
            if kind not in KIND_ORDER:
                notes.append(f"plan item {item.id!r} dropped: unknown kind {item.kind!r}")
                continue
            rid = f"RT-{kind}-{slug(item.label or item.id, empty='record')}"
            notes.append(f"plan item ID {item.id!r} replaced by {rid}")
        base, rid = rid, unique_id(rid, seen)
        if rid != base:
            notes.append(f"duplicate plan ID {base} renamed {rid}")
        files: list[str] = []
        for f in item.files:
            clean = safe_relpath(f)
            if clean is None or clean not in tree:
                notes.append(f"{rid}: file {f!r} is not in the revision's tree; ignored")
            elif clean not in files:
                files.append(clean)
        reading = _clean_notes(rid, item.notes, tree, notes)
        items.append(
            item.model_copy(update={"id": rid, "kind": kind, "files": files, "notes": reading})
        )
    if len(items) > max_records:
        notes.append(f"plan cut from {len(items)} to {max_records} records (max_records)")
        items = items[:max_records]
    return Plan(system=plan.system, items=items, reads=plan.reads), notes


def _clean_notes(
    rid: str, raw: list[ReadingNote], tree: set[str], log: list[str]
) -> list[ReadingNote]:
    """Reading notes on files of the tree, with ordered line numbers; others are dropped
    and said (the notes reach the record's request, so a wrong path would mislead it)."""
    kept: list[ReadingNote] = []
    for n in raw:
        clean = safe_relpath(n.path)
        if clean is None or clean not in tree:
            log.append(f"{rid}: reading note on {n.path!r} (not in the revision's tree) dropped")
            continue
        a, b = sorted((n.start_line, n.end_line))
        kept.append(n.model_copy(update={"path": clean, "start_line": a, "end_line": b}))
    return kept
