"""``drafter draft`` and ``drafter demo``: the drafting workflow from the command line.

Both run the same LangGraph workflow with a SqliteSaver checkpoint per run; the
thread ID is printed first so that a killed run can be continued with
``drafter draft --resume THREAD`` without paying again for finished model calls.
Without ANTHROPIC_API_KEY (or with ``--offline``) the offline proposer drafts from
the survey alone, which is also what ``drafter demo`` does on the shipped sample.

Environment for the Claude path: ANTHROPIC_API_KEY (required), ANTHROPIC_BASE_URL (read
by the SDK itself: a proxy, a local Anthropic-compatible server, or the canned server of
the end-to-end tests), DRAFTER_MODEL, DRAFTER_RETRY_BASE_SECONDS (first backoff wait,
default 1 s), DRAFTER_REQUEST_TIMEOUT and DRAFTER_RETRIES (graph.client_settings).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import click

from drafter import cli_options, defaults
from drafter.config import data_dir as resolve_data_dir
from drafter.errors import BadInput, DrafterError
from drafter.sanitize import markup_safe
from graph.cli_endpoint import endpoint_options
from graph.drive import drive
from graph.jsontypes import JsonDict

# LangGraph, the report model and the proposers are imported where they are used:
# ``drafter --help`` loads every command module and must not pay for them
if TYPE_CHECKING:
    from rich.console import Console

    from drafter.model import Report
    from drafter.sample import SampleRepo
    from graph.configuration import Configuration, EndpointOptions
    from graph.epistemic.workflow import EpiResult
    from graph.estimate import Estimate
    from graph.proposer import Proposer
    from graph.request import DraftRequest
    from graph.resources import Resources
    from graph.runkind import WorkflowKind
    from graph.runner import ProposerFactory, RunResult

#: Seconds between progress lines when the output is not a terminal.
LINE_EVERY = 5.0


def draft_estimate(config: Configuration, resources: Resources, system: str) -> Estimate:
    """The cost range of this draft, from the survey the run will use anyway (the
    resources cache it, so the survey node does not survey twice)."""
    from graph.context_window import sizes_for
    from graph.estimate import CHARS_PER_TOKEN, estimate
    from graph.proposers.agent.prompts import shared_context
    from graph.proposers.factory import tool_budgets

    snap = resources.snapshot()
    shared = shared_context(system, snap.name, snap.sha, snap.files(), resources.survey())
    page = sizes_for(config.context_window).pages.chars if config.context_window else None
    return estimate(
        config.model,
        len(shared),
        config.max_records,
        tool_budgets(config),
        config.repair_rounds,
        price=config.price,
        page_tokens=int(page / CHARS_PER_TOKEN) if page else None,
        record_context_bytes=config.record_context_bytes,
    )


def _announcing(console: Console, factory: ProposerFactory, system: str | None) -> ProposerFactory:
    """A proposer factory that prints the estimate before the first paid call."""

    def make(config: Configuration, resources: Resources) -> Proposer:
        proposer = factory(config, resources)
        if config.generator != "offline":
            from graph.system_name import system_name

            name = system or system_name(resources.snapshot().git_dir)
            est = draft_estimate(config, resources, name)
            console.print(est.line(config.max_cost, config.max_tokens_total))
        return proposer

    return make


class _RunProgress:
    """A rich progress bar fed by the graph's per-node updates; without a terminal
    (a script, CI) a plain line at each stage and every few seconds."""

    def __init__(self, console: Console):
        from drafter.console import progress_bar

        self.progress = progress_bar(
            label="[bold]{task.description}", console=console, transient=False
        )
        self.task = self.progress.add_task("pinning revision", total=None)
        self.console = console
        self.lines = not console.is_terminal
        self.t0 = time.monotonic()
        self.last = 0.0
        self.stage = ""
        self.done = 0
        self.total: int | None = None

    def seed(self, done: int, total: int, repairing: int = 0) -> None:
        """A resumed run's records: the plan and the drafts its checkpoint holds (the
        plan node, which would say the total, does not run again).  A run stopped in a
        repair round has every record counted already, so it resumes as repairs, not as
        more records than the plan holds."""
        if repairing:
            desc = f"repairing {repairing} record(s)"
            self.progress.update(self.task, description=desc, total=None)
            self.total, self.done = None, done
            return
        self.progress.update(self.task, description="drafting records", total=total, completed=done)
        self.total, self.done = total, done

    def _say(self, stage: str, force: bool = False) -> None:
        if not self.lines:
            return
        now = time.monotonic()
        if not force and stage == self.stage and now - self.last < LINE_EVERY:
            return
        self.stage, self.last = stage, now
        count = f" {self.done}/{self.total}" if self.total is not None else ""
        # on the run's own console, where the bar would be: stderr stays one line on error
        self.console.print(
            f"drafter: {stage}{count} ({now - self.t0:.0f} s)", highlight=False, soft_wrap=True
        )

    def __call__(self, node: str, update: JsonDict) -> None:
        p, t = self.progress, self.task
        if node == "plan":
            items = (update.get("plan") or {}).get("items", [])
            p.update(t, description="drafting records", total=len(items), completed=0)
            self.total, self.done = len(items), 0
            self._say("drafting records", force=True)
        elif node == "draft_record":
            p.advance(t)
            self.done += 1
            stage = "drafting records" if self.total is not None else self.stage
            self._say(stage, force=self.done == self.total)
        elif node == "verify":
            pending = update.get("pending") or {}
            desc = f"repairing {len(pending)} record(s)" if pending else "writing the account"
            p.update(t, description=desc)
            self.total = None
            self._say(desc, force=True)
        elif node in ("resolve_snapshot", "ensure_index", "survey"):
            nxt = {
                "resolve_snapshot": "indexing",
                "ensure_index": "surveying",
                "survey": "planning",
            }
            p.update(t, description=nxt[node])
            self._say(nxt[node], force=True)
        elif node == "assemble":
            p.update(t, description="done")
            self._say("done", force=True)


def _execute(
    console: Console,
    request: DraftRequest,
    config: Configuration,
    *,
    thread_id: str,
    resume: bool,
    estimate_first: bool = False,
    records: tuple[int, int, int] | None = None,
) -> RunResult:
    from graph.drive import Saved
    from graph.proposers import factory
    from graph.runner import run_request

    bar = _RunProgress(console)
    if records is not None:
        bar.seed(*records)
    build = factory.build_proposer

    def go(saved: Saved) -> RunResult:
        def on_update(node: str, update: JsonDict) -> None:
            saved()
            bar(node, update)

        with bar.progress:
            return run_request(
                request,
                config,
                _announcing(console, build, request.system) if estimate_first else build,
                thread_id=thread_id,
                resume=resume,
                on_update=on_update,
            )

    return drive(console, thread_id, resume, go)


def _finish(console: Console, result: RunResult, out: Path, text_out: Path | None) -> Report:
    from graph.costs import summarize
    from graph.drive import write_draft

    report = result.report
    if report is None:
        raise DrafterError(f"run {result.thread_id} ended without a draft")

    def said() -> None:
        index_line = coverage_summary(report)
        if index_line:
            console.print(index_line, soft_wrap=True, highlight=False)
        if result.replayed:
            console.print(
                f"{result.replayed} model call(s) answered from the run's journal, not paid again"
            )

    write_draft(console, report, out, text_out, usage=summarize(result.usage), before_usage=said)
    return report


def coverage_summary(report: Report) -> str:
    """One line: what the index embedded, kept for word search only, and skipped."""
    got = (report.meta.extra.get("index") if report.meta is not None else None) or {}
    if not isinstance(got, dict) or not got:
        return ""
    n = {k: int(v) for k, v in got.items() if isinstance(v, int)}
    return (
        f"index: {n.get('files embedded', 0)} file(s) embedded, "
        f"{n.get('files lexical only', 0)} lexical only, {n.get('files skipped', 0)} skipped; "
        f"dense vectors for {n.get('chunks embedded', 0)} of {n.get('chunks to embed', 0)} "
        f"chunks (the draft's notes list what was left out)"
    )


def _outcome(console: Console, report: Report) -> None:
    """Witnesses per section, and exit 1 for a partial draft (item 7 of the model path's
    contract): the gaps are :func:`graph.outcome.problems`', read from the draft itself
    (what it says is missing, record IDs cited but not drafted, and for a model's draft
    an empty plan or a record without a verified witness), as ``drafter verify`` would."""
    from graph.outcome import problems, witness_table

    console.print(witness_table(report))
    gaps = problems(report)
    if gaps:
        console.print(f"[yellow]partial draft ({len(gaps)} gap(s)); exit 1:[/]")
        for g in gaps[:20]:
            console.print(f"  - {markup_safe(g, keep_newlines=False)}", soft_wrap=True)
        if len(gaps) > 20:
            console.print(f"  … and {len(gaps) - 20} more (the draft's meta.missing lists them)")
        raise click.exceptions.Exit(1)


_F = TypeVar("_F", bound=Callable[..., Any])


def _int_option(flag: str, default: int, help: str) -> Callable[[_F], _F]:
    """A whole-number option whose default (from drafter.defaults) the help shows."""
    return click.option(flag, type=int, default=default, show_default=True, help=help)


#: The options of ``drafter draft``, in the order its help lists them.
_DRAFT_OPTIONS: list[Callable[[_F], _F]] = [
    click.argument("repo", required=False),
    click.option(
        "--rev", default="HEAD", show_default=True, help="Revision to pin (branch, tag, SHA)."
    ),
    cli_options.out_path(
        "Draft JSON to write.  Required, except with --estimate, or --resume of a run "
        "that recorded it."
    ),
    click.option(
        "--text",
        "text_out",
        type=click.Path(dir_okay=False, path_type=Path),
        help="Also write report text.",
    ),
    click.option("--offline", is_flag=True, help="Draft from the static survey, without a model."),
    cli_options.model,
    cli_options.max_cost,
    endpoint_options,
    click.option(
        "--max-records",
        type=int,
        default=None,
        help=f"Records to plan at most (default {defaults.MODEL_MAX_RECORDS} with a model, "
        f"{defaults.OFFLINE_MAX_RECORDS} offline, "
        f"{defaults.THOROUGH_MAX_RECORDS} with --thorough).",
    ),
    click.option(
        "--thorough",
        is_flag=True,
        help="Offline long form: up to "
        f"{defaults.THOROUGH_MAX_RECORDS} records and {defaults.THOROUGH_WITNESSES} witnesses each "
        f"(default: a short, core-first draft of at most {defaults.OFFLINE_MAX_RECORDS} records "
        f"and {defaults.OFFLINE_WITNESSES} witnesses each).",
    ),
    cli_options.repair_rounds,
    click.option(
        "--concurrency",
        type=int,
        default=defaults.CONCURRENCY,
        show_default=True,
        help="Records drafted at the same time (with a model: conversations in flight).",
    ),
    click.option(
        "--resume", "resume_thread", default=None, help="Continue the run with this thread ID."
    ),
    cli_options.checkpoint,
    click.option("--system", default=None, help="System name for the report title."),
    click.option(
        "--estimate",
        "estimate_only",
        is_flag=True,
        help="Print the token and USD estimate of a Claude draft and exit without paying.",
    ),
    _int_option("--plan-tools", defaults.PLAN_TOOL_CALLS, "Planner tool calls."),
    _int_option("--record-tools", defaults.RECORD_TOOL_CALLS, "Tool calls per record."),
    _int_option("--repair-tools", defaults.REPAIR_TOOL_CALLS, "Tool calls per repair."),
    _int_option("--account-tools", defaults.ACCOUNT_TOOL_CALLS, "Account tool calls."),
    cli_options.no_index,
    cli_options.data_dir,
    cli_options.chroma,
    click.option(
        "--type",
        "report_type",
        type=click.Choice(["runtime", "epistemic"]),
        default="runtime",
        show_default=True,
        help="Report type; epistemic needs --runtime.",
    ),
    click.option(
        "--runtime",
        "runtime_path",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="Runtime draft JSON, reviewed export or report text the epistemic draft builds on.",
    ),
    cli_options.review_store(
        "Review store of the runtime draft (or the runtime draft's path, for its own "
        "store): cite only its accepted records."
    ),
    cli_options.allow_mismatch,
    cli_options.provider,
    cli_options.base_url,
]


def _with(options: list[Callable[[_F], _F]]) -> Callable[[_F], _F]:
    """Apply click decorators as if stacked in this order (the first one outermost)."""

    def apply(f: _F) -> _F:
        for option in reversed(options):
            f = option(f)
        return f

    return apply


def _resumed_kind(thread: str | None, root: Path, checkpoint: str | None) -> WorkflowKind | None:
    """The workflow run ``thread`` recorded when it started (a run on a shared
    checkpointer is a runtime run); None when no run is resumed."""
    from graph.runkind import WorkflowKind
    from graph.workflows import workflow_of

    if not thread:
        return None
    found = None if checkpoint else workflow_of(thread, root)
    return WorkflowKind.runtime if found is None else found.kind


@click.command("draft")
@_with(_DRAFT_OPTIONS)
def draft_cmd(
    repo: str | None,
    rev: str,
    out: Path | None,
    text_out: Path | None,
    offline: bool,
    model: str | None,
    max_cost: float | None,
    endpoint: EndpointOptions,
    max_records: int | None,
    thorough: bool,
    repair_rounds: int,
    concurrency: int,
    resume_thread: str | None,
    checkpoint: str | None,
    system: str | None,
    estimate_only: bool,
    plan_tools: int,
    record_tools: int,
    repair_tools: int,
    account_tools: int,
    no_index: bool,
    data_dir: Path | None,
    chroma_url: str | None,
    report_type: str = "runtime",
    runtime_path: Path | None = None,
    store_path: str | None = None,
    provider: str = "anthropic",
    base_url: str | None = None,
    allow_mismatch: bool = False,
) -> None:
    """Draft a runtime (or, with --type epistemic, an epistemic) report for REPO at --rev."""
    from drafter.console import out_console

    console, root = out_console(), resolve_data_dir(data_dir)
    resumed = _resumed_kind(resume_thread, root, checkpoint)
    if report_type == "epistemic" or runtime_path is not None or resumed == "epistemic":
        _runtime_only(endpoint, checkpoint, provider, base_url)
        if resume_thread:
            _resume_epistemic(console, resume_thread, root, out, text_out)
            return
        _draft_epistemic(
            console, repo, rev, out, text_out, root, system,
            _EpiOptions(runtime_path, store_path, offline, model, max_cost,
                        {"record": record_tools, "account": account_tools}, allow_mismatch),
            estimate_only=estimate_only,
        )  # fmt: skip
        return
    if resume_thread:
        where = (chroma_url, no_index, checkpoint)
        _resume(console, resume_thread, root, repo, rev, out, text_out, *where)
        return
    request = _new_request(repo, rev, out, text_out, estimate_only, root, system)
    request = replace(request, chroma_url=chroma_url, use_index=not no_index, checkpoint=checkpoint)
    config = _configuration(
        offline,
        estimate_only,
        model,
        max_cost,
        endpoint,
        max_records=max_records,
        thorough=thorough,
        repair_rounds=repair_rounds,
        concurrency=concurrency,
        tools=_tool_budgets_of(plan_tools, record_tools, repair_tools, account_tools),
        provider=provider,
        base_url=base_url,
    )
    if estimate_only:
        _print_estimate(console, request, config)
        return
    _new_run(console, request, config)


def _shared_checkpoint(request: DraftRequest) -> bool:
    """Whether the run is checkpointed on a server: then nothing of it is kept on this
    machine (its settings and outputs travel in its checkpoints, which another analyst's
    machine resumes from), so the local request record is not written."""
    import os

    from drafter.store_locator import is_server
    from graph.checkpointer import ENV_CHECKPOINT

    locator = request.checkpoint or os.environ.get(ENV_CHECKPOINT) or ""
    return bool(locator) and is_server(locator)


def _new_run(console: Console, request: DraftRequest, config: Configuration) -> None:
    """Run a new draft to its end, write it and exit by its outcome."""
    from drafter.repository import location_of
    from graph.run import new_thread_id, record_request

    assert request.out is not None  # required by _new_request unless estimating
    thread = new_thread_id(request.rev)
    # before the thread ID is shown: a run killed at any moment after it resumes to the
    # same --out and --text
    asked = {
        "repo": location_of(request.repo),
        "rev": request.rev,
        "system": request.system,
        "out": str(request.out.absolute()),
        "text": str(request.text_out.absolute()) if request.text_out else None,
        "settings": config.to_dict(),
        # --resume keeps the run's search as it started: no index unless the run had one
        "use_index": request.use_index,
    }
    if not _shared_checkpoint(request):
        record_request(thread, asked, request.data_dir)
    result = _execute(
        console,
        request,
        config,
        thread_id=thread,
        resume=False,
        estimate_first=config.generator == "claude",
    )
    report = _finish(console, result, request.out, request.text_out)
    _outcome(console, report)


def _new_request(
    repo: str | None,
    rev: str,
    out: Path | None,
    text_out: Path | None,
    estimate_only: bool,
    root: Path,
    system: str | None,
) -> DraftRequest:
    """A new run's request, refused before anything is recorded."""
    if repo is None:
        raise BadInput("REPO is required (or --resume THREAD)")
    if out is None and not estimate_only:
        raise BadInput("--out DRAFT.json is required")
    from drafter.reportio import check_output_path

    for target in (out, text_out):
        if target is not None:
            check_output_path(target)
    # Pin the revision before a run is recorded: a run that can never start is not
    # worth a thread id the user is told to resume.  This is its one resolution.
    from graph.request import DraftRequest

    return DraftRequest.pin(repo, rev, data_dir=root, out=out, text_out=text_out, system=system)


def _configuration(
    offline: bool,
    estimate_only: bool,
    model: str | None,
    max_cost: float | None,
    endpoint: EndpointOptions,
    *,
    max_records: int | None,
    thorough: bool,
    repair_rounds: int,
    concurrency: int,
    tools: dict[str, int],
    provider: str = "anthropic",
    base_url: str | None = None,
) -> Configuration:
    """A new run's settings from the command's options; a bad value is bad input.  The
    proposer kind is the factory's choice (said on stderr when it falls back)."""
    from graph.cli_endpoint import chosen_model
    from graph.configuration import Configuration

    generator, chosen = chosen_model(offline, model, provider, estimate_only=estimate_only)
    if max_records is None:
        max_records = defaults.max_records(generator, thorough)
    try:
        settings = endpoint.settings(chosen, generator, max_cost, provider)
        return Configuration(
            model=chosen,
            generator=generator,
            max_records=max_records,
            repair_rounds=repair_rounds,
            **settings,
            concurrency=concurrency,
            **tools,  # type: ignore[arg-type]  # the four *_tool_calls ints, by name
            thorough=thorough,
            provider=provider,
            base_url=base_url,
        )
    except ValueError as exc:
        raise BadInput(str(exc)) from exc


def _runtime_only(
    endpoint: EndpointOptions,
    checkpoint: str | None = None,
    provider: str = "anthropic",
    base_url: str | None = None,
) -> None:
    """The endpoint and provider options are wired for runtime drafts only: an
    epistemic run refuses them in one line rather than silently ignoring a price, a
    window or another provider (its model proposer is the default provider's)."""
    from drafter.providers import DEFAULT

    given = [
        flag
        for flag, value in (
            ("--price-in", endpoint.price_in),
            ("--price-out", endpoint.price_out),
            ("--max-tokens-total", endpoint.max_tokens_total),
            ("--context-window", endpoint.context_window),
            ("--checkpoint", checkpoint),
            ("--provider", None if provider == DEFAULT else provider),
            ("--base-url", base_url),
        )
        if value is not None
    ]
    if given:
        raise BadInput(f"{', '.join(given)}: for runtime drafts only, not --type epistemic")


def _tool_budgets_of(plan: int, record: int, repair: int, account: int) -> dict[str, int]:
    return {
        "plan_tool_calls": plan,
        "record_tool_calls": record,
        "repair_tool_calls": repair,
        "account_tool_calls": account,
    }


def _resume(
    console: Console,
    thread: str,
    root: Path,
    repo: str | None,
    rev: str,
    out: Path | None,
    text_out: Path | None,
    chroma_url: str | None,
    no_index: bool,
    checkpoint: str | None = None,
) -> None:
    """``--resume THREAD``: the stored settings, repository and output paths (the
    checkpoint's, else the request recorded when the run started).  A run killed before
    its first step was saved has nothing to continue, so it starts again from that
    request under the same thread ID (nothing was paid for yet)."""
    from graph.configuration import Configuration
    from graph.run import NothingSaved, recorded_request
    from graph.runner import read_settings

    asked = recorded_request(thread, root)
    try:
        stored = read_settings(thread, root, checkpoint)
    except NothingSaved:
        # a draft already written means the run got further than its checkpoint says
        # (a damaged file): never start it over on top of that draft
        written = _recorded_path(asked.get("out"))
        if not asked.get("settings") or written is None or written.exists():
            raise
        console.print(f"drafter: run {thread} saved no step before it stopped; starting it again")
        stored = {}
    fresh = not stored
    stored = stored or asked
    config = Configuration.from_dict(stored.get("settings") or {})
    out = out or _recorded_path(stored.get("out") or asked.get("out"))
    if out is None:
        raise BadInput("--out is required (the run did not record where to write)")
    text_out = text_out or _recorded_path(asked.get("text"))
    if config.generator == "offline":
        console.print("drafter: resuming an offline run")
    from graph.request import DraftRequest

    pinned = stored.get("sha") or stored.get("rev", rev)
    request = DraftRequest(
        stored.get("repo", repo or "."),
        stored.get("rev", rev),
        pinned,
        root,
        out,
        text_out,
        chroma_url=chroma_url,
        use_index=not no_index and asked.get("use_index", True) is not False,
        system=stored.get("system"),
        checkpoint=checkpoint,
    )
    result = _execute(
        console, request, config, thread_id=thread, resume=not fresh,
        records=_records_so_far(stored),
    )  # fmt: skip
    report = _finish(console, result, out, text_out)
    _outcome(console, report)


def _records_so_far(stored: JsonDict) -> tuple[int, int, int] | None:
    """(records drafted, records planned, records waiting for repair) of a stored run,
    None before its plan."""
    items = (stored.get("plan") or {}).get("items") or []
    if not items:
        return None
    drafts = stored.get("drafts") or {}
    pending = stored.get("pending") or {}
    repairing = len(pending) if isinstance(pending, dict | list) else 0
    return sum(1 for i in items if i.get("id") in drafts), len(items), repairing


def _recorded_path(value: object) -> Path | None:
    return Path(value) if isinstance(value, str) and value else None


@dataclass(frozen=True)
class _EpiOptions:
    """What an epistemic draft takes beyond the request: its runtime input, the review
    store limiting it, and the proposer's options."""

    runtime_path: Path | None
    store: str | None
    offline: bool
    model: str | None
    max_cost: float | None
    budgets: dict[str, int]
    allow_mismatch: bool


def _draft_epistemic(
    console: Console,
    repo: str | None,
    rev: str,
    out: Path | None,
    text_out: Path | None,
    root: Path,
    system: str | None,
    opts: _EpiOptions,
    *,
    estimate_only: bool,
) -> None:
    """A new epistemic run through the one runner, as a runtime run goes: the request
    pinned once, the thread told, the draft written by :func:`graph.drive.write_draft`."""
    from graph.epistemic.factory import build_epistemic_proposer, cost_cap, estimate_line
    from graph.epistemic.workflow import run_epistemic
    from graph.proposers.factory import choose
    from graph.run import new_thread_id
    from graph.runkind import WorkflowKind

    request = _new_request(repo, rev, out, text_out, estimate_only, root, system)
    runtime_path = opts.runtime_path
    if runtime_path is None:
        raise BadInput("--type epistemic needs --runtime RUNTIME (a runtime draft or report)")
    _same_system(request, runtime_path, opts.allow_mismatch)
    if estimate_only or request.out is None:
        line = estimate_line(
            request, runtime_path, opts.store,
            model=opts.model, budgets=opts.budgets, max_cost=opts.max_cost,
        )  # fmt: skip
        console.print(markup_safe(line), soft_wrap=True)
        return
    choice = choose(opts.offline)
    if choice.notice:
        click.echo(choice.notice, err=True)
    proposer = build_epistemic_proposer(
        choice.generator, opts.model, opts.budgets, _announcer(console)
    )
    max_cost = cost_cap(opts.model, opts.max_cost) if proposer.model else opts.max_cost
    proposer.max_cost = max_cost
    settings = {
        "generator": proposer.name,
        "model": opts.model,
        "max_cost": max_cost,
        "budgets": opts.budgets,
        "out": str(request.out),
        "text_out": str(text_out) if text_out else None,
    }
    if opts.store is not None:
        _say_store(console, opts.store, runtime_path)
    thread = new_thread_id(kind=WorkflowKind.epistemic)
    result = drive(
        console, thread, False,
        lambda saved: run_epistemic(
            request.repo, request.sha, runtime_path, store=opts.store, system=system,
            data_dir=root, proposer=proposer, max_cost=max_cost, settings=settings,
            thread_id=thread, on_chunk=lambda _chunk: saved(),
        ),
    )  # fmt: skip
    _epistemic_outcome(console, result, request.out, text_out)


def _resume_epistemic(
    console: Console, thread: str, root: Path, out: Path | None, text_out: Path | None
) -> None:
    """``--resume`` of an epistemic run: its stored inputs and settings; answered calls
    are replayed from the journal."""
    from graph.epistemic.factory import build_epistemic_proposer
    from graph.epistemic.workflow import run_epistemic, stored_run
    from graph.proposers.factory import API_KEY_ENV, api_key

    stored = stored_run(thread, root)
    settings = dict(stored.get("settings") or {})
    generator: Literal["claude", "offline"] = (
        "claude" if settings.get("generator") == "claude" else "offline"
    )
    if generator == "claude" and not api_key():
        raise BadInput(f"run {thread} was drafted with Claude: resuming needs {API_KEY_ENV}")
    out = out or _recorded_path(settings.get("out"))
    if out is None:
        raise BadInput("--out is required (the run did not record where to write)")
    text_out = text_out or _recorded_path(settings.get("text_out"))
    proposer = build_epistemic_proposer(
        generator, settings.get("model"), settings.get("budgets"), _announcer(console)
    )
    proposer.max_cost = settings.get("max_cost")
    result = drive(
        console, thread, True,
        lambda saved: run_epistemic(
            stored["repo"], stored["rev"], stored["runtime_path"], data_dir=root,
            proposer=proposer, max_cost=proposer.max_cost, resume_thread=thread,
            on_chunk=lambda _chunk: saved(),
        ),
    )  # fmt: skip
    _epistemic_outcome(console, result, out, text_out)


def _epistemic_outcome(
    console: Console, result: EpiResult, out: Path, text_out: Path | None
) -> None:
    """Write the epistemic draft, then exit 1 when a witness or a table cell failed its
    check or the draft is partial (the problems are printed and kept in its notes)."""
    from drafter.verify import report_summary
    from graph.drive import write_draft

    report = result.report
    usage = report.meta.usage if report.meta is not None else None
    write_draft(console, report, out, text_out, title="Epistemic draft", usage=usage)
    for p in result.problems:
        what = "partial draft" if p.startswith("missing (") else "cell check"
        console.print(f"[red]{what}:[/] {markup_safe(p)}", soft_wrap=True)
    s = report_summary(report)
    console.print(f"witnesses verified: {s.verified}/{s.total}; thread {result.thread_id}")
    if result.problems or not s.ok:
        raise click.exceptions.Exit(1)


def _same_system(request: DraftRequest, runtime_path: Path, allow_mismatch: bool) -> None:
    """Refuse a runtime input of another system or revision (unless allowed): it would
    give an epistemic draft titled after one system and sourced at another's revision."""
    from drafter.provenance import enforce, mismatch
    from drafter.reportio import load_report

    there = ("runtime", load_report(runtime_path))
    here = (f"repository {request.repo}", None)
    enforce(mismatch(there, here, pinned=request.sha), allow_mismatch)


def _say_store(console: Console, store: str, runtime_path: Path) -> None:
    """Say which review store limits the runtime records (the locator redacted)."""
    from drafter.reportio import load_report
    from drafter.review_identity import resolve_store
    from drafter.store_locator import redact

    found = resolve_store(store, runtime_path, load_report(runtime_path))
    console.print(
        f"runtime records: only those accepted in {markup_safe(redact(str(found)))}",
        soft_wrap=True,
    )


def _announcer(console: Console) -> Callable[[str], None]:
    """Announcements (the estimate before the first paid call) printed as literal text."""
    return lambda line: console.print(markup_safe(line), soft_wrap=True)


def _print_estimate(console: Console, request: DraftRequest, config: Configuration) -> None:
    """``--estimate``: survey the revision, print the range, spend nothing."""
    from graph.resources import Resources
    from graph.system_name import system_name

    if config.generator == "offline":
        console.print("an offline draft makes no model call: it costs nothing")
        return
    res = Resources(repo=request.repo, rev=request.sha, data_dir=request.data_dir, use_index=False)
    try:
        name = request.system or system_name(res.snapshot().git_dir)
        est = draft_estimate(config, res, name)
        console.print(est.line(config.max_cost, config.max_tokens_total))
    finally:
        res.close()


@click.command("demo")
@cli_options.out_path(
    "Folder for the sample repositories, drafts and reports (default: data dir/demo).",
    dest="out_dir",
    folder=True,
)
@click.option("--no-index", is_flag=True, help="Skip the Chroma index.")
@cli_options.data_dir_env
def demo_cmd(out_dir: Path | None, no_index: bool) -> None:
    """The main job on the shipped samples, offline: index, survey, draft, verify, render
    the Python sample and its epistemic draft, then the TypeScript sample; exit 1 unless
    every draft verifies."""
    from drafter.console import out_console
    from drafter.sample import materialize
    from drafter.sample.typescript import TS_SAMPLE_NAME, materialize_typescript

    console = out_console()
    root = resolve_data_dir(None)
    out_dir = (out_dir or root / "demo").resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    sample = materialize(out_dir / "sample-repo")
    ok = _demo_runtime(console, sample, "tinkerbot", out_dir, root, no_index, "Python")
    epi_ok = _demo_epistemic(console, sample, out_dir / "draft.json", out_dir, root)
    ts_dir = out_dir / "typescript"
    ts_dir.mkdir(exist_ok=True)
    ts = materialize_typescript(ts_dir / "sample-repo")
    ts_ok = _demo_runtime(console, ts, TS_SAMPLE_NAME, ts_dir, root, no_index, "TypeScript")
    if not (ok and epi_ok and ts_ok):
        raise click.exceptions.Exit(1)


def _demo_runtime(
    console: Console,
    sample: SampleRepo,
    system: str,
    out_dir: Path,
    root: Path,
    no_index: bool,
    language: str,
) -> bool:
    """Draft one shipped sample offline, verify it, write draft.json and report.txt in
    ``out_dir``; True when every witness verified."""
    from drafter.reportio import save_report
    from drafter.snapshot import Snapshot
    from drafter.verify import report_summary, verify_report
    from graph.configuration import Configuration
    from graph.request import DraftRequest
    from graph.run import new_thread_id
    from graph.summary import draft_table

    t0 = time.perf_counter()
    console.print(
        f"{language} sample repository: [bold]{sample.path}[/] at {sample.sha[:12]}",
        soft_wrap=True,
    )
    config = Configuration(generator="offline", max_records=defaults.OFFLINE_MAX_RECORDS)
    request = DraftRequest.pin(
        str(sample.path), sample.sha, data_dir=root, system=system, use_index=not no_index
    )
    result = _execute(console, request, config, thread_id=new_thread_id(sample.sha), resume=False)
    if result.report is None:
        raise DrafterError(f"the demo run of {system} ended without a draft")
    with Snapshot(sample.path, sample.sha) as snap:
        report = verify_report(result.report, snap)
    draft_path, text_path = out_dir / "draft.json", out_dir / "report.txt"
    save_report(report, draft_path, "json")
    save_report(report, text_path, "text")
    console.print(draft_table(report, title=f"Offline draft of the {language} sample ({system})"))
    s = report_summary(report)
    console.print(
        f"witnesses verified: {s.verified}/{s.total}   ({time.perf_counter() - t0:.1f} s)"
    )
    console.print(f"draft JSON: {draft_path}", soft_wrap=True)
    console.print(f"rendered report: [bold]{text_path}[/]", soft_wrap=True)
    return bool(s.ok) and bool(report.records)


def _demo_epistemic(
    console: Console, sample: SampleRepo, runtime_draft: Path, out_dir: Path, root: Path
) -> bool:
    """The demo's second half: the epistemic draft of the sample from its runtime draft;
    True when every witness verified and no table cell was flagged."""
    from drafter.reportio import save_report
    from drafter.verify import report_summary
    from graph.epistemic.workflow import run_epistemic
    from graph.summary import draft_table

    result = run_epistemic(str(sample.path), sample.sha, runtime_draft, data_dir=root)
    json_path, text_path = out_dir / "epistemic.json", out_dir / "epistemic.txt"
    save_report(result.report, json_path, "json")
    save_report(result.report, text_path, "text")
    console.print(draft_table(result.report, title="Offline epistemic draft of the sample"))
    for p in result.problems:
        console.print(f"[red]cell check:[/] {markup_safe(p)}", soft_wrap=True)
    s = report_summary(result.report)
    console.print(f"epistemic witnesses verified: {s.verified}/{s.total}")
    console.print(f"epistemic report: [bold]{markup_safe(str(text_path))}[/]", soft_wrap=True)
    return s.ok and not result.problems
