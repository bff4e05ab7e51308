"""Malformed and unusual report text: clear errors with line numbers, warnings, no drops."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from drafter.errors import ReportFormatError
from drafter.model import Bullet, Paragraph, Table
from drafter.textformat import parse_report, render_text

HEAD = """\
Demo runtime report

Type: agentic-system-analyses/types/agentic-system-runtime-report.md

Runtime account

The loop calls a model.

Shared records

Components

RT-CMP-model

Label: The model

Source-native identity: m. Representational form: weights. Storage substrate: remote.

client.create(model=MODEL) --- agent/loop.py
"""

TAIL = """
Annotations

none
"""


def _parse(text: str):
    return parse_report(text, where="r.txt")


def _error(text: str) -> ReportFormatError:
    with pytest.raises(ReportFormatError) as info:
        _parse(text)
    err = info.value
    assert "\n" not in str(err), "error messages are one line"
    return err


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.split("\n"), start=1) if needle in line)


def test_minimal_report_parses_cleanly() -> None:
    result = _parse(HEAD + TAIL)
    rep = result.report
    assert rep.system == "Demo"
    assert [r.id for r in rep.records] == ["RT-CMP-model"]
    assert rep.records[0].witnesses[0].path == "agent/loop.py"
    # only the five record sections that were not written are reported, nothing else
    assert all("is missing" in w for w in result.warnings)
    assert len(result.warnings) == 5


def test_unknown_section_where_records_expected() -> None:
    text = HEAD.replace("Components\n", "Gadgets\n")
    err = _error(text)
    assert err.line == _line_of(text, "Gadgets")
    assert "unknown record section 'Gadgets'" in str(err)
    assert str(err).startswith(f"r.txt:{err.line}: ")


def test_unknown_section_between_records() -> None:
    text = HEAD + "\nWidget registry\n\nRT-CMP-other\n\nLabel: Other\n" + TAIL
    err = _error(text)
    assert err.line == _line_of(text, "Widget registry")
    assert "Widget registry" in str(err)


def test_record_before_any_section_heading() -> None:
    text = HEAD.replace("Components\n\n", "")
    err = _error(text)
    assert err.line == _line_of(text, "RT-CMP-model")


def test_record_without_label() -> None:
    text = HEAD.replace("Label: The model\n", "The model, unlabelled.\n")
    err = _error(text)
    assert err.line == _line_of(text, "The model, unlabelled.")
    assert "RT-CMP-model has no label" in str(err)


def test_record_with_empty_label() -> None:
    text = HEAD.replace("Label: The model", "Label:")
    err = _error(text)
    assert err.line == _line_of(text, "Label:")


def test_record_followed_directly_by_next_record_has_no_label() -> None:
    text = HEAD + "\nRT-CMP-second\n\nRT-CMP-third\n\nLabel: Third\n" + TAIL
    err = _error(text)
    assert "RT-CMP-second has no 'Label:'" in str(err)
    assert err.line == _line_of(text, "RT-CMP-third")


@pytest.mark.parametrize(
    "line, problem",
    [
        ("client.create(model=MODEL) --- ", "no path"),
        ("client.create(model=MODEL) ---", "no path"),
        ("--- agent/loop.py", "no quote"),
        ("client.create(model=MODEL) --- agent/loop.py:20-10", "ends before it starts"),
    ],
)
def test_bad_witness_lines(line: str, problem: str) -> None:
    text = HEAD.replace("client.create(model=MODEL) --- agent/loop.py", line)
    err = _error(text)
    assert err.line == _line_of(text, line.strip())
    assert problem in str(err)


def test_witness_uses_last_separator_and_single_token() -> None:
    text = HEAD.replace(
        "client.create(model=MODEL) --- agent/loop.py",
        "a --- b --- agent/loop.py:3-4\n\nthis --- is prose with a dash, not a witness",
    )
    rec = _parse(text).report.records[0]
    [w] = rec.witnesses
    assert (w.quote, w.path, w.lines.start, w.lines.end) == ("a --- b", "agent/loop.py", 3, 4)
    assert rec.paragraphs[-1] == "this --- is prose with a dash, not a witness"


def test_single_line_anchor_is_read_with_a_warning() -> None:
    text = HEAD.replace("--- agent/loop.py", "--- agent/loop.py:7")
    result = _parse(text)
    w = result.report.records[0].witnesses[0]
    assert (w.path, w.lines.start, w.lines.end) == ("agent/loop.py", 7, 7)
    assert any("single line number" in x for x in result.warnings)


@pytest.mark.parametrize("cut", ["RT-CMP-model\n", "RT-CMP-model\n\n"])
def test_truncated_inside_record_before_label(cut: str) -> None:
    text = HEAD[: HEAD.index("RT-CMP-model")] + cut
    err = _error(text)
    assert "truncated" in str(err)
    assert "RT-CMP-model" in str(err)


def test_truncated_after_title() -> None:
    err = _error("Demo runtime report\n\nType: x\n")
    assert "truncated" in str(err)


def test_nul_and_control_characters() -> None:
    text = HEAD.replace("The loop calls a model.", "The loop\x00 calls")
    err = _error(text)
    assert err.line == _line_of(text, "The loop")
    assert "NUL" in str(err)
    err = _error(HEAD + "\x01\x02" + TAIL)
    assert "control character" in str(err)


def test_replacement_characters_are_kept_and_flagged() -> None:
    text = HEAD.replace("weights", "wei\ufffdghts")
    result = _parse(text + TAIL)
    assert "wei\ufffdghts" in result.report.records[0].paragraphs[0]
    assert any(w.startswith(f"r.txt:{_line_of(text, 'wei')}: U+FFFD") for w in result.warnings)


@pytest.mark.parametrize("text", ["", "   \n\n\t\n"])
def test_empty(text: str) -> None:
    err = _error(text)
    assert "empty" in str(err)


@pytest.mark.parametrize("title", ["Demo design report", "Just some text", "Demo report"])
def test_unknown_report_type(title: str) -> None:
    err = _error(HEAD.replace("Demo runtime report", title))
    assert err.line == 1


def test_invalid_record_id() -> None:
    text = HEAD.replace("RT-CMP-model", "RT-XYZ-model")
    err = _error(text)
    assert err.line == _line_of(text, "RT-XYZ-model")


def test_unknown_status_value_is_kept_and_flagged() -> None:
    text = (
        HEAD
        + "\n  • implementation conclusion status: maybe\n\nOperation conclusion status: perhaps.\n"
    )
    result = _parse(text + TAIL)
    rec = result.report.records[0]
    assert rec.status("implementation conclusion status") == "maybe"
    assert rec.status("operation conclusion status") == "perhaps"
    flagged = [w for w in result.warnings if "unknown status value" in w]
    assert len(flagged) == 2
    assert flagged[0].startswith(f"r.txt:{_line_of(text, 'maybe')}: ")
    assert "'maybe'" in flagged[0]


def test_duplicate_id_and_wrong_kind_warn() -> None:
    dup = HEAD + "\nRT-CMP-model\n\nLabel: again\n\nRoutes\n\nRT-CMP-misplaced\n\nLabel: x\n" + TAIL
    result = _parse(dup)
    assert [r.id for r in result.report.records] == [
        "RT-CMP-model",
        "RT-CMP-model",
        "RT-CMP-misplaced",
    ]
    assert any("duplicate record ID RT-CMP-model" in w for w in result.warnings)
    wrong = [w for w in result.warnings if "RT-CMP-misplaced (CMP) is in section 'Routes'" in w]
    assert wrong and wrong[0].startswith(f"r.txt:{_line_of(dup, 'RT-CMP-misplaced')}:")


def test_epistemic_prefix_in_runtime_report_warns() -> None:
    result = _parse(HEAD.replace("RT-CMP-model", "EPI-CMP-model") + TAIL)
    assert any("prefix EPI in a runtime report" in w for w in result.warnings)


def test_bad_part_of_is_kept_as_text() -> None:
    text = HEAD.replace("Label: The model\n", "Label: The model\n\nPart of: the loop\n")
    result = _parse(text + TAIL)
    rec = result.report.records[0]
    assert rec.part_of is None
    assert rec.paragraphs[0] == "Part of: the loop"
    assert any("not a record ID" in w for w in result.warnings)


def test_ragged_table_warns_and_keeps_cells() -> None:
    text = HEAD.replace("The loop calls a model.", "a\tb\tc\n1\t2\n3\t4\t5\t6")
    result = _parse(text + TAIL)
    [table] = result.report.account[0].tables
    assert table.header == ["a", "b", "c"]
    assert table.rows == [["1", "2"], ["3", "4", "5", "6"]]
    assert sum("cells" in w for w in result.warnings) == 2


def test_unusual_text_is_kept_as_paragraphs() -> None:
    odd = HEAD + (
        "\nsome words\nwrapped onto a second line\n\n"
        "  • a bullet\n    continued on the next line\n\n"
        "  • Name:value without space\n\n"
        "- a dash item\n"
    )
    result = _parse(odd + TAIL)
    rec = result.report.records[0]
    assert "some words wrapped onto a second line" in rec.paragraphs
    bullets = [b for b in rec.blocks if isinstance(b, Bullet)]
    assert bullets[0].value == "a bullet continued on the next line"
    assert bullets[1].name is None and bullets[1].value == "Name:value without space"
    assert "- a dash item" in rec.paragraphs
    assert all(isinstance(b, Paragraph | Bullet | Table) or b.type == "witness" for b in rec.blocks)


def test_crlf_and_bom_read_like_lf() -> None:
    lf = _parse(HEAD + TAIL).report
    crlf = _parse("\ufeff" + (HEAD + TAIL).replace("\n", "\r\n")).report
    assert crlf == lf


def test_missing_type_line_assumes_standard_and_is_stable() -> None:
    text = HEAD.replace(
        "Type: agentic-system-analyses/types/agentic-system-runtime-report.md\n", ""
    )
    result = _parse(text + TAIL)
    assert any("no 'Type:' line" in w for w in result.warnings)
    assert _parse(render_text(result.report)).report == result.report


def test_source_line_round_trips() -> None:
    sha = "a" * 40
    text = HEAD.replace(
        "\nRuntime account", f"\nSource: SRC-1 github:o/r at {sha}\n\nRuntime account"
    )
    rep = _parse(text + TAIL).report
    assert rep.source is not None
    assert (rep.source.repository, rep.source.revision) == ("github:o/r", sha)
    assert _parse(render_text(rep)).report == rep


def _gold_variants(gold_dir: Path):
    for name in ("auto-harness.runtime.txt", "hyperagents.epistemic.txt"):
        lines = (gold_dir / name).read_text(encoding="utf-8").split("\n")
        for n in range(1, len(lines) + 1, 3):
            yield name, "\n".join(lines[:n])  # truncated after line n
            yield name, "\n".join(lines[: n - 1] + lines[n:])  # line n deleted


def test_damaged_gold_never_crashes_or_drops_text(gold_dir: Path) -> None:
    """Every truncation / line deletion of the gold files either parses or raises
    ReportFormatError; when it parses, every word of the input is in the rendering
    and the rendering parses back to the same model."""
    parsed = errors = 0
    for name, text in _gold_variants(gold_dir):
        try:
            result = parse_report(text, where=name)
        except ReportFormatError as exc:
            assert str(exc).startswith(f"{name}:")
            errors += 1
            continue
        parsed += 1
        out = render_text(result.report)
        assert not Counter(text.split()) - Counter(out.split()), name
        assert parse_report(out).report == result.report
    assert parsed > 100 and errors > 10
