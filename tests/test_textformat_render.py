"""Rendering models that did not come from text: drafts assembled from model output."""

from __future__ import annotations

import random

import pytest

from drafter.errors import ReportFormatError
from drafter.model import (
    AccountSection,
    Bullet,
    Flag,
    FlagKind,
    Heading,
    LineRange,
    NumberedItem,
    Paragraph,
    Record,
    RecordSection,
    Report,
    ReportType,
    Source,
    Table,
    Verification,
    VerifyStatus,
    Witness,
    WitnessBlock,
)
from drafter.textformat import parse_report, render_markdown, render_text
from drafter.textformat.check import text_round_trip_problems

WORDS = "gate model route score suite harness prompt loop tool reads writes calls".split()


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(3, 12))]
    return " ".join(words).capitalize() + "."


def _blocks(rng: random.Random, n: int) -> list:
    out: list = []
    for _ in range(n):
        kind = rng.choice(["p", "b", "nb", "num", "w", "wr", "status"])
        if kind == "p":
            out.append(Paragraph(text=_sentence(rng)))
        elif kind == "b":
            out.append(Bullet(name="Immediate return", value=_sentence(rng)))
        elif kind == "nb":
            out.append(Bullet(value=_sentence(rng)))
        elif kind == "num":
            out.append(NumberedItem(number=rng.randint(1, 9), text=_sentence(rng)))
        elif kind == "status":
            value = rng.choice(["wired", "afforded", "claimed", "uninspected"])
            out.append(Bullet(name="implementation conclusion status", value=value))
        else:
            lines = LineRange(start=3, end=9) if kind == "wr" else None
            quote = rng.choice(["x = f(y)", "• a list item", "a --- b", "def g(): return 1"])
            out.append(
                WitnessBlock(
                    witness=Witness(quote=quote, path=f"pkg/m{rng.randint(0, 5)}.py", lines=lines)
                )
            )
    return out


def _random_report(seed: int, rtype: ReportType) -> Report:
    rng = random.Random(seed)
    prefix = "RT" if rtype == ReportType.runtime else "EPI"
    kinds = (
        [("Components", "CMP"), ("Operative objects", "OBJ"), ("Routes", "RTE"), ("Claims", "CLM")]
        if rtype == ReportType.runtime
        else [("Operative objects", "OBJ"), ("Routes", "RTE")]
    )
    sections = []
    for title, kind in kinds:
        records = [
            Record(
                id=f"{prefix}-{kind}-r{seed}-{i}",
                label=_sentence(rng).rstrip("."),
                part_of=f"RT-RTE-parent-{i}" if rng.random() < 0.3 else None,
                blocks=_blocks(rng, rng.randint(0, 8)),
            )
            for i in range(rng.randint(0, 3))
        ]
        sections.append(RecordSection(title=title, records=records))
    if rtype == ReportType.runtime:
        sections.insert(
            4, RecordSection(title="Evidenced absences", note="none declared in this member")
        )
    account_blocks = [Heading(text="Scope and invocation"), *_blocks(rng, 5)]
    account_blocks.append(Table(header=["a", "b"], rows=[["1", "2"], ["3", "4"]]))
    title = "Runtime account" if rtype == ReportType.runtime else "Coverage"
    return Report(
        system=f"Sys{seed}",
        type=rtype,
        type_path=f"types/{rtype.value}.md",
        source=Source(repository="github:o/r", revision="b" * 40),
        account=[AccountSection(title=title, blocks=account_blocks)],
        sections=sections,
        annotations="Checked by hand." if seed % 2 else None,
    )


@pytest.mark.parametrize("rtype", list(ReportType))
def test_generated_models_round_trip_exactly(rtype: ReportType) -> None:
    for seed in range(40):
        report = _random_report(seed, rtype)
        text = render_text(report)
        back = parse_report(text).report
        assert back == report, seed
        assert text_round_trip_problems(report) == []
        assert render_text(back) == text


def test_verification_and_flags_are_not_text_but_do_not_break_it() -> None:
    report = _random_report(3, ReportType.runtime)
    rec = next(r for r in report.records if r.witnesses)
    text = "witness dropped after 2 repair rounds"
    rec.flags.append(Flag(kind=FlagKind.witness_dropped, text=text))
    rec.witnesses[0].verification = Verification(status=VerifyStatus.verified, occurrences=1)
    assert text_round_trip_problems(report) == []
    md = render_markdown(report)
    assert "✓ verified" in md and "witness dropped after 2 repair rounds" in md


def test_multiline_model_text_is_folded_and_still_equivalent() -> None:
    report = _random_report(5, ReportType.runtime)
    rec = report.records[0]
    rec.blocks.append(Paragraph(text="first line\nsecond\tline"))
    rec.blocks.append(WitnessBlock(witness=Witness(quote="for x in y:\n    f(x)", path="a.py")))
    text = render_text(report)
    assert "first line second line" in text
    assert "for x in y: f(x) --- a.py" in text
    assert text_round_trip_problems(report) == []


@pytest.mark.parametrize(
    "hostile, rendered",
    [
        ("see the gate --- gating.py", "see the gate — gating.py"),
        ("trailing dashes ---", "trailing dashes —"),
        ("RT-RTE-injected", "(RT-RTE-injected)"),
        ("Routes", "Routes."),
        ("Annotations", "Annotations."),
        ("Shared records", "Shared records."),
    ],
)
def test_model_prose_that_looks_like_structure_is_defused(hostile: str, rendered: str) -> None:
    report = _random_report(7, ReportType.runtime)
    report.records[0].blocks.append(Paragraph(text=hostile))
    text = render_text(report)
    assert rendered in text.split("\n")
    back = parse_report(text)  # must parse: no fake witness, record or section appears
    assert len(back.report.records) == len(report.records)
    assert len(back.report.witnesses) == len(report.witnesses)
    assert back.report.records[0].paragraphs[-1] == rendered
    assert text_round_trip_problems(report) == [f"{report.records[0].id}: reads back differently"]


def test_check_reports_unparseable_rendering() -> None:
    report = _random_report(8, ReportType.runtime)
    report.account[0].blocks.append(WitnessBlock(witness=Witness(quote="q", path="a.py")))
    assert text_round_trip_problems(report) == []
    # a table of one column renders as plain lines: reported, not hidden
    report.account[0].blocks.append(Table(header=["only"], rows=[["one"]]))
    problems = text_round_trip_problems(report)
    assert problems == ["account section 'Runtime account' reads back differently"]


def test_missing_shared_records_heading_is_recovered(gold_dir) -> None:
    text = (gold_dir / "auto-harness.runtime.txt").read_text(encoding="utf-8")
    result = parse_report(text.replace("\nShared records\n", "\n", 1))
    assert any("'Shared records' heading is missing" in w for w in result.warnings)
    assert len(result.report.records) == 17
    assert result.report == parse_report(text).report


def test_label_without_id_is_an_error(gold_dir) -> None:
    text = (gold_dir / "auto-harness.runtime.txt").read_text(encoding="utf-8")
    with pytest.raises(ReportFormatError, match="'Label:' line without a record ID"):
        parse_report(text.replace("RT-CMP-candidate-model\n", "", 1))


def test_ids_in_account_and_bullets_are_left_alone() -> None:
    report = _random_report(9, ReportType.runtime)
    report.account[0].blocks.append(Paragraph(text="RT-RTE-mentioned"))
    report.records[0].blocks.append(Bullet(name="See", value="RT-RTE-other"))
    report.records[0].blocks.append(Bullet(value="Routes"))
    text = render_text(report)
    lines = text.split("\n")
    assert "RT-RTE-mentioned" in lines
    assert "  • See: RT-RTE-other" in lines and "  • Routes" in lines
    assert text_round_trip_problems(report) == []
    assert parse_report(text).report.records == report.records
