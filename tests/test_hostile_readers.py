"""Hostile report files and the commands that read them: one line, exit 2, every time.

A draft JSON is untrusted input.  CPython's ``json.loads`` refuses an integer of more
than 4,300 digits with a plain ValueError (not a JSONDecodeError), so a reader that
caught only syntax errors printed a traceback and exited 1.  Every command that reads a
report (or a decisions file) is run here on such a file; a report text with a
5,000-digit line number in a witness anchor is refused the same way, with the anchor
cut short in the message.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from drafter.cli import main
from drafter.reportio import load_report
from drafter.sample import SampleRepo, gold_path

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")

DIGITS = "9" * 5000


def one_line_exit_2(code: int, capsys: pytest.CaptureFixture[str], *needles: str) -> str:
    out = capsys.readouterr()
    assert code == 2, out.err
    assert out.err.count("\n") == 1 and out.err.startswith("drafter: error: "), out.err
    assert "Traceback" not in out.err and len(out.err) < 400, out.err[:400]
    for n in needles:
        assert n in out.err, (n, out.err)
    return out.err


@pytest.fixture()
def big_int_draft(sample: SampleRepo, tmp_path: Path) -> Path:
    """The sample gold as draft JSON, one witness's line number 5,000 digits long."""
    report = load_report(gold_path())
    report.source.repository = str(sample.path)  # type: ignore[union-attr]
    text = report.to_json().replace('"lines": null', f'"lines": {{"start": {DIGITS}, "end": 1}}', 1)
    assert DIGITS in text
    path = tmp_path / "big.json"
    path.write_text(text)
    return path


def _args(cmd: str, draft: Path, repo: Path, tmp: Path) -> list[str]:
    gold = str(gold_path())
    return {
        "parse": ["parse", str(draft)],
        "parse --strict": ["parse", "--strict", str(draft)],
        "render": ["render", str(draft)],
        "verify": ["verify", str(draft), "--repo", str(repo)],
        "reverify": ["reverify", str(draft), "--rev", "HEAD", "--repo", str(repo)],
        "review": ["review", str(draft), "--repo", str(repo), "--export", str(tmp / "x.txt")],
        "redraft": ["redraft", str(draft), "--repo", str(repo), "--offline"],
        "eval --draft": ["eval", "--gold", gold, "--draft", str(draft), "--repo", str(repo)],
        "eval --gold": ["eval", "--gold", str(draft), "--draft", gold, "--repo", str(repo)],
        "draft --runtime": ["draft", str(repo), "--type", "epistemic", "--runtime", str(draft),
                            "--offline", "--out", str(tmp / "epi.json")],
    }[cmd]  # fmt: skip


@pytest.mark.parametrize(
    "cmd",
    ["parse", "parse --strict", "render", "verify", "reverify", "review", "redraft",
     "eval --draft", "eval --gold", "draft --runtime"],
)  # fmt: skip
def test_a_5000_digit_integer_in_a_draft(
    big_int_draft: Path, sample: SampleRepo, tmp_path: Path, cmd: str, capsys
) -> None:
    code = main(_args(cmd, big_int_draft, sample.path, tmp_path))
    one_line_exit_2(code, capsys, "big.json", "more than 4300 digits")


def test_a_5000_digit_integer_in_a_decisions_file(sample: SampleRepo, tmp_path: Path, capsys):
    decisions = tmp_path / "d.jsonl"
    decisions.write_text(
        json.dumps({"record": "RT-CMP-x", "action": "accept"})[:-1] + f', "n": {DIGITS}}}\n'
    )
    code = main(["review", str(gold_path()), "--repo", str(sample.path),
                 "--store", str(tmp_path / "s.sqlite"), "--decisions", str(decisions)])  # fmt: skip
    one_line_exit_2(code, capsys, "d.jsonl:1", "more than 4300 digits")


def test_a_5000_digit_line_number_in_report_text(tmp_path: Path, capsys) -> None:
    text = gold_path().read_text(encoding="utf-8")
    head, sep, tail = text.partition(" --- ")
    path = tail.split("\n", 1)[0]
    damaged = head + sep + tail.replace(path, f"{path}:{DIGITS}-1", 1)
    report = tmp_path / "big.txt"
    report.write_text(damaged)
    err = one_line_exit_2(main(["parse", str(report)]), capsys, "big.txt:", "line number too long")
    assert DIGITS not in err
