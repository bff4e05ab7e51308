"""Small friction of #34: help for every option that had none, a mistyped draft path
said as such without a terminal, and a resumed run's progress counted from its plan."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from drafter.cli import cli, main
from drafter.sample import SampleRepo


@pytest.mark.parametrize(("command", "flag"), [("draft", "--repair-rounds"),
                                               ("draft", "--concurrency"),
                                               ("redraft", "--repair-rounds")])  # fmt: skip
def test_the_options_have_help(command: str, flag: str) -> None:
    out = CliRunner().invoke(cli, [command, "--help"], terminal_width=200).output
    line = next(x for x in out.splitlines() if flag in x)
    assert len(line.split(flag, 1)[1].strip()) > 25, line  # more than a type and a default


def test_review_of_a_mistyped_path_without_a_terminal_says_so(tmp_path: Path, capsys) -> None:
    code = main(["review", str(tmp_path / "drfat.json"), "--repo", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "drfat.json: file does not exist" in err and "terminal" not in err


_KILL_AFTER_THREE = """
import os, signal, sys
import graph.nodes.draft_record as dr
real = dr.draft_record
seen = []
def counting(state, runtime):
    if len(seen) == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    seen.append(1)
    return real(state, runtime)
dr.draft_record = counting
import graph.builder as b
b.draft_record = counting
from drafter.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.filterwarnings("ignore::ResourceWarning")
def test_a_resumed_run_counts_its_records_from_the_plan(sample: SampleRepo, tmp_path: Path):
    env = {**os.environ, "DRAFTER_DATA_DIR": str(tmp_path / "data"), "COLUMNS": "200"}
    args = ["draft", str(sample.path), "--rev", sample.sha, "--offline", "--no-index",
            "--concurrency", "1", "--out", str(tmp_path / "a.json")]  # fmt: skip
    p = subprocess.run([sys.executable, "-c", _KILL_AFTER_THREE, *args],
                       capture_output=True, text=True, timeout=300, env=env)  # fmt: skip
    assert p.returncode == -9, p.stderr[-2000:]
    thread = re.search(r"run thread: (draft-[0-9a-f]+)", p.stdout)
    assert thread
    code = "import sys; from drafter.cli import main; sys.exit(main(sys.argv[1:]))"
    r = subprocess.run([sys.executable, "-c", code, "draft", "--resume", thread.group(1)],
                       capture_output=True, text=True, timeout=300, env=env)  # fmt: skip
    assert r.returncode == 0, r.stderr[-2000:]
    counts = re.findall(r"drafting records (\d+)/(\S+)", r.stdout)
    assert counts and all(total != "?" for _, total in counts), r.stdout
    assert int(counts[-1][0]) == int(counts[-1][1])  # ends at the plan's size


@pytest.mark.parametrize("command", ["survey", "index", "search"])
def test_survey_and_draft_word_a_bad_repository_alike(command: str, tmp_path: Path, capsys):
    afile = tmp_path / "afile"
    afile.write_text("x")
    extra = ["q"] if command == "search" else []
    assert main([command, str(afile), *extra]) == 2
    got = capsys.readouterr().err
    assert main(["draft", str(afile), "--out", str(tmp_path / "d.json")]) == 2
    assert (
        got
        == capsys.readouterr().err
        == f"drafter: error: repository '{afile}' is not a directory\n"
    )
