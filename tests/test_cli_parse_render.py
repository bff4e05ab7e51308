"""``drafter parse`` and ``drafter render`` through the real entry point."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from drafter.cli import main
from drafter.model import SCHEMA_VERSION, Paragraph, Report
from drafter.textformat import parse_report

RUNTIME = "auto-harness.runtime.txt"
EPISTEMIC = "hyperagents.epistemic.txt"


@pytest.mark.parametrize("name", [RUNTIME, EPISTEMIC])
def test_parse_then_render_reproduces_gold(
    gold_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    assert main(["parse", str(gold_dir / name)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    data = json.loads(out)
    assert data["schema_version"] == SCHEMA_VERSION
    draft = tmp_path / "draft.json"
    draft.write_text(out, encoding="utf-8")
    assert (
        Report.from_json(out) == parse_report((gold_dir / name).read_text(encoding="utf-8")).report
    )

    assert main(["render", str(draft)]) == 0
    text, _ = capsys.readouterr()
    assert text == (gold_dir / name).read_text(encoding="utf-8").rstrip("\n") + "\n"


def test_render_markdown_to_file(
    gold_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    draft = tmp_path / "draft.json"
    assert main(["parse", str(gold_dir / RUNTIME), "--out", str(draft)]) == 0
    capsys.readouterr()
    md = tmp_path / "report.md"
    assert main(["render", str(draft), "--format", "markdown", "--out", str(md)]) == 0
    out, err = capsys.readouterr()
    assert out == "" and f"wrote {md}" in err
    body = md.read_text(encoding="utf-8")
    assert body.startswith("# auto-harness runtime report\n")
    assert "#### RT-RTE-gate-admission" in body
    assert "> — `agent/helpers/bird_interact/bird_adk_runtime.py:180-207`" in body


def test_parse_warnings_go_to_stderr_and_strict_fails(
    gold_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (
        (gold_dir / RUNTIME)
        .read_text(encoding="utf-8")
        .replace("status: wired", "status: maybe", 1)
    )
    odd = tmp_path / "odd.txt"
    odd.write_text(text, encoding="utf-8")
    assert main(["parse", str(odd)]) == 0
    out, err = capsys.readouterr()
    json.loads(out)
    assert err.count("drafter: warning:") == 1 and "'maybe'" in err
    assert main(["parse", "--strict", "-q", str(odd)]) == 1
    out, err = capsys.readouterr()
    assert err == ""


@pytest.mark.parametrize(
    "content, needle",
    [
        (b"", "report is empty"),
        (
            b"Demo runtime report\n\nType: x\n\nShared records\n\n"
            b"Gadgets\n\nRT-CMP-a\n\nLabel: a\n",
            ":7: unknown record section",
        ),
        (b"\x7fELF\x02\x01\x00\x00", "binary"),
        (b'{"system": 1}', "invalid draft JSON"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, needle: str
) -> None:
    path = tmp_path / "in.txt"
    path.write_bytes(content)
    for cmd in ("parse", "render"):
        assert main([cmd, str(path)]) == 2
        out, err = capsys.readouterr()
        assert out == ""
        assert err.startswith("drafter: error: ") and err.count("\n") == 1
        assert needle in err


def test_missing_file_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["render", str(tmp_path / "absent.json")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_console_script_subprocess(gold_dir: Path, tmp_path: Path) -> None:
    exe = Path(sys.executable).with_name("drafter")
    cmd = (
        [str(exe)] if exe.exists() else [sys.executable, "-c", "from drafter.cli import run; run()"]
    )
    parsed = subprocess.run(
        [*cmd, "parse", str(gold_dir / EPISTEMIC)], capture_output=True, text=True, timeout=120
    )
    assert parsed.returncode == 0, parsed.stderr
    draft = tmp_path / "d.json"
    draft.write_text(parsed.stdout, encoding="utf-8")
    rendered = subprocess.run(
        [*cmd, "render", str(draft)], capture_output=True, text=True, timeout=120
    )
    assert rendered.returncode == 0, rendered.stderr
    assert " ".join(rendered.stdout.split()) == " ".join(
        (gold_dir / EPISTEMIC).read_text(encoding="utf-8").split()
    )
    bad = subprocess.run(
        [*cmd, "render", str(tmp_path / "none.json")], capture_output=True, text=True, timeout=120
    )
    assert bad.returncode == 2 and bad.stderr.startswith("drafter: error:")


def test_render_warns_where_text_will_differ(
    gold_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = parse_report((gold_dir / RUNTIME).read_text(encoding="utf-8")).report
    report.record("RT-CLM-timeout-failure").blocks.append(Paragraph(text="RT-RTE-gate-admission"))
    draft = tmp_path / "d.json"
    draft.write_text(report.to_json(), encoding="utf-8")
    assert main(["render", str(draft)]) == 0
    out, err = capsys.readouterr()
    assert "(RT-RTE-gate-admission)" in out
    assert "RT-CLM-timeout-failure: reads back differently" in err
    assert main(["render", str(draft), "--format", "markdown"]) == 0
    assert capsys.readouterr().err == ""
