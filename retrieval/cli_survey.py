"""``drafter survey REPO --rev REV [--json] [--all]``: the static survey, summary first.

The survey comes from the data dir's survey cache when the revision was surveyed (by
``draft`` or an earlier ``survey``) with the same survey code.  On a terminal it prints
the summary (counts per category, the call graph's size, notices) and the table of
findings only with ``--all``: a large repository has thousands of rows, and the summary
must not scroll away under them.  To a pipe or a file the table follows the summary.
The JSON is the full :class:`retrieval.survey.Survey`, including the call graph.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from drafter import cli_options
from drafter.sanitize import json_safe, markup_safe, one_line, plain
from retrieval.categories import CATEGORIES

# the survey (tree-sitter) and Rich's tables are imported inside the command, so that
# ``drafter --help`` (which loads every command module) stays fast
if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from retrieval.survey import Survey


@click.command("survey")
@click.argument("repo")
@click.option(
    "--rev", default="HEAD", show_default=True, help="Revision to survey (branch, tag or SHA)."
)
@click.option("--json", "as_json", is_flag=True, help="Print the whole survey as JSON on stdout.")
@click.option(
    "--category",
    "categories",
    multiple=True,
    type=click.Choice(list(CATEGORIES)),
    help="Show only these categories (repeatable).",
)
@click.option(
    "--all",
    "show_all",
    is_flag=True,
    help="Also print the table of every finding on a terminal (always printed to a pipe).",
)
@cli_options.data_dir_env
def survey_cmd(
    repo: str, rev: str, as_json: bool, categories: tuple[str, ...], show_all: bool
) -> None:
    """Survey REPO at REV: entry points, model calls, tools, effects, writes, prompts, gates."""
    from drafter.config import data_dir
    from drafter.console import out_console
    from drafter.snapshot import Snapshot
    from retrieval.survey.cache import cached_survey

    with Snapshot(repo, rev) as snap:
        progress = not as_json and sys.stderr.isatty()
        survey = cached_survey(snap, data_dir() / "surveys", progress=progress)
    if categories:
        survey.findings = [f for f in survey.findings if f.category in categories]
    if as_json:
        click.echo(json_safe(survey.model_dump_json(indent=2)))
        return
    console = out_console()
    _summary(console, survey)
    if show_all or not console.is_terminal:
        console.print(_table(survey))
    elif survey.findings:
        console.print(f"({len(survey.findings)} findings: --all prints them as a table)")


def _table(survey: Survey) -> Table:
    from rich.table import Table
    from rich.text import Text

    table = Table(
        title=f"Survey of {markup_safe(survey.repository)} @ {survey.revision[:12]}",
        show_lines=False,
    )
    table.add_column("category", style="bold")
    table.add_column("path:lines", style="cyan", no_wrap=True)
    table.add_column("symbol", style="magenta")
    table.add_column("snippet")
    for f in survey.findings:
        table.add_row(
            f"{f.category}/{f.kind}",
            plain(f.anchor, keep_newlines=False),
            plain(f.symbol, keep_newlines=False),
            Text(one_line(f.snippet, 100)),  # one_line already made controls visible
        )
    return table


def _summary(console: Console, survey: Survey) -> None:
    counts: dict[str, int] = {}
    for f in survey.findings:
        counts[f.category] = counts.get(f.category, 0) + 1
    summary = ", ".join(f"{c} {counts[c]}" for c in CATEGORIES if c in counts) or "no findings"
    surveyed = [s for s in survey.languages if s.supported and s.surveyed]
    if any(s.name != "python" for s in surveyed):
        files = ", ".join(f"{s.surveyed} {s.label}" for s in surveyed)
        head = f"{files} files of {survey.files_total}"
    else:
        head = f"{survey.python_files} Python files of {survey.files_total}"
    console.print(
        f"survey of {markup_safe(survey.repository)} @ {survey.revision[:12]}: "
        f"{head}; "
        f"{len(survey.findings)} findings ({summary}); "
        f"call graph: {len(survey.call_graph.functions)} functions, "
        f"{sum(len(v) for v in survey.call_graph.edges.values())} edges (best effort)"
    )
    for n in survey.notices:
        console.print(f"[yellow]notice:[/] {markup_safe(n, keep_newlines=False)}")
