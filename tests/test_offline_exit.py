"""An offline draft that prints "partial draft" exits 1, as the README says."""

from __future__ import annotations

import click
import pytest
from rich.console import Console

from drafter.model import (
    KIND_SECTION,
    DraftMeta,
    Paragraph,
    Record,
    RecordSection,
    Report,
    ReportType,
    Source,
    Witness,
    WitnessBlock,
)
from graph.cli import _outcome
from graph.outcome import problems


def _report(missing: list[str]) -> Report:
    w = Witness(quote="x = 1", path="a.py")
    rec = Record(id="RT-CMP-a", label="a", blocks=[Paragraph(text="p"), WitnessBlock(witness=w)])
    sections = [RecordSection(title=KIND_SECTION["CMP"], records=[rec])]
    return Report(
        system="s",
        type=ReportType.runtime,
        source=Source(repository="r", revision="0" * 40),
        sections=sections,
        meta=DraftMeta(generator="offline", missing=missing),
    )


def test_offline_partial_draft_exits_1() -> None:
    console = Console(record=True, width=200)
    missing = ["RT-OBJ-scores-base (Scores and selection in base.py): dropped, the proposer"]
    with pytest.raises(click.exceptions.Exit) as exc:
        _outcome(console, _report(missing))
    assert exc.value.exit_code == 1
    assert "RT-OBJ-scores-base" in console.export_text()


def test_offline_whole_draft_does_not_fail() -> None:
    _outcome(Console(record=True), _report([]))


def test_the_rule_reads_the_draft_not_the_generator_name() -> None:
    """The same draft, once marked as a model's: its unverified witness is now a gap,
    whatever its ``generator`` says."""
    report = _report([])
    assert report.meta is not None
    report.meta.model = "some-model"
    assert problems(report) == ["RT-CMP-a kept no verified witness"]
    report.meta.model, report.meta.generator = None, "claude"
    assert problems(report) == []
