"""``drafter draft`` and ``drafter demo``: the drafting workflow from the command line.

Both run the same LangGraph workflow with a SqliteSaver checkpoint per run; the
thread ID is printed first so that a killed run can be continued with
``drafter draft --resume THREAD`` without paying again for finished model calls.
Without ANTHROPIC_API_KEY (or with ``--offline``) the offline proposer drafts from
the survey alone, which is also what ``drafter demo`` does on the shipped sample.

Environment for the Claude path: ANTHROPIC_API_KEY (required), ANTHROPIC_BASE_URL (read
by the SDK itself: a proxy, or the canned server of the end-to-end tests),
DRAFTER_MODEL, and DRAFTER_RETRY_BASE_SECONDS (first backoff wait, default 1 s).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from drafter.config import data_dir as resolve_data_dir
from drafter.errors import BadInput, DrafterError
from drafter.model import Report
from graph.configuration import Configuration, resolve_model, retry_base_seconds
from graph.costs import summarize, usage_table
from graph.nodes.resources import Resources
from graph.proposer import Proposer
from graph.runner import RunResult, new_thread_id, read_settings, run_draft
from graph.summary import draft_table

MODEL_MAX_RECORDS = 40
#: Offline default sized for one analyst's review; ``--thorough`` keeps the long form.
OFFLINE_MAX_RECORDS = 25
OFFLINE_THOROUGH_MAX_RECORDS = 150
OFFLINE_NOTICE = "drafter: no ANTHROPIC_API_KEY set; drafting offline from the static survey"


def make_proposer(config: Configuration, resources: Resources) -> Proposer:
    """The proposer a configuration names; the key is read here, never stored."""
    if config.generator == "offline":
        from graph.proposers.offline import OfflineProposer
        from graph.proposers.offline.recipe import Limits

        # the offline rules read whole files, not the size-capped texts of a context;
        # they search the index only where it helps (claims), and never wait for it
        # when the run has none
        return OfflineProposer(
            snapshot=resources.snapshot(),
            survey_source=resources.survey,
            search=resources.search if resources.use_index else None,
            limits=Limits.for_run(config.max_records, config.thorough),
        )
    from graph.proposers.claude import ClaudeProposer
    from graph.proposers.claude_client import RetryPolicy

    key = os.environ.get("ANTHROPIC_API_KEY")
    if not key:
        raise BadInput("this run drafts with Claude and needs ANTHROPIC_API_KEY")
    try:
        retry = RetryPolicy(base_delay=retry_base_seconds())
    except ValueError as exc:
        raise BadInput(str(exc)) from exc
    # the SDK takes the endpoint from $ANTHROPIC_BASE_URL when set (proxies, tests)
    return ClaudeProposer(config.model, api_key=key, retry=retry)


class _RunProgress:
    """A rich progress bar fed by the graph's per-node updates."""

    def __init__(self, console: Console):
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        )
        self.task = self.progress.add_task("pinning revision", total=None)

    def __call__(self, node: str, update: dict[str, Any]) -> None:
        p, t = self.progress, self.task
        if node == "plan":
            items = (update.get("plan") or {}).get("items", [])
            p.update(t, description="drafting records", total=len(items), completed=0)
        elif node == "draft_record":
            p.advance(t)
        elif node == "verify":
            pending = update.get("pending") or {}
            desc = f"repairing {len(pending)} record(s)" if pending else "writing the account"
            p.update(t, description=desc)
        elif node in ("resolve_snapshot", "ensure_index", "survey"):
            nxt = {
                "resolve_snapshot": "indexing",
                "ensure_index": "surveying",
                "survey": "planning",
            }
            p.update(t, description=nxt[node])
        elif node == "assemble":
            p.update(t, description="done")


def _execute(
    console: Console,
    repo: str,
    rev: str,
    config: Configuration,
    *,
    thread_id: str,
    resume: bool,
    data_dir: Path | None,
    chroma_url: str | None,
    use_index: bool,
    system: str | None,
    out: Path | None = None,
) -> RunResult:
    verb = "resuming" if resume else "run"
    console.print(
        f"{verb} thread: [bold]{thread_id}[/] (resume with: drafter draft --resume {thread_id})",
        soft_wrap=True,
    )
    bar = _RunProgress(console)
    try:
        with bar.progress:
            return run_draft(
                repo,
                rev,
                config,
                make_proposer,
                thread_id=thread_id,
                resume=resume,
                data_dir=data_dir,
                chroma_url=chroma_url,
                use_index=use_index,
                system=system,
                out=str(out) if out else None,
                on_update=bar,
            )
    except DrafterError as exc:
        raise type(exc)(
            f"{exc} (run {thread_id} is saved; continue with --resume {thread_id})"
        ) from exc


def _finish(console: Console, result: RunResult, out: Path, text_out: Path | None) -> Report:
    from drafter.reportio import save_report

    report = result.report
    if report is None:
        raise DrafterError(f"run {result.thread_id} ended without a draft")
    out.parent.mkdir(parents=True, exist_ok=True)
    save_report(report, out, "json")
    if text_out is not None:
        text_out.parent.mkdir(parents=True, exist_ok=True)
        save_report(report, text_out, "text")
    console.print(draft_table(report))
    if result.replayed:
        console.print(
            f"{result.replayed} model call(s) answered from the run's journal, not paid again"
        )
    usage = summarize(result.usage)
    if usage:
        console.print(usage_table(usage))
    meta = report.meta
    if meta is not None and meta.missing:
        console.print("[yellow]partial draft; missing:[/]")
        for m in meta.missing:
            console.print(f"  - {m}")
    console.print(f"draft written to [bold]{out}[/]", soft_wrap=True)
    if text_out is not None:
        console.print(f"rendered report: [bold]{text_out}[/]", soft_wrap=True)
    return report


@click.command("draft")
@click.argument("repo", required=False)
@click.option(
    "--rev", default="HEAD", show_default=True, help="Revision to pin (branch, tag, SHA)."
)
@click.option(
    "--out", "out", type=click.Path(dir_okay=False, path_type=Path), help="Draft JSON to write."
)
@click.option(
    "--text",
    "text_out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write report text.",
)
@click.option("--offline", is_flag=True, help="Draft from the static survey, without a model.")
@click.option("--model", default=None, help="Claude model (default: $DRAFTER_MODEL or built-in).")
@click.option(
    "--max-cost", type=float, default=None, help="Stop with a partial draft after USD spent."
)
@click.option(
    "--max-records",
    type=int,
    default=None,
    help=f"Records to plan at most (default {MODEL_MAX_RECORDS} with a model, "
    f"{OFFLINE_MAX_RECORDS} offline, {OFFLINE_THOROUGH_MAX_RECORDS} with --thorough).",
)
@click.option(
    "--thorough",
    is_flag=True,
    help="Offline long form: up to "
    f"{OFFLINE_THOROUGH_MAX_RECORDS} records and 8 witnesses each (default: a short, "
    "core-first draft of at most 25 records and 3 witnesses each).",
)
@click.option("--repair-rounds", type=int, default=2, show_default=True)
@click.option("--concurrency", type=int, default=4, show_default=True)
@click.option(
    "--resume", "resume_thread", default=None, help="Continue the run with this thread ID."
)
@click.option("--system", default=None, help="System name for the report title.")
@click.option("--no-index", is_flag=True, help="Skip the Chroma index (no retrieval hits).")
@click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path), default=None)
@click.option("--chroma-url", default=None, help="Chroma server URL (server mode).")
def draft_cmd(
    repo: str | None,
    rev: str,
    out: Path | None,
    text_out: Path | None,
    offline: bool,
    model: str | None,
    max_cost: float | None,
    max_records: int | None,
    thorough: bool,
    repair_rounds: int,
    concurrency: int,
    resume_thread: str | None,
    system: str | None,
    no_index: bool,
    data_dir: Path | None,
    chroma_url: str | None,
) -> None:
    """Draft a runtime report for REPO at --rev, every witness verified."""
    console = Console(stderr=False)
    root = resolve_data_dir(data_dir)
    if resume_thread:
        stored = read_settings(resume_thread, root)
        config = Configuration.from_dict(stored.get("settings") or {})
        out = out or (Path(stored["out"]) if stored.get("out") else None)
        if out is None:
            raise BadInput("--out is required (the run did not record where to write)")
        if config.generator == "offline":
            console.print("drafter: resuming an offline run")
        result = _execute(
            console,
            stored.get("repo", repo or "."),
            stored.get("rev", rev),
            config,
            thread_id=resume_thread,
            resume=True,
            data_dir=root,
            chroma_url=chroma_url,
            use_index=not no_index,
            system=None,
        )
        _finish(console, result, out, text_out)
        return
    if repo is None:
        raise BadInput("REPO is required (or --resume THREAD)")
    if out is None:
        raise BadInput("--out DRAFT.json is required")
    # Pin the revision before a run is recorded: a run that can never start is not
    # worth a thread id the user is told to resume.
    from drafter.snapshot import Snapshot

    Snapshot(repo, rev).close()
    generator = "claude"
    if offline:
        generator = "offline"
    elif not os.environ.get("ANTHROPIC_API_KEY"):
        click.echo(OFFLINE_NOTICE, err=True)
        generator = "offline"
    if max_records is None:
        max_records = MODEL_MAX_RECORDS
        if generator == "offline":
            max_records = OFFLINE_THOROUGH_MAX_RECORDS if thorough else OFFLINE_MAX_RECORDS
    try:
        config = Configuration(
            model=resolve_model(model),
            generator=generator,
            max_records=max_records,
            repair_rounds=repair_rounds,
            max_cost=max_cost,
            concurrency=concurrency,
            thorough=thorough,
        )
    except ValueError as exc:
        raise BadInput(str(exc)) from exc
    result = _execute(
        console,
        repo,
        rev,
        config,
        thread_id=new_thread_id(rev),
        resume=False,
        data_dir=root,
        chroma_url=chroma_url,
        use_index=not no_index,
        system=system,
        out=out,
    )
    _finish(console, result, out, text_out)


@click.command("demo")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for the sample repository, draft and report (default: data dir/demo).",
)
@click.option("--no-index", is_flag=True, help="Skip the Chroma index.")
def demo_cmd(out_dir: Path | None, no_index: bool) -> None:
    """The main job on the shipped sample, offline: index, survey, draft, verify, render."""
    from drafter.reportio import save_report
    from drafter.sample import materialize
    from drafter.snapshot import Snapshot
    from drafter.verify import report_summary, verify_report

    t0 = time.perf_counter()
    console = Console()
    root = resolve_data_dir(None)
    out_dir = (out_dir or root / "demo").resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    sample = materialize(out_dir / "sample-repo")
    console.print(f"sample repository: [bold]{sample.path}[/] at {sample.sha[:12]}", soft_wrap=True)
    config = Configuration(generator="offline", max_records=OFFLINE_MAX_RECORDS)
    result = _execute(
        console,
        str(sample.path),
        sample.sha,
        config,
        thread_id=new_thread_id(sample.sha),
        resume=False,
        data_dir=root,
        chroma_url=None,
        use_index=not no_index,
        system="tinkerbot",
    )
    if result.report is None:
        raise DrafterError("the demo run ended without a draft")
    with Snapshot(sample.path, sample.sha) as snap:
        report = verify_report(result.report, snap)
    draft_path, text_path = out_dir / "draft.json", out_dir / "report.txt"
    save_report(report, draft_path, "json")
    save_report(report, text_path, "text")
    console.print(draft_table(report, title="Offline draft of the shipped sample"))
    s = report_summary(report)
    console.print(
        f"witnesses verified: {s.verified}/{s.total}   ({time.perf_counter() - t0:.1f} s)"
    )
    console.print(f"draft JSON: {draft_path}", soft_wrap=True)
    console.print(f"rendered report: [bold]{text_path}[/]", soft_wrap=True)
    if not s.ok:
        raise click.exceptions.Exit(1)
