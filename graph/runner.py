"""Run or resume the runtime drafting workflow (the run itself: :func:`graph.run.execute`).

One SQLite file per run (``<data dir>/runs/<thread id>.sqlite``) keeps runs
independent and lets ``--resume THREAD`` find its run from the thread ID alone.  The
run's settings live in the checkpointed state, so a resumed run uses the same model,
limits and proposer kind; the budget is re-seeded with the cost already recorded.
LangGraph stores the writes of every task that finished, so on resume completed
record nodes are normally not run again; the call journal beside the checkpoint
(``<thread id>.calls.sqlite``, :mod:`graph.journal`) guarantees that even a task whose
writes were lost to a ``kill -9`` is re-run without paying for its model calls again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from langchain_core.runnables import RunnableConfig

from drafter.errors import BadInput
from drafter.model import Report
from graph import engine
from graph.builder import build_graph
from graph.checkpointer import OpenRun, stored_run_values
from graph.configuration import Configuration, RunContext
from graph.costs import Budget, total_cost, total_tokens
from graph.jsontypes import JsonDict
from graph.proposer import Proposer, RunHandles
from graph.request import DraftRequest
from graph.resources import Resources
from graph.run import new_thread_id
from graph.runkind import WorkflowKind
from graph.state import DraftState

#: The runtime workflow, as the one runner (graph.engine) runs it.
RUNTIME = engine.Workflow(
    kind=WorkflowKind.runtime,
    state=DraftState,
    build_graph=build_graph,
    proposer=Proposer,
    inputs=("repo", "rev", "system", "out", "settings", "thread_id"),
)

#: Builds the run's proposer from its settings and this process's resources.
ProposerFactory = Callable[[Configuration, Resources], Proposer]
UpdateHook = Callable[[str, JsonDict], None]


@dataclass
class RunResult:
    thread_id: str
    #: the checkpoint file, or the (redacted) database URL of a shared checkpointer
    checkpoint: Path | str
    state: JsonDict
    report: Report | None = None
    resumed: bool = False
    usage: list[JsonDict] = field(default_factory=list)
    #: Model calls answered from the journal in this process (paid for by an earlier one).
    replayed: int = 0


def _graph_config(thread_id: str, cfg: Configuration) -> RunnableConfig:
    return {
        "configurable": {"thread_id": thread_id},
        "max_concurrency": cfg.concurrency,
        "recursion_limit": 50 + 4 * cfg.repair_rounds,
    }


def _fresh_inputs(request: DraftRequest, config: Configuration, tid: str) -> DraftState:
    return {
        "repo": request.repo,
        # the pinned SHA, as the resources read it: one revision for the whole run
        "rev": request.sha,
        "system": request.system,
        "out": str(request.out) if request.out else None,
        "settings": config.to_dict(),
        "thread_id": tid,
        "drafts": {},
        "outcomes": {},
        "usage": [],
        "missing": [],
        "notes": [],
        "round": 0,
    }


@dataclass
class _Stored:
    """What a resumed run takes from its checkpoint: settings, inputs and what it spent."""

    config: Configuration
    repo: str
    rev: str
    spent: float
    tokens: int


def _stored(values: JsonDict, tid: str, repo: str, rev: str) -> _Stored:
    if not values:
        raise BadInput(f"run {tid!r} has no checkpoint to resume")
    usage = values.get("usage") or []
    return _Stored(
        Configuration.from_dict(values.get("settings") or {}),
        values.get("repo", repo),
        values.get("sha") or values.get("rev", rev),
        total_cost(usage),
        total_tokens(usage),
    )


def run_draft(
    repo: str,
    rev: str,
    config: Configuration,
    proposer_factory: ProposerFactory,
    *,
    thread_id: str | None = None,
    resume: bool = False,
    data_dir: Path | None = None,
    chroma_url: str | None = None,
    use_index: bool = True,
    system: str | None = None,
    out: str | None = None,
    on_update: UpdateHook | None = None,
    checkpoint: str | None = None,
) -> RunResult:
    """Start (or, with ``resume``, continue) a run and return its final state: the
    request of :func:`run_request` made from positional inputs, for scripts and tests;
    ``checkpoint`` names a shared checkpointer (graph.checkpointer), else SQLite."""
    if resume:
        request = DraftRequest(
            repo, rev, rev, data_dir, chroma_url=chroma_url, use_index=use_index,
            checkpoint=checkpoint,
        )  # fmt: skip
    else:
        request = DraftRequest.pin(
            repo,
            rev,
            data_dir=data_dir,
            out=Path(out) if out else None,
            system=system,
            chroma_url=chroma_url,
            use_index=use_index,
        )
        request = replace(request, checkpoint=checkpoint)
    return run_request(
        request, config, proposer_factory, thread_id=thread_id, resume=resume, on_update=on_update
    )


def run_request(
    request: DraftRequest,
    config: Configuration,
    proposer_factory: ProposerFactory,
    *,
    thread_id: str | None = None,
    resume: bool = False,
    on_update: UpdateHook | None = None,
) -> RunResult:
    """Start (or, with ``resume``, continue: the stored settings, repository and SHA win
    over the request's) a run of the runtime workflow and return its final state."""
    data_dir = request.data_dir
    tid = thread_id or new_thread_id(request.rev)
    inputs: DraftState | None = None
    if not resume:
        inputs = _fresh_inputs(request, config, tid)  # dense_search is settled below

    @contextmanager
    def context(opened: OpenRun) -> Iterator[RunContext]:
        nonlocal request, config
        spent, tokens = 0.0, 0
        if resume:
            values = (
                build_graph()
                .compile(checkpointer=opened.saver)
                .get_state({"configurable": {"thread_id": tid}})
                .values
            )
            got = _stored(dict(values or {}), tid, request.repo, request.sha)
            config, spent, tokens = got.config, got.spent, got.tokens
            request = replace(request, repo=got.repo, rev=got.rev, sha=got.rev)
        resources = Resources(
            repo=request.repo,
            rev=request.sha,
            data_dir=data_dir,
            chroma_url=request.chroma_url,
            use_index=request.use_index,
            # a draft depends only on the revision and the options, never on how far
            # the background index had got; a resumed run keeps the first decision
            stable_search=True,
            _dense=config.dense_search,
        )
        try:
            if inputs is not None:
                config = replace(config, dense_search=resources.dense_used())
                inputs["settings"] = config.to_dict()
            proposer = proposer_factory(config, resources)
            proposer.start(
                RunHandles(resources, opened.journal, sequential=config.concurrency == 1)
            )
            yield RunContext(
                proposer=proposer,
                config=config,
                resources=resources,
                budget=Budget(
                    config.max_cost, spent, token_limit=config.max_tokens_total, tokens=tokens
                ),
            )
        finally:
            resources.close()

    def conf(ctx: object) -> RunnableConfig:
        return _graph_config(tid, ctx.config if isinstance(ctx, RunContext) else config)

    # the context completes a new run's inputs (the dense-search decision) before the
    # first step, so the same mapping is handed on, not a copy
    start = engine.RunStart(tid, data_dir, inputs, conf, request.checkpoint)
    final, opened = engine.run(RUNTIME, start, context, _forward(on_update))
    report = Report.model_validate(final["report"]) if final.get("report") else None
    return RunResult(
        tid,
        opened.where,
        final,
        report,
        resume,
        list(final.get("usage") or []),
        opened.journal.replayed,
    )


def _forward(on_update: UpdateHook | None) -> Callable[[Mapping[str, object]], None]:
    """Each streamed step's updates, node by node, to ``on_update``."""

    def each(chunk: Mapping[str, object]) -> None:
        if on_update is not None:
            for node, update in chunk.items():
                on_update(node, update if isinstance(update, dict) else {})

    return each


def read_settings(
    thread_id: str, data_dir: Path | None = None, checkpoint: str | None = None
) -> JsonDict:
    """The stored settings and inputs of a run, for the CLI to rebuild its proposer."""
    return stored_run_values(checkpoint, thread_id, build_graph(), data_dir)
