"""Silent wrong results: input that used to be read as something else, without a word.

A witness whose path has a space, draft JSON without ``sections`` or with a string or
boolean ``schema_version``, an unknown account sub-section, a line shaped like a
witness that does not parse: each is now read correctly, refused with its line, or
warned about.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gitrepo import commit

from drafter.cli import main
from drafter.errors import ReportFormatError
from drafter.model import RecordSection, Report, ReportType, Source, Witness, WitnessBlock
from drafter.reportio import report_from_json
from drafter.textformat import parse_report, render_text
from drafter.textformat.lines import classify, format_witness

HEAD = (
    "Sys runtime report\n\nType: agentic-system-analyses/types/agentic-system-runtime-report.md\n"
)


def _report_text(witness_line: str, extra_account: str = "") -> str:
    return (
        f"{HEAD}\nRuntime account\n\nScope and ordinary invocation\n\nIt runs.\n\n"
        f"{witness_line}\n{extra_account}\nShared records\n\nClaims\n\nRT-CLM-x\n\n"
        "Label: X\n\nClaimed operation: it runs.\n\nAnnotations\n\nnone\n"
    )


@pytest.mark.parametrize(
    "path", ["with space.py", "dir with space/a b.py", 'q"uote d.py', "two  spaces .py"]
)
def test_witness_path_with_spaces_round_trips(path: str) -> None:
    w = Witness(quote="x = 1", path=path)
    line = format_witness(w)
    got = classify(line)
    assert got.kind == "witness" and got.witness is not None
    assert (got.witness.path, got.witness.quote) == (path, "x = 1")


def test_witness_path_with_spaces_and_range_round_trips() -> None:
    from drafter.model import LineRange

    w = Witness(quote="x = 1", path="a b/c d.py", lines=LineRange(start=3, end=4))
    got = classify(format_witness(w)).witness
    assert got is not None and got.path == "a b/c d.py" and str(got.lines) == "3-4"


@pytest.mark.parametrize(
    "line",
    [
        "x = 1 --- with space.py",
        "x = 1 --- dir/with space.py:3-4",
        "def f(): --- my folder/agent.py",
    ],
)
def test_unquoted_spaced_path_is_an_error_with_its_line(line: str) -> None:
    with pytest.raises(ReportFormatError) as err:
        parse_report(_report_text(line))
    assert ":11:" in str(err.value)
    assert "double quotes" in str(err.value)


def test_prose_with_a_dash_is_still_prose() -> None:
    text = _report_text("The loop runs --- and then it stops for good.")
    rep = parse_report(text).report
    assert not rep.witnesses


def test_verify_exits_nonzero_on_a_spaced_witness(tmp_path: Path, capsys) -> None:
    repo = tmp_path / "r"
    sha = commit(repo, {"with space.py": "x = 1\n", "b.py": "y = 2\n"})
    report = tmp_path / "r.txt"
    report.write_text(_report_text("y = 2 --- b.py\n\nx = 1 --- with space.py"))
    assert main(["verify", str(report), "--repo", str(repo), "--rev", sha]) == 2
    assert "with space.py" in capsys.readouterr().err


def test_quoted_spaced_witness_verifies(tmp_path: Path, capsys) -> None:
    repo = tmp_path / "r"
    sha = commit(repo, {"with space.py": "x = 1\n"})
    report = tmp_path / "r.txt"
    report.write_text(_report_text('x = 1 --- "with space.py"'))
    capsys.readouterr()
    assert main(["verify", str(report), "--repo", str(repo), "--rev", sha, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert summary["total"] == 1 and summary["by_status"].get("verified") == 1, summary


def test_rendered_spaced_witness_reads_back() -> None:
    rep = Report(
        system="S",
        type=ReportType.runtime,
        source=Source(id="SRC-1", repository="r", revision="a" * 40),
        sections=[RecordSection(title="Claims", records=[])],
    )
    rep.account = []
    from drafter.model import AccountSection

    rep.account.append(
        AccountSection(
            title="Runtime account",
            blocks=[WitnessBlock(witness=Witness(quote="x = 1", path="a b.py"))],
        )
    )
    back = parse_report(render_text(rep)).report
    assert back.witnesses[0].path == "a b.py"


def _draft(**change: object) -> str:
    data = {"schema_version": 1, "system": "S", "type": "runtime", "sections": []}
    data.update(change)
    return json.dumps({k: v for k, v in data.items() if v is not ...})


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"sections": ...}, "sections"),
        ({"schema_version": ...}, "schema_version"),
        ({"schema_version": "1"}, "schema_version"),
        ({"schema_version": True}, "schema_version"),
        ({"schema_version": 1.0}, "schema_version"),
        ({"schema_version": 3}, "schema_version"),
        ({"sections": {}}, "sections"),
        ({"system": 5}, "system"),
        ({"sections": [{"title": "Claims", "records": "none"}]}, "records"),
    ],
)
def test_draft_json_is_validated_strictly(change: dict[str, object], needle: str) -> None:
    with pytest.raises(ReportFormatError) as err:
        report_from_json(_draft(**change), where="d.json")
    assert needle in str(err.value) and "\n" not in str(err.value)


def test_a_valid_minimal_draft_still_loads() -> None:
    assert report_from_json(_draft()).system == "S"


def test_draft_without_sections_is_exit_2_not_an_empty_report(tmp_path: Path, capsys) -> None:
    d = tmp_path / "d.json"
    d.write_text(_draft(sections=...))
    assert main(["render", str(d)]) == 2
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("title", ["Secret instructions", "Hidden appendix"])
def test_unknown_account_subsection_warns_with_its_line(title: str) -> None:
    res = parse_report(_report_text("", extra_account=f"\n{title}\n\nMore text.\n"))
    hits = [w for w in res.warnings if title in w and "unknown sub-section" in w]
    assert len(hits) == 1 and ":13:" in hits[0]


def test_known_account_subsections_do_not_warn() -> None:
    res = parse_report(_report_text(""))
    assert not [w for w in res.warnings if "sub-section" in w]


def test_raw_control_character_in_report_text_is_an_error_naming_the_escape() -> None:
    with pytest.raises(ReportFormatError) as err:
        parse_report(_report_text("x\x1b[2J --- a.py"))
    assert "U+001B" in str(err.value) and ":11:" in str(err.value)
