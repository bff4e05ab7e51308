"""``drafter redraft DRAFT``: draft again the records an analyst rejected with a reason.

Exit 0 when a new draft was written (or nothing was rejected with a reason), 1 when it
was written but the run stopped short (a ``--max-cost`` or ``--max-tokens-total`` cap
spent, a record not drafted; the rejected version is kept), 2 for unusable input.
With a model the rejected records are requested again with the reason in the request;
offline each is replaced by the next-ranked candidate of its kind.  The endpoint
options are ``drafter draft``'s (``cli_options.endpoint``), with the same meaning.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING

import click

from drafter import cli_options
from drafter.config import data_dir as resolve_data_dir
from drafter.errors import BadInput
from drafter.sanitize import markup_safe
from graph.cli_endpoint import endpoint_options

# the workflow, the store and the model are imported inside the command, so that
# ``drafter --help`` (which loads every command module) stays fast
if TYPE_CHECKING:
    from rich.console import Console

    from graph.configuration import Configuration, EndpointOptions
    from graph.redraft import RedraftResult


@click.command("redraft")
@click.argument("draft", type=click.Path(path_type=Path))
@cli_options.review_store(
    "Decision store (default: the draft's own store); a draft or report path means "
    "that draft's own store."
)
@click.option("--repo", default=None, help="Repository (default: the draft's own folder).")
@cli_options.out_path("New draft (default: DRAFT.redraft.json beside the draft).")
@click.option("--offline", is_flag=True, help="Replace by the next-ranked candidate, no model.")
@cli_options.model
@cli_options.max_cost
@endpoint_options
@cli_options.repair_rounds
@cli_options.no_index
@cli_options.data_dir
@cli_options.chroma
@cli_options.checkpoint
@cli_options.provider
@cli_options.base_url
def redraft_cmd(
    draft: Path,
    store_path: str | None,
    repo: str | None,
    out: Path | None,
    offline: bool,
    model: str | None,
    max_cost: float | None,
    endpoint: EndpointOptions,
    repair_rounds: int,
    no_index: bool,
    data_dir: Path | None,
    chroma_url: str | None,
    checkpoint: str | None,
    provider: str = "anthropic",
    base_url: str | None = None,
) -> None:
    """Redraft the records of DRAFT rejected with a reason; other decisions survive.

    A record rejected without a reason is left alone (only left out of exports).
    """
    from drafter.console import out_console
    from drafter.reportio import check_output_path, load_report
    from drafter.repository import repository_of
    from drafter.review_identity import file_kind, resolve_store
    from drafter.review_store import ReviewStore
    from graph.proposers.factory import build_proposer
    from graph.redraft import run_redraft

    report = load_report(draft)
    if out is not None:  # refused now, not after paying for the redraft
        check_output_path(out)
    repo = repository_of(report, repo, str(draft))
    config = _configuration(
        offline, model, repair_rounds, max_cost, endpoint, provider=provider, base_url=base_url
    )
    console = out_console()
    store_file = resolve_store(store_path, draft, report)
    with ReviewStore(store_file) as store:
        console.print(f"review store: {markup_safe(store.where)}", soft_wrap=True)
        res = run_redraft(
            report,
            store,
            repo,
            config,
            build_proposer,
            fmt=file_kind(draft),
            data_dir=resolve_data_dir(data_dir),
            use_index=not no_index,
            chroma_url=chroma_url,
            checkpoint=checkpoint,
        )
    _say_result(console, res, draft, out, repo)


def _configuration(
    offline: bool,
    model: str | None,
    repair_rounds: int,
    max_cost: float | None,
    endpoint: EndpointOptions,
    *,
    provider: str = "anthropic",
    base_url: str | None = None,
) -> Configuration:
    """The redraft's settings, chosen as ``drafter draft`` chooses them
    (:func:`graph.cli_endpoint.chosen_model`: the same fallback to offline, the same
    provider and endpoint).  Cost cap, prices, token cap and window are turned into
    settings as ``drafter draft`` does (the same default cap for a priced model, the
    same refusals), so a redraft on a local endpoint is bounded like the draft was."""
    from graph.cli_endpoint import chosen_model
    from graph.configuration import Configuration

    generator, chosen = chosen_model(offline, model, provider)
    try:
        return Configuration(
            model=chosen,
            generator=generator,
            repair_rounds=repair_rounds,
            **endpoint.settings(chosen, generator, max_cost, provider),
            provider=provider,
            base_url=base_url,
        )
    except ValueError as exc:
        raise BadInput(str(exc)) from exc


def _say_result(
    console: Console, res: RedraftResult, draft: Path, out: Path | None, repo: str
) -> None:
    """Write the merged draft and say what changed, what it cost, how to review it."""
    from drafter.reportio import save_report
    from graph.costs import summarize, usage_table

    if not res.targets:
        console.print(
            "nothing to redraft: no record is rejected with a reason "
            "(records rejected without one are only left out of the export)"
        )
        return
    out = out or draft.with_name(f"{draft.stem}.redraft.json")
    save_report(res.report, out, "json")
    for line in res.log:
        console.print(f"  - {markup_safe(line)}", soft_wrap=True)  # notes are pasted text
    usage = summarize(res.run.usage if res.run else [])
    if usage:
        console.print(usage_table(usage))
    console.print(
        f"redrafted draft written to [bold]{markup_safe(str(out))}[/] (same review store)",
        soft_wrap=True,
    )
    console.print(
        f"review it with: drafter review {markup_safe(shlex.quote(str(out)))} "
        f"--repo {markup_safe(shlex.quote(str(repo)))}",
        soft_wrap=True,
    )
    _partial(console, res)


def _partial(console: Console, res: RedraftResult) -> None:
    """Exit 1, after saying why, when the run stopped short (a cost or token cap spent,
    a record it could not draft), as ``drafter draft`` does for a partial draft: the
    draft written keeps the rejected version of what was not redrafted."""
    meta = res.run.report.meta if res.run and res.run.report else None
    missing = list(meta.missing) if meta is not None else []
    if not missing:
        return
    console.print(f"[yellow]partial redraft ({len(missing)} gap(s)); exit 1:[/]")
    for m in missing[:20]:
        console.print(f"  - {markup_safe(m, keep_newlines=False)}", soft_wrap=True)
    raise click.exceptions.Exit(1)
