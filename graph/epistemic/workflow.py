"""The epistemic drafting workflow: a small LangGraph, run by :func:`graph.engine.run`.

Shape::

    load_inputs → propose → verify_witnesses → check_cells → END

One path for the CLI, the demo and the tests.  The runtime input is loaded once and
kept in the checkpoint as JSON, so a resumed run cites the very records it started
with.  Witnesses that do not verify are dropped and flagged; table cells that cite an
absent path or an unknown record are listed in the draft's notes.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from drafter import __version__
from drafter.cellcheck import check_report_tables
from drafter.errors import BadInput
from drafter.model import DraftMeta, Report, Verification, Witness
from drafter.repository import location_of
from drafter.store_locator import is_server
from drafter.verify import verify_report
from graph import engine
from graph.checkpointer import OpenRun
from graph.costs import Budget, metered, summarize
from graph.engine import RunStart
from graph.epistemic.offline import OfflineEpistemicProposer
from graph.epistemic.proposer import EpistemicContext, EpistemicProposer
from graph.epistemic.runtime_input import RuntimeInput, load_runtime
from graph.jsontypes import JsonDict
from graph.proposer import RunHandles
from graph.resources import Resources
from graph.run import ChunkHook, new_thread_id, stored_values
from graph.runkind import WorkflowKind
from graph.witness_policy import drop_unverified, settle_inline

if TYPE_CHECKING:  # the model proposer loads the SDK; only an estimate names it
    from graph.epistemic.claude import ClaudeEpistemicProposer


class EpiState(TypedDict, total=False):
    repo: str
    rev: str
    runtime_path: str
    store: str | None
    system: str | None
    sha: str
    identity: str
    runtime: JsonDict
    accepted_only: bool
    report: JsonDict
    problems: list[str]
    usage: list[JsonDict]
    proposer_notes: list[str]
    missing: list[str]
    #: What ``--resume`` needs to rebuild the proposer: generator, model, cap, outputs.
    settings: JsonDict


@dataclass
class EpiRunContext:
    resources: Resources
    proposer: EpistemicProposer = field(default_factory=OfflineEpistemicProposer)
    budget: Budget = field(default_factory=Budget)
    _lines: dict[str, list[str] | None] = field(default_factory=dict)

    def text_of(self, path: str) -> list[str] | None:
        if path not in self._lines:
            try:
                self._lines[path] = self.resources.snapshot().read_str(path).splitlines()
            except Exception:  # binary, absent or not a file: nothing to quote
                self._lines[path] = None
        return self._lines[path]


def _runtime(state: EpiState) -> RuntimeInput:
    return RuntimeInput(
        Report.model_validate(state["runtime"]), state["runtime_path"], state["accepted_only"]
    )


def load_inputs(state: EpiState, runtime: Runtime[EpiRunContext]) -> EpiState:
    """Pin the revision and read the runtime input (accepted records with a store)."""
    snap = runtime.context.resources.snapshot()
    rt = load_runtime(state["runtime_path"], state.get("store"))
    # verified lines let the ledger see which survey findings a runtime witness sits on
    checked = verify_report(rt.report, snap)
    system = state.get("system") or rt.report.system
    return {
        "sha": snap.sha,
        "identity": snap.name,
        "system": system,
        "runtime": checked.model_dump(mode="json"),
        "accepted_only": rt.accepted_only,
    }


def _context(state: EpiState, ctx: EpiRunContext) -> EpistemicContext:
    res = ctx.resources
    return EpistemicContext(
        system=state["system"] or "system",
        identity=state["identity"],
        sha=state["sha"],
        survey=res.survey(),
        runtime=_runtime(state),
        text_of=ctx.text_of,
        path_exists=res.snapshot().exists,
    )


def propose(state: EpiState, runtime: Runtime[EpiRunContext]) -> JsonDict:
    """Draft every section with the run's proposer."""
    ctx = runtime.context
    ectx = _context(state, ctx)
    with metered("propose", ctx.budget) as meter:
        report = ctx.proposer.draft(ectx)
    if report.source is not None and state.get("repo"):
        report.source.location = location_of(state["repo"])
    return {
        "report": report.model_dump(mode="json"),
        "usage": meter.entries(),
        "proposer_notes": list(ctx.proposer.notes),
        "missing": list(ctx.proposer.missing),
    }


def _verdict(w: Witness) -> Verification | None:
    return w.verification  # verify_report has checked every witness already


def verify_witnesses(state: EpiState, runtime: Runtime[EpiRunContext]) -> JsonDict:
    """Verify through drafter.verify; drop failing witnesses and records left without one."""
    report = verify_report(
        Report.model_validate(state["report"]), runtime.context.resources.snapshot()
    )
    for s in report.sections:  # no repair here: a record left without a witness goes
        kept = [drop_unverified(r, "without repair") for r in s.records]
        s.records = [r for r in kept if r.witnesses]
    notes = list(state.get("proposer_notes") or [])
    for a in report.account:  # inline witnesses of model-written prose
        a.blocks, _, said = settle_inline(a.blocks, _verdict, f"{a.title}: inline")
        notes += said
    return {"report": report.model_dump(mode="json"), "proposer_notes": notes}


def check_cells(state: EpiState, runtime: Runtime[EpiRunContext]) -> JsonDict:
    """Paths in source-citing cells must exist; cited IDs must be runtime or draft records."""
    report = Report.model_validate(state["report"])
    rt = _runtime(state)
    cells = check_report_tables(report, runtime.context.resources.snapshot().exists, rt.ids)
    notes = [str(p) for p in cells]
    src = rt.report.source
    if src is not None and src.revision and src.revision != state["sha"]:
        # not a cell problem: the runtime records may still hold, but say so
        notes_pin = [
            f"runtime input is pinned at {src.revision[:12]}, this draft at {state['sha'][:12]}"
        ]
    else:
        notes_pin = []
    for r in report.records:
        if r.part_of and r.part_of not in rt.ids and report.record(r.part_of) is None:
            notes.append(f"{r.id}: part of unknown record {r.part_of}")
    cell_problems = list(notes)
    missing = list(state.get("missing") or [])
    if missing:  # a partial draft says what the model did not draft
        notes.append(f"missing (not drafted by the model): {', '.join(missing)}")
    report.meta = DraftMeta(
        generator=f"{runtime.context.proposer.name}-epistemic",
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        drafter_version=__version__,
        model=runtime.context.proposer.model,
        usage=summarize(state.get("usage") or []),
        notes=[
            f"runtime input: {rt.origin} ({len(rt.ids)} records)",
            *notes_pin,
            *(state.get("proposer_notes") or []),
            *notes,
        ],
        extra={
            "runtime_ids": sorted(rt.ids),
            "cell_problems": cell_problems,
            "missing": missing,
        },
    )
    return {"report": report.model_dump(mode="json"), "problems": notes}


def build_epistemic_graph() -> StateGraph[EpiState, EpiRunContext]:
    g = StateGraph(EpiState, context_schema=EpiRunContext)
    for name, fn in (
        ("load_inputs", load_inputs),
        ("propose", propose),
        ("verify_witnesses", verify_witnesses),
        ("check_cells", check_cells),
    ):
        g.add_node(name, fn)
    g.add_edge(START, "load_inputs")
    g.add_edge("load_inputs", "propose")
    g.add_edge("propose", "verify_witnesses")
    g.add_edge("verify_witnesses", "check_cells")
    g.add_edge("check_cells", END)
    return g


#: The epistemic workflow, as the one runner (graph.engine) runs it.  Its runs stay in
#: SQLite files of the data dir: ``--checkpoint`` is for runtime drafts.
EPISTEMIC = engine.Workflow(
    kind=WorkflowKind.epistemic,
    state=EpiState,
    build_graph=build_epistemic_graph,
    proposer=EpistemicProposer,
    inputs=("repo", "rev", "runtime_path", "store", "system", "settings"),
    shared_checkpoints=False,
)


@dataclass
class EpiResult:
    thread_id: str
    report: Report
    problems: list[str]


def run_epistemic(
    repo: str,
    rev: str,
    runtime_path: str | Path,
    *,
    store: str | Path | None = None,
    system: str | None = None,
    data_dir: Path | None = None,
    proposer: EpistemicProposer | None = None,
    max_cost: float | None = None,
    settings: JsonDict | None = None,
    thread_id: str | None = None,
    resume_thread: str | None = None,
    on_chunk: ChunkHook | None = None,
) -> EpiResult:
    """Run the workflow to the end through the one runner (:func:`graph.engine.run`:
    its checkpoint, and the call journal beside it), as run ``thread_id`` (default: a
    new one).

    With ``resume_thread`` the stored thread continues where it stopped; the journal
    answers every request and tool call made before, so nothing is paid twice.
    ``on_chunk`` is called at each step the run streams, once that step is on disk."""
    tid = resume_thread or thread_id or new_thread_id(rev, WorkflowKind.epistemic)
    proposer = proposer or OfflineEpistemicProposer()
    inputs: EpiState | None = None
    if resume_thread is None:
        inputs = {
            "repo": location_of(repo),  # absolute: --resume may run from another folder
            "rev": rev,
            "runtime_path": location_of(runtime_path),
            # a server locator is the same from every folder; a path is made absolute
            "store": (str(store) if is_server(str(store)) else location_of(store))
            if store
            else None,
            "system": system,
            "settings": settings or {},
        }

    @contextmanager
    def context(opened: OpenRun) -> Iterator[EpiRunContext]:
        resources = Resources(repo=str(repo), rev=rev, data_dir=data_dir, use_index=False)
        try:
            proposer.start(RunHandles(resources, opened.journal))
            yield EpiRunContext(resources, proposer, Budget(max_cost))
        finally:
            resources.close()

    def conf(_ctx: object) -> RunnableConfig:
        return {"configurable": {"thread_id": tid}}

    start = RunStart(tid, data_dir, inputs, conf)
    final, _ = engine.run(EPISTEMIC, start, context, on_chunk)
    return EpiResult(tid, Report.model_validate(final["report"]), list(final["problems"]))


def stored_run(thread_id: str, data_dir: Path | None = None) -> JsonDict:
    """The inputs and settings an epistemic run was started with (for ``--resume``)."""
    values = stored_values(thread_id, build_epistemic_graph(), data_dir)
    if not values.get("runtime_path"):
        raise BadInput(f"run {thread_id!r} is not an epistemic run")
    return values


def plan_epistemic(
    repo: str,
    rev: str,
    runtime_path: str | Path,
    proposer: ClaudeEpistemicProposer,
    *,
    store: str | Path | None = None,
    system: str | None = None,
    data_dir: Path | None = None,
) -> tuple[Report, dict[str, list[str]]]:
    """``--estimate``: the inputs a run would load and the proposer's plan, no thread
    and no paid call; returns what ``proposer.plan`` returns."""
    resources = Resources(repo=str(repo), rev=rev, data_dir=data_dir, use_index=False)
    ctx = EpiRunContext(resources, proposer)
    state: EpiState = {
        "repo": str(repo),
        "rev": rev,
        "runtime_path": str(runtime_path),
        "store": str(store) if store else None,
        "system": system,
    }
    try:
        state.update(load_inputs(state, Runtime(context=ctx)))
        return proposer.plan(_context(state, ctx))
    finally:
        resources.close()
