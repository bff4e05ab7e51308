"""``drafter eval``: score a draft against a gold report, or run a suite of such scores."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from drafter.errors import BadInput, DrafterError
from drafter.snapshot import Snapshot
from evals.alignment import DEFAULT_THRESHOLD
from evals.evaluate import evaluate
from evals.gold import load
from evals.html import write_html
from evals.similarity import BACKENDS
from evals.suite import (
    comparison_table,
    load_suite,
    previous_run,
    results_dir,
    run_suite,
    save_run,
    suite_table,
)


class SuiteItemsFailed(DrafterError):
    """Some items could not be scored: the check failed (exit 1), the input was fine."""

    exit_code = 1


def _console(stderr: bool) -> Console:
    """A console that does not squeeze the 15-column table when output is piped."""
    console = Console(stderr=stderr)
    if not console.is_terminal:
        console.width = max(console.width, 160)
    return console


def _progress(console: Console) -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )


@click.command("eval")
@click.option("--gold", type=click.Path(path_type=Path), help="Gold report (text or JSON).")
@click.option("--draft", type=click.Path(path_type=Path), help="Draft (JSON or report text).")
@click.option("--repo", help="Repository: work tree, .git dir or bare repository.")
@click.option("--rev", help="Revision the witnesses are located at.")
@click.option("--json", "as_json", is_flag=True, help="Print the scorecard as JSON on stdout.")
@click.option(
    "--html", "html_out", type=click.Path(path_type=Path), help="Write an HTML page here."
)
@click.option("--out", "json_out", type=click.Path(path_type=Path), help="Also save the JSON here.")
@click.option(
    "--threshold",
    type=click.FloatRange(0.0, 1.0),
    default=None,
    help=f"Alignment threshold on the combined similarity (default {DEFAULT_THRESHOLD}).",
)
@click.option(
    "--similarity",
    type=click.Choice(sorted(BACKENDS)),
    default=None,
    help="Text similarity: local embeddings (default) or TF-IDF.",
)
@click.option("--pairs/--no-pairs", default=True, help="Show the aligned pairs table.")
@click.option("--suite", "suite_file", type=click.Path(path_type=Path), help="Run a suite (TOML).")
@click.option(
    "--results",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where suite runs are saved (default: the data dir's evals/).",
)
def eval_cmd(
    gold: Path | None,
    draft: Path | None,
    repo: str | None,
    rev: str | None,
    as_json: bool,
    html_out: Path | None,
    json_out: Path | None,
    threshold: float | None,
    similarity: str | None,
    pairs: bool,
    suite_file: Path | None,
    results: Path | None,
) -> None:
    """Score DRAFT against GOLD at REPO@REV: record alignment per kind, witness
    recall/precision/validity, status agreement and route fields.

    Records are paired one to one per kind by an optimal assignment over a score that
    mixes text similarity of label and body with witness overlap (same file 0.25,
    overlapping lines 1.0); pairs below the threshold are left unmatched.
    """
    if suite_file is not None:
        if any(x is not None for x in (gold, draft, repo, rev, html_out, json_out)):
            raise BadInput(
                "--suite runs its own items: drop --gold/--draft/--repo/--rev/--html/--out"
            )
        _run_suite(suite_file, results, as_json, threshold, similarity)
        return
    missing = [
        n
        for n, v in (("--gold", gold), ("--draft", draft), ("--repo", repo), ("--rev", rev))
        if v is None
    ]
    if missing:
        raise BadInput(f"missing {', '.join(missing)} (or give --suite FILE)")
    assert gold is not None and draft is not None and repo is not None and rev is not None
    console = _console(as_json)
    gold_report = load(gold, "gold")
    draft_report = load(draft, "draft")
    with Snapshot(repo, rev) as snap, _progress(Console(stderr=True)) as bar:

        def progress(total: int) -> Callable[[], None]:
            task = bar.add_task("locating witnesses", total=total)
            return lambda: bar.advance(task)

        card = evaluate(
            gold_report,
            draft_report,
            snap,
            similarity=similarity or "embed",
            threshold=DEFAULT_THRESHOLD if threshold is None else threshold,
            progress=progress,
            gold_name=str(gold),
            draft_name=str(draft),
        )
    from evals.epistemic import with_tables

    card_json, tables = with_tables(card)
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(card_json, encoding="utf-8")
    if html_out is not None:
        write_html(card, html_out)
    if as_json:
        click.echo(card_json, nl=False)
    else:
        card.render(console, pairs=pairs)
        if tables is not None:
            console.print(tables)
        if html_out is not None:
            console.print(f"HTML: {html_out}")


def _run_suite(
    path: Path, results: Path | None, as_json: bool, threshold: float | None, similarity: str | None
) -> None:
    suite = load_suite(path)
    if threshold is not None:
        suite = replace(suite, threshold=threshold)
    if similarity is not None:
        suite = replace(suite, similarity=similarity)
    console = _console(as_json)
    directory = results_dir(results)
    with _progress(Console(stderr=True)) as bar:
        task = bar.add_task("suite", total=len(suite.items))
        items = run_suite(
            suite,
            started=lambda name: bar.update(task, description=f"item {name}"),
            finished=lambda _name: bar.advance(task),
        )
    saved = save_run(suite, items, directory)
    before = previous_run(suite, directory, exclude=saved)
    if as_json:
        click.echo(saved.read_text(encoding="utf-8"), nl=False)
    else:
        console.print(suite_table(suite, items))
        if before is not None:
            console.print(comparison_table(items, before))
        else:
            console.print("no earlier run of this suite to compare with")
        console.print(f"saved: {saved}")
    failed = [r.name for r in items if r.error]
    if failed:
        raise SuiteItemsFailed(f"{len(failed)} suite item(s) failed: {', '.join(failed)}")
