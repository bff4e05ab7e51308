"""Run or resume the drafting workflow with a SqliteSaver checkpoint per run.

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

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from langchain_core.runnables import RunnableConfig

from drafter.errors import BadInput
from drafter.model import Report
from drafter.repository import location_of
from graph.builder import build_graph
from graph.checkpointer import open_checkpointer, stored_run_values
from graph.configuration import Configuration, RunContext
from graph.costs import Budget, total_cost, total_tokens
from graph.jsontypes import JsonDict
from graph.proposer import Proposer, RunHandles
from graph.resources import Resources
from graph.run import new_thread_id
from graph.state import DraftState

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


def _fresh_inputs(
    repo: str, rev: str, config: Configuration, tid: str, system: str | None, out: str | None
) -> DraftState:
    return {
        # absolute, so that --resume from another folder finds the same repository
        "repo": location_of(repo),
        "rev": rev,
        "system": system,
        "out": out,
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
    """Start (or, with ``resume``, continue) a run and return its final state;
    ``checkpoint`` names a shared checkpointer (graph.checkpointer), else SQLite."""
    tid = thread_id or new_thread_id(rev)
    with open_checkpointer(checkpoint, tid, data_dir, resume=resume) as run:
        journal, path = run.journal, run.where
        app = build_graph().compile(checkpointer=run.saver)
        gconf = _graph_config(tid, config)
        inputs: DraftState | None
        spent, tokens = 0.0, 0
        if resume:
            got = _stored(dict(app.get_state(gconf).values or {}), tid, repo, rev)
            config, repo, rev, spent, tokens = got.config, got.repo, got.rev, got.spent, got.tokens
            gconf = _graph_config(tid, config)
            inputs = None
        else:
            inputs = _fresh_inputs(repo, rev, config, tid, system, out)
        resources = Resources(
            repo=str(repo),
            rev=rev,
            data_dir=data_dir,
            chroma_url=chroma_url,
            use_index=use_index,
            # an offline draft depends only on the revision and the options
            stable_search=config.generator == "offline",
        )
        proposer = proposer_factory(config, resources)
        proposer.start(RunHandles(resources, journal))
        ctx = RunContext(
            proposer=proposer,
            config=config,
            resources=resources,
            budget=Budget(
                config.max_cost, spent, token_limit=config.max_tokens_total, tokens=tokens
            ),
        )
        try:
            # "sync": each step's checkpoint is on disk before the next step starts
            stream = app.stream(
                inputs, gconf, context=ctx, stream_mode="updates", durability="sync"
            )
            for chunk in stream:
                if on_update is not None:
                    for node, update in chunk.items():
                        on_update(node, update if isinstance(update, dict) else {})
        finally:
            resources.close()
        final = dict(app.get_state(gconf).values or {})
    report = Report.model_validate(final["report"]) if final.get("report") else None
    return RunResult(
        tid, path, final, report, resume, list(final.get("usage") or []), journal.replayed
    )


def read_settings(
    thread_id: str, data_dir: Path | None = None, checkpoint: str | None = None
) -> JsonDict:
    """The stored settings and inputs of a run, for the CLI to rebuild its proposer."""
    return stored_run_values(checkpoint, thread_id, build_graph(), data_dir)
