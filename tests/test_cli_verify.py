"""``drafter verify`` through the real entry point: exit codes, table, JSON, --write."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from drafter.cli import main
from drafter.model import Report, Source

_DATE = "2024-01-01T00:00:00+0000"
_ENV = {**os.environ, "GIT_AUTHOR_DATE": _DATE, "GIT_COMMITTER_DATE": _DATE}

APP = (
    "MAX_STEPS = 12\n\n\ndef run(client, history):\n    for step in range(MAX_STEPS):\n"
    "        reply = client.complete(history)\n    return reply\n"
)

REPORT = """\
tiny runtime report

Type: agentic-system-analyses/types/agentic-system-runtime-report.md

Runtime account

The loop is bounded.

MAX_STEPS = 12 --- src/app.py

Shared records

Components

Operative objects

Routes

RT-RTE-loop

Label: Agent loop

Endpoints/progression: caller → run → client.

for step in range(MAX_STEPS): reply = client.complete(history) --- src/app.py
{extra}
Claims

Evidenced absences

none declared in this member

Behavioral-authority paths

Annotations

none
"""


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str]:
    r = tmp_path / "repo"
    (r / "src").mkdir(parents=True)
    (r / "src" / "app.py").write_text(APP)

    def git(*args: str) -> str:
        out = subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
            cwd=r,
            env=_ENV,
            check=True,
            capture_output=True,
        )
        return out.stdout.decode().strip()

    git("init", "-q")
    git("add", "src/app.py")
    git("commit", "-q", "-m", "c")
    return r, git("rev-parse", "HEAD")


def _write(tmp_path: Path, extra: str = "") -> Path:
    p = tmp_path / "report.txt"
    p.write_text(REPORT.format(extra=extra), encoding="utf-8")
    return p


def test_all_verified_exits_0_with_table(
    repo: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    r, sha = repo
    code = main(["verify", str(_write(tmp_path)), "--repo", str(r), "--rev", "HEAD"])
    out = capsys.readouterr().out
    assert code == 0
    assert f"Witnesses at {sha[:12]}" in out
    assert "src/app.py:1-1" in out and "src/app.py:5-6" in out
    assert "RT-RTE-loop" in out and "whitespace" in out
    assert out.count("verified") >= 3


def test_miss_exits_1_and_json_reports_it(
    repo: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    r, sha = repo
    report = _write(tmp_path, "\nMAX_STEPS = 13 --- src/app.py\n\nx --- ../etc/passwd\n")
    code = main(["verify", str(report), "--repo", str(r), "--rev", sha[:8], "--json"])
    assert code == 1
    data = json.loads(capsys.readouterr().out)
    assert data["revision"] == sha
    assert data["summary"] == {
        "total": 4,
        "by_status": {"verified": 2, "not_found": 1, "path_missing": 1},
        "by_match": {"exact": 1, "whitespace": 1},
        "ok": False,
    }
    miss = data["witnesses"][2]
    assert miss["where"] == "RT-RTE-loop"
    assert miss["verification"]["status"] == "not_found"
    assert miss["verification"]["nearest"][0]["text"] == "MAX_STEPS = 12"
    assert data["witnesses"][3]["verification"]["status"] == "path_missing"


def test_table_lists_misses_with_nearest(
    repo: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    r, _ = repo
    report = _write(tmp_path, "\nreply = client.complete(histories) --- src/app.py\n")
    assert main(["verify", str(report), "--repo", str(r), "--rev", "HEAD"]) == 1
    out = capsys.readouterr().out
    assert "not_found" in out
    assert "nearest src/app.py:6-6" in out


def test_write_saves_verified_draft(
    repo: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    r, sha = repo
    out = tmp_path / "out" / "verified.json"
    code = main(
        ["verify", str(_write(tmp_path)), "--repo", str(r), "--rev", "HEAD", "--write", str(out)]
    )
    assert code == 0
    saved = Report.from_json(out.read_text())
    assert [w.verification.status.value for w in saved.witnesses] == ["verified", "verified"]
    assert all(w.verification.revision == sha for w in saved.witnesses)
    # the saved draft is valid input again; its JSON names no revision, so --rev is needed
    saved.source = Source(repository="tiny", revision=sha)
    out.write_text(saved.to_json())
    capsys.readouterr()
    assert main(["verify", str(out), "--repo", str(r), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"]["ok"] is True


@pytest.mark.parametrize(
    ("setup", "args", "message"),
    [
        ("binary", ["--rev", "HEAD"], "binary"),
        ("missing", ["--rev", "HEAD"], "no such file"),
        ("json", ["--rev", "HEAD"], "invalid"),
        ("ok", ["--rev", "nope"], "revision 'nope' not found"),
        ("ok", [], "no --rev given"),
        ("norepo", ["--rev", "HEAD"], "does not exist"),
    ],
)
def test_bad_input_exits_2(
    repo: tuple[Path, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    setup: str,
    args: list[str],
    message: str,
) -> None:
    r, _ = repo
    report = _write(tmp_path)
    if setup == "binary":
        report.write_bytes(b"\x00\x01 not a report")
    elif setup == "missing":
        report = tmp_path / "absent.txt"
    elif setup == "json":
        report.write_text('{"schema_version": 1, "system": ')
    repo_arg = str(tmp_path / "nowhere") if setup == "norepo" else str(r)
    code = main(["verify", str(report), "--repo", repo_arg, *args])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1


def test_parser_warnings_go_to_stderr(
    repo: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    r, _ = repo
    report = _write(tmp_path, "\n  • operation conclusion status: maybe\n")
    code = main(["verify", str(report), "--repo", str(r), "--rev", "HEAD", "--json"])
    captured = capsys.readouterr()
    assert code == 0
    assert "warning" in captured.err and "maybe" in captured.err
    assert json.loads(captured.out)["summary"]["ok"] is True


def test_ambiguous_witness_fails_the_check(
    repo: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    r, _ = repo
    report = _write(tmp_path, "\nhistory --- src/app.py\n\nhistory --- src/app.py:6-6\n")
    assert main(["verify", str(report), "--repo", str(r), "--rev", "HEAD"]) == 1
    out = capsys.readouterr().out
    assert "ambiguous" in out and "src/app.py:6-6" in out
    assert "give a line range that picks one" in out
