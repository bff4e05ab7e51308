"""``drafter parse`` and ``drafter render``: convert between report text and draft JSON.

Parse is how an analyst turns a hand-written report into the canonical JSON the other
commands share; render is the way back, to text for publishing or Markdown for
reading.  Warnings go to stderr so stdout stays machine-readable.
"""

from __future__ import annotations

from pathlib import Path

import click

from drafter import cli_options
from drafter.sanitize import visible

# The report model, parser and renderer are imported inside the commands: ``drafter
# --help`` loads every command module, and must not pay for pydantic to list them.


def _emit(text: str, out: Path | None) -> None:
    from drafter.reportio import atomic_write_text

    if out is None:
        click.echo(text, nl=False)
    else:
        atomic_write_text(out, text)
        click.echo(f"wrote {out}", err=True)


def _warn(warnings: list[str], quiet: bool) -> None:
    if quiet:
        return
    for w in warnings:
        click.echo(f"drafter: warning: {visible(w, keep_newlines=False)}", err=True)


@click.command("parse")
@click.argument("report", type=click.Path(path_type=Path))
@click.option(
    "--out",
    "-o",
    type=click.Path(path_type=Path),
    help="Write the JSON here (atomically) instead of stdout.",
)
@click.option("--strict", is_flag=True, help="Exit 1 when the report raises any warning.")
@cli_options.quiet
def parse_cmd(report: Path, out: Path | None, strict: bool, quiet: bool) -> None:
    """Parse REPORT (report text or draft JSON) and print the report as draft JSON."""
    from drafter.reportio import load_report_with_warnings

    result = load_report_with_warnings(report)
    _warn(result.warnings, quiet)
    _emit(result.report.to_json(), out)
    if strict and result.warnings:
        raise click.exceptions.Exit(1)


@click.command("render")
@click.argument("draft", type=click.Path(path_type=Path))
@click.option(
    "--format",
    "-f",
    "fmt",
    type=click.Choice(["text", "markdown", "json"]),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option(
    "--out",
    "-o",
    type=click.Path(path_type=Path),
    help="Write here (atomically) instead of stdout.",
)
@cli_options.quiet
@cli_options.data_dir_env
def render_cmd(draft: Path, fmt: str, out: Path | None, quiet: bool) -> None:
    """Render DRAFT (draft JSON, or report text) as report text or Markdown."""
    from drafter.reportio import dump_report, load_report_with_warnings
    from drafter.textformat.check import text_round_trip_problems

    result = load_report_with_warnings(draft)
    warnings = list(result.warnings)
    if fmt == "text":
        # model-written prose can look like structure; say where the text will differ
        warnings += [f"{draft}: {p}" for p in text_round_trip_problems(result.report)]
    _warn(warnings, quiet)
    _emit(dump_report(result.report, fmt), out)
