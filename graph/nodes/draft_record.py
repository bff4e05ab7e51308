"""Draft one planned record (one Send per plan item; LangGraph bounds concurrency).

Each record sees only what concerns it: the survey findings in its files (or named in
its plan item), hybrid-search hits for its label and files (never from data files: a
data set, a result dump or a licence matches a label's words without answering it),
and the text of its files
at the pinned revision.  What comes back is untrusted: the ID is forced to the plan's
ID and any verification the proposer claims is erased — only the verify node sets it.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from drafter.errors import RepoError
from drafter.model import Record, WitnessBlock
from graph.configuration import RunContext
from graph.jsontypes import JsonDict
from graph.nodes.common import call_proposer, prepare_proposer, record_to_state
from graph.proposer import Plan, PlanItem, RecordContext
from graph.proposers.context_paths import DataPaths
from graph.state import RecordTask

MAX_FILES_PER_RECORD = 4
SEARCH_FILES = 3


def build_record_context(ctx: RunContext, plan: Plan, item: PlanItem) -> RecordContext:
    res = ctx.resources
    cfg = ctx.config
    sv = res.survey()
    findings = sv.index().related(item.files, item.facts) if sv is not None else []
    query = f"{item.label}. {item.rationale}".strip()
    chunks: list[JsonDict] = []
    seen: set[tuple[Any, Any, Any]] = set()

    snap = res.snapshot()
    data = DataPaths(snap.files())

    def add(hits: list[JsonDict]) -> None:
        for h in hits:
            key = (h["path"], h["start"], h["end"])
            # data sets, result dumps and licences answer a label's words, not its
            # question (unless the plan named the file)
            path = str(h["path"])
            if key not in seen and (path in item.files or not data.is_data(path)):
                seen.add(key)
                chunks.append(h)

    # a proposer that does its own retrieval (the offline recipes) does not make every
    # record wait for the index
    if ctx.proposer.wants_chunks:
        add(res.search(query, k=cfg.retrieval_k))
        for path in item.files[:SEARCH_FILES]:
            add(res.search(query, k=2, path_glob=path))
    texts: dict[str, str] = {}
    for path in item.files[:MAX_FILES_PER_RECORD]:
        try:
            tf = snap.read_text(path)
        except RepoError:
            continue
        if not tf.binary:
            texts[path] = tf.text[: cfg.max_file_chars]
    return RecordContext(
        item=item,
        plan=plan,
        findings=findings,
        chunks=chunks,
        file_texts=texts,
        context_bytes=cfg.record_context_bytes,
    )


def clean_record(record: Record, item: PlanItem) -> Record:
    """Force the planned ID and wipe any self-declared verification."""
    blocks = []
    for b in record.blocks:
        if isinstance(b, WitnessBlock):
            b = WitnessBlock(witness=b.witness.model_copy(update={"verification": None}))
        blocks.append(b)
    return record.model_copy(update={"id": item.id, "blocks": blocks})


# the Send payload is the node's ``state``: LangGraph's node protocols name the parameter so
def draft_record(state: RecordTask, runtime: Runtime[RunContext]) -> JsonDict:
    ctx = runtime.context
    item = PlanItem.model_validate(state["item"])
    plan = Plan.model_validate(state["plan"])
    rctx = build_record_context(ctx, plan, item)
    prepare_proposer(ctx, plan.system)
    result = call_proposer(ctx, "draft_record", lambda: ctx.proposer.draft_record(rctx))
    update: JsonDict = {"usage": result.usage, "notes": result.notes_for(item.id)}
    if result.budget_stop:
        update["drafts"] = {item.id: None}
        update["outcomes"] = {item.id: {"status": "missing", "reason": result.budget_stop}}
        update["missing"] = [f"{item.id} ({item.label}): not drafted, {result.budget_stop}"]
    elif result.value is None:
        reason = result.rejected or "the proposer returned nothing"
        update["drafts"] = {item.id: None}
        update["outcomes"] = {item.id: {"status": "dropped", "reason": reason}}
        update["missing"] = [f"{item.id} ({item.label}): dropped, {reason}"]
    else:
        rec = clean_record(result.value, item)
        update["drafts"] = {item.id: record_to_state(rec)}
        update["outcomes"] = {item.id: {"status": "drafted", "reason": ""}}
    return update
