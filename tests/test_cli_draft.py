"""``drafter draft`` and ``drafter demo`` through the real CLI entry point."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from drafter.cli import main
from drafter.model import Report


def _thread(out: str) -> str:
    m = re.search(r"thread: (draft-[0-9a-f]+)", out)
    assert m, out
    return m.group(1)


def test_draft_without_key_goes_offline_with_notice(sample, tmp_path: Path, capsys) -> None:
    out = tmp_path / "d.json"
    code = main(["draft", str(sample.path), "--rev", sample.sha, "--out", str(out), "--no-index"])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    assert cap.err.count("drafting offline") == 1
    report = Report.from_json(out.read_text())
    assert report.meta.generator == "offline"
    assert report.records and all(w.verified for w in report.witnesses)
    thread = _thread(cap.out)
    assert "draft written to" in cap.out

    # resuming a finished run asks nothing new and writes the same records to the stored --out
    out.unlink()
    code = main(["draft", "--resume", thread])
    cap2 = capsys.readouterr()
    assert code == 0, cap2.err
    again = Report.from_json(out.read_text())
    assert [r.id for r in again.records] == [r.id for r in report.records]


def test_offline_flag_wins_over_a_key(sample, tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "not-used")
    out = tmp_path / "d.json"
    text = tmp_path / "d.txt"
    code = main(
        [
            "draft",
            str(sample.path),
            "--rev",
            "HEAD",
            "--out",
            str(out),
            "--offline",
            "--no-index",
            "--text",
            str(text),
            "--max-records",
            "5",
        ]
    )
    cap = capsys.readouterr()
    assert code == 0, cap.err
    assert "drafting offline" not in cap.err
    report = json.loads(out.read_text())
    assert report["meta"]["generator"] == "offline"
    assert len([r for s in report["sections"] for r in s["records"]]) <= 5
    assert (
        text.read_text().startswith("tinkerbot runtime report")
        or "runtime report" in text.read_text()
    )


@pytest.mark.parametrize(
    "args, message",
    [
        (["--rev", "no-such-rev"], "no-such-rev"),
        (["--rev", "HEAD", "--max-records", "0"], "max_records"),
        (["--rev", "HEAD", "--out", None], "--out"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(sample, tmp_path: Path, capsys, args, message) -> None:
    argv = ["draft", str(sample.path), *[a for a in args if a is not None]]
    if "--out" not in args:
        argv += ["--out", str(tmp_path / "x.json")]
    else:
        argv.remove("--out")
    code = main(argv)
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert message in err and len(err.splitlines()) <= 2  # the offline notice may precede it


def test_unknown_revision_is_bad_input_and_records_no_run(sample, tmp_path: Path, capsys) -> None:
    out = str(tmp_path / "d.json")
    code = main(["draft", str(sample.path), "--rev", "no-such-rev", "--out", out])
    cap = capsys.readouterr()
    assert code == 2
    assert "revision 'no-such-rev' not found" in cap.err
    assert "resume" not in cap.err and "thread" not in cap.out
    assert not (tmp_path / "d.json").exists()


def test_resume_of_unknown_thread_is_bad_input(capsys) -> None:
    assert main(["draft", "--resume", "draft-00000000"]) == 2
    assert "no run" in capsys.readouterr().err


def test_demo_materialises_drafts_verifies_and_renders(tmp_path: Path, capsys) -> None:
    code = main(["demo", "--out", str(tmp_path / "demo")])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    draft = tmp_path / "demo" / "draft.json"
    text = tmp_path / "demo" / "report.txt"
    assert f"rendered report: {text}" in cap.out
    report = Report.from_json(draft.read_text())
    assert report.witnesses and all(w.verified for w in report.witnesses)
    assert "Shared records" in text.read_text()
    assert "witnesses verified" in cap.out
    # the TypeScript sample is drafted too, in its own folder, and verifies
    ts_draft = tmp_path / "demo" / "typescript" / "draft.json"
    assert f"rendered report: {tmp_path / 'demo' / 'typescript' / 'report.txt'}" in cap.out
    ts_report = Report.from_json(ts_draft.read_text())
    assert ts_report.system == "shellwright"
    assert ts_report.witnesses and all(w.verified for w in ts_report.witnesses)
    assert "Python sample" in cap.out and "TypeScript sample" in cap.out
