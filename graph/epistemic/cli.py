"""``drafter draft --type epistemic``: run the epistemic workflow and write the draft.

Exit codes: 0 written and clean; 1 written, but a witness or a table cell failed its
check (the problems are printed and kept in the draft's notes); 2 bad input.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click
from rich.console import Console

from drafter.errors import BadInput
from drafter.reportio import load_report, save_report
from drafter.sanitize import markup_safe
from drafter.verify import report_summary
from graph.costs import usage_table
from graph.epistemic.proposer import EpistemicProposerBase
from graph.epistemic.workflow import EpiResult, run_epistemic
from graph.summary import draft_table, say_review_store


def make_epistemic_proposer(
    offline: bool,
    model: str | None,
    budgets: dict[str, int] | None = None,
    announce: Callable[[str], None] | None = None,
) -> EpistemicProposerBase:
    """Offline with --offline or without ANTHROPIC_API_KEY (said on stderr), else Claude
    (the choice and the building are :mod:`graph.proposers.factory`'s)."""
    from graph.epistemic.factory import build_epistemic_proposer
    from graph.proposers.factory import choose

    choice = choose(offline)
    if choice.notice:
        click.echo(choice.notice, err=True)
    return build_epistemic_proposer(choice.generator, model, budgets, announce)


def _cost_cap(model: str | None, max_cost: float | None) -> float | None:
    """The epistemic run's USD cap: refused for a model without a price (one line,
    exit 2), the default for a Claude model, none for an unpriced one."""
    from drafter.providers import DEFAULT
    from graph.configuration import DEFAULT_MAX_COST, resolve_model
    from graph.pricing import provider_price, unpriced_cap_error

    chosen = resolve_model(model)
    if provider_price(DEFAULT, chosen) is None:
        if max_cost is not None:
            raise BadInput(unpriced_cap_error(chosen))
        return None
    return DEFAULT_MAX_COST if max_cost is None else max_cost


def _same_system(repo: str, rev: str, runtime_path: Path, allow_mismatch: bool) -> None:
    """Refuse a runtime input of another system or revision (unless allowed): it would
    give an epistemic draft titled after one system and sourced at another's revision."""
    from drafter.provenance import enforce, mismatch
    from drafter.snapshot import Snapshot

    with Snapshot(repo, rev) as snap:
        sha = snap.sha
    there = ("runtime", load_report(runtime_path))
    enforce(mismatch(there, (f"repository {repo}", None), pinned=sha), allow_mismatch)


def _say_store(console: Console, store: str, runtime_path: Path) -> None:
    """Say which review store limits the runtime records (the locator redacted)."""
    from drafter.review_identity import resolve_store
    from drafter.store_locator import redact

    found = resolve_store(store, runtime_path, load_report(runtime_path))
    console.print(
        f"runtime records: only those accepted in {markup_safe(redact(str(found)))}",
        soft_wrap=True,
    )


def draft_epistemic(
    console: Console,
    repo: str | None,
    rev: str,
    runtime_path: Path | None,
    store: str | None,
    out: Path | None,
    text_out: Path | None,
    system: str | None,
    data_dir: Path,
    *,
    offline: bool = True,
    model: str | None = None,
    max_cost: float | None = None,
    resume_thread: str | None = None,
    budgets: dict[str, int] | None = None,
    estimate_only: bool = False,
    allow_mismatch: bool = False,
) -> EpiResult | None:
    if resume_thread is not None:
        return resume_epistemic(console, resume_thread, data_dir, out, text_out)
    if repo is None:
        raise BadInput("REPO is required")
    if runtime_path is None:
        raise BadInput("--type epistemic needs --runtime RUNTIME (a runtime draft or report)")
    if out is None and not estimate_only:
        raise BadInput("--out DRAFT.json is required")
    _same_system(repo, rev, runtime_path, allow_mismatch)
    if estimate_only or out is None:
        print_estimate(
            console,
            repo,
            rev,
            runtime_path,
            store,
            system,
            data_dir,
            model=model,
            budgets=budgets,
            max_cost=max_cost,
        )
        return None
    proposer = make_epistemic_proposer(offline, model, budgets, _announcer(console))
    if proposer.name == "claude":
        max_cost = _cost_cap(model, max_cost)
    proposer.max_cost = max_cost
    settings = {
        "generator": proposer.name,
        "model": model,
        "max_cost": max_cost,
        "budgets": budgets or {},
        "out": str(out),
        "text_out": str(text_out) if text_out else None,
    }
    if store is not None:
        _say_store(console, store, runtime_path)
    result = run_epistemic(
        repo,
        rev,
        runtime_path,
        store=store,
        system=system,
        data_dir=data_dir,
        proposer=proposer,
        max_cost=max_cost,
        settings=settings,
        on_saved=lambda tid: console.print(
            f"run {tid} saved; if it stops, continue with: drafter draft --resume {tid}",
            soft_wrap=True,
        ),
    )
    return _write(console, result, out, text_out)


def print_estimate(
    console: Console,
    repo: str,
    rev: str,
    runtime_path: Path,
    store: str | None,
    system: str | None,
    data_dir: Path,
    *,
    model: str | None,
    budgets: dict[str, int] | None,
    max_cost: float | None,
) -> None:
    """``--estimate``: plan the run as Claude would and print the range; no call, no key."""
    from graph.epistemic.factory import claude_epistemic_proposer
    from graph.epistemic.workflow import plan_epistemic

    cap = _cost_cap(model, max_cost)
    proposer = claude_epistemic_proposer(model, budgets, estimate_only=True)
    plan_epistemic(repo, rev, runtime_path, proposer, store=store, system=system, data_dir=data_dir)
    assert proposer.estimate is not None
    console.print(markup_safe(proposer.estimate.line(cap)), soft_wrap=True)


def _announcer(console: Console) -> Callable[[str], None]:
    return lambda line: console.print(markup_safe(line), soft_wrap=True)


def resume_epistemic(
    console: Console, thread: str, data_dir: Path, out: Path | None, text_out: Path | None
) -> EpiResult:
    """``--resume epi-…``: the stored inputs and settings; answered calls are replayed."""
    from graph.epistemic.workflow import stored_run

    stored = stored_run(thread, data_dir)
    settings = dict(stored.get("settings") or {})
    claude = settings.get("generator") == "claude"
    from graph.proposers.factory import API_KEY_ENV, api_key

    if claude and not api_key():
        raise BadInput(f"run {thread} was drafted with Claude: resuming needs {API_KEY_ENV}")
    out = out or (Path(settings["out"]) if settings.get("out") else None)
    if out is None:
        raise BadInput("--out is required (the run did not record where to write)")
    if text_out is None and settings.get("text_out"):
        text_out = Path(settings["text_out"])
    proposer = make_epistemic_proposer(
        not claude, settings.get("model"), settings.get("budgets"), _announcer(console)
    )
    proposer.max_cost = settings.get("max_cost")
    result = run_epistemic(
        stored["repo"],
        stored["rev"],
        stored["runtime_path"],
        data_dir=data_dir,
        proposer=proposer,
        max_cost=settings.get("max_cost"),
        resume_thread=thread,
    )
    return _write(console, result, out, text_out)


def _write(console: Console, result: EpiResult, out: Path, text_out: Path | None) -> EpiResult:
    save_report(result.report, out, "json")
    if text_out is not None:
        save_report(result.report, text_out, "text")
    console.print(draft_table(result.report, title="Epistemic draft"))
    if result.report.meta is not None and result.report.meta.usage:
        console.print(usage_table(result.report.meta.usage))
    for p in result.problems:
        what = "partial draft" if p.startswith("missing (") else "cell check"
        console.print(f"[red]{what}:[/] {markup_safe(p)}", soft_wrap=True)
    s = report_summary(result.report)
    console.print(f"witnesses verified: {s.verified}/{s.total}; thread {result.thread_id}")
    console.print(f"draft written to [bold]{markup_safe(str(out))}[/]", soft_wrap=True)
    say_review_store(console, out, result.report)
    if result.problems or not s.ok:
        raise click.exceptions.Exit(1)
    return result


def demo_epistemic(
    console: Console, repo: Path, sha: str, runtime_draft: Path, out_dir: Path, data_dir: Path
) -> bool:
    """The demo's second half: the epistemic draft of the sample from its runtime draft.

    Returns True when every witness verified and no table cell was flagged.
    """
    result = run_epistemic(str(repo), sha, runtime_draft, data_dir=data_dir)
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
