"""load_report / save_report: format detection, refusal of bad files, atomic saves."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from drafter import reportio
from drafter.errors import BadInput, ReportFormatError
from drafter.model import SCHEMA_VERSION, Report
from drafter.reportio import load_report, load_report_with_warnings, save_report

RUNTIME = "auto-harness.runtime.txt"


@pytest.fixture()
def gold_report(gold_dir: Path) -> Report:
    return load_report(gold_dir / RUNTIME)


def test_text_and_json_load_to_the_same_model(tmp_path: Path, gold_report: Report) -> None:
    path = tmp_path / "draft.json"
    save_report(gold_report, path)
    assert path.read_text(encoding="utf-8").lstrip().startswith("{")
    assert load_report(path) == gold_report
    # a JSON file named .txt is still JSON: detection is by content
    other = tmp_path / "draft.txt"
    other.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    assert load_report(other) == gold_report


@pytest.mark.parametrize(
    "suffix, start", [(".txt", "auto-harness runtime report"), (".md", "# auto-harness")]
)
def test_save_format_follows_suffix(
    tmp_path: Path, gold_report: Report, suffix: str, start: str
) -> None:
    path = tmp_path / f"out{suffix}"
    save_report(gold_report, path)
    assert path.read_text(encoding="utf-8").startswith(start)
    if suffix == ".txt":
        assert load_report(path) == gold_report


def test_invalid_json_names_path_and_problem(tmp_path: Path, gold_report: Report) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"system": "x", ', encoding="utf-8")
    with pytest.raises(ReportFormatError, match=r"bad\.json: invalid JSON"):
        load_report(bad)
    data = gold_report.to_json().replace('"type": "runtime"', '"type": "design"', 1)
    bad.write_text(data, encoding="utf-8")
    with pytest.raises(ReportFormatError) as info:
        load_report(bad)
    assert str(bad) in str(info.value) and "type" in str(info.value)
    assert "\n" not in str(info.value)
    bad.write_text(
        gold_report.to_json().replace('"RT-CMP-candidate-model"', '"not an id"'), encoding="utf-8"
    )
    with pytest.raises(ReportFormatError, match="not an id"):
        load_report(bad)
    bad.write_text(
        gold_report.to_json().replace(f'"schema_version": {SCHEMA_VERSION}', '"schema_version": 9'),
        encoding="utf-8",
    )
    with pytest.raises(ReportFormatError, match="schema_version 9 "):
        load_report(bad)


def test_missing_directory_and_huge_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(BadInput, match="no such file"):
        load_report(tmp_path / "nope.txt")
    with pytest.raises(BadInput, match="not a regular file"):
        load_report(tmp_path)
    big = tmp_path / "big.txt"
    with big.open("wb") as f:  # sparse: no 20 MB actually written
        f.truncate(reportio.MAX_REPORT_BYTES + 1)
    with pytest.raises(ReportFormatError, match="refused"):
        load_report(big)


def test_binary_and_non_utf8(tmp_path: Path) -> None:
    binary = tmp_path / "image.txt"
    binary.write_bytes(b"Demo runtime report\n\n\x89PNG\x00\x00\x01")
    with pytest.raises(ReportFormatError) as info:
        load_report(binary)
    assert info.value.line == 3 and "binary" in str(info.value)
    latin = tmp_path / "latin.txt"
    latin.write_bytes("Demo runtime report\n\nType: x\n\ncaf\u00e9\n".encode("latin-1"))
    with pytest.raises(ReportFormatError) as info:
        load_report(latin)
    assert info.value.line == 5 and "not UTF-8" in str(info.value)


def test_warnings_carry_path_and_line(tmp_path: Path, gold_dir: Path) -> None:
    text = (gold_dir / RUNTIME).read_text(encoding="utf-8")
    text = text.replace(
        "operation conclusion status: uninspected", "operation conclusion status: maybe", 1
    )
    path = tmp_path / "odd.txt"
    path.write_text(text, encoding="utf-8")
    result = load_report_with_warnings(path)
    line = next(i for i, s in enumerate(text.split("\n"), 1) if "maybe" in s)
    assert result.warnings == [
        f"{path}:{line}: Runtime account: unknown status value 'maybe' "
        "for 'operation conclusion status' (kept)"
    ]


def test_save_is_atomic_when_writing_fails(
    tmp_path: Path, gold_report: Report, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "draft.json"
    save_report(gold_report, path)
    before = path.read_bytes()

    def boom(*_a: object, **_k: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(reportio.os, "replace", boom)
    changed = gold_report.model_copy(update={"system": "changed"})
    with pytest.raises(OSError, match="disk full"):
        save_report(changed, path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["draft.json"], "no temporary file left behind"


def test_save_survives_a_killed_writer(tmp_path: Path, gold_report: Report) -> None:
    """A process killed in the middle of saving leaves the previous file intact."""
    path = tmp_path / "draft.json"
    save_report(gold_report, path)
    before = path.read_bytes()
    script = (
        "import os, sys\n"
        "from drafter import reportio\n"
        "from drafter.reportio import load_report, save_report\n"
        "r = load_report(sys.argv[1])\n"
        "real_fsync = os.fsync\n"
        "def die(fd):\n"
        "    real_fsync(fd)\n"
        "    os.kill(os.getpid(), 9)\n"
        "reportio.os.fsync = die\n"
        "save_report(r.model_copy(update={'system': 'half'}), sys.argv[1])\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, str(path)], capture_output=True, timeout=60
    )
    assert proc.returncode == -9
    assert path.read_bytes() == before
    assert load_report(path) == gold_report
