"""Hangs: no input makes the survey, the chunker or the loaders run unbounded.

The shape that hung: one line ``z = f(f(f(…1…)))`` thousands of calls deep, where
finding each call's enclosing symbol walked its parents and tree-sitter found each
parent from the root (work about the cube of the depth).  A file past the depth or
time cap is skipped and reported as skipped.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from gitrepo import commit

from drafter.cli import main
from drafter.snapshot import Snapshot
from retrieval.chunking import chunk_file
from retrieval.survey.runner import run_survey
from retrieval.survey.source import _parser, parse_python

DRAFTER = str(Path(sys.executable).parent / "drafter")


def nested(depth: int) -> str:
    return "def f(x):\n    return x\n\nz = " + "f(" * depth + "1" + ")" * depth + "\n"


def _repo(tmp: Path, depth: int) -> tuple[Path, str]:
    ok = "import subprocess\n\n\ndef run():\n    subprocess.run(['ls'])\n"
    return tmp / "r", commit(tmp / "r", {"deep.py": nested(depth), "ok.py": ok})


@pytest.mark.parametrize("depth", [250, 1000, 3000])
def test_survey_cli_on_deep_nesting_finishes_fast(tmp_path: Path, depth: int) -> None:
    repo, sha = _repo(tmp_path, depth)
    t = time.monotonic()
    p = subprocess.run(
        [DRAFTER, "survey", str(repo), "--rev", sha, "--json"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    took = time.monotonic() - t
    assert p.returncode == 0, p.stderr[-2000:]
    assert took < 20, f"{depth} deep took {took:.1f} s"
    data = json.loads(p.stdout)
    assert any(f["path"] == "ok.py" for f in data["findings"])  # the rest is surveyed
    if depth <= 250:  # moderate nesting is still surveyed, not skipped
        assert data["skipped"] == [] and data["python_files"] == 2


@pytest.mark.parametrize("depth", [1000, 3000])
def test_too_deep_file_is_reported_as_skipped(tmp_path: Path, depth: int) -> None:
    repo, sha = _repo(tmp_path, depth)
    with Snapshot(repo, sha) as snap:
        survey = run_survey(snap)
    skipped = {s.path: s.reason for s in survey.skipped}
    assert "nested deeper" in skipped["deep.py"]
    assert any("deep.py: skipped" in n for n in survey.notices)
    assert survey.python_files == 1


def test_depth_walk_is_iterative_and_stops_at_the_cap() -> None:
    from retrieval.survey.source import MAX_TREE_DEPTH, tree_depth

    root = _parser().parse(nested(20_000).encode()).root_node
    assert tree_depth(root, MAX_TREE_DEPTH) == MAX_TREE_DEPTH + 1  # no RecursionError
    assert tree_depth(_parser().parse(b"x = 1\n").root_node, MAX_TREE_DEPTH) < 10


@pytest.mark.parametrize("depth", [5, 300, 599, 600, 601, 2000])
def test_the_pruned_depth_check_agrees_with_the_full_walk(depth: int) -> None:
    """``deeper_than`` enters only subtrees big enough to reach past the cap; its verdict
    is the full walk's at caps just under, at and over the tree's depth."""
    from retrieval.languages.facts import deeper_than, tree_depth

    text = "def f(a):\n    if a:\n        return g(a, [1, 2])\n" + nested(depth)
    root = _parser().parse(text.encode()).root_node
    full = tree_depth(root, 10**6)
    for cap in (0, 1, full - 1, full, full + 1, 600):
        assert deeper_than(root, cap) == (tree_depth(root, cap) > cap), (full, cap)


def test_per_file_time_budget_skips_a_slow_file() -> None:
    from retrieval.survey.source import FileTooComplex

    with pytest.raises(FileTooComplex, match="longer than"):
        parse_python("slow.py", nested(200), budget_seconds=0.0)


@pytest.mark.parametrize("depth", [1000, 3000, 20_000])
def test_chunker_is_bounded_on_deep_nesting(depth: int) -> None:
    t = time.monotonic()
    result = chunk_file("deep.py", nested(depth))
    assert time.monotonic() - t < 5
    assert result is not None


def test_chunker_is_bounded_on_deep_blocks() -> None:
    text = "".join(" " * i + "if x:\n" for i in range(400)) + " " * 400 + "pass\n"
    t = time.monotonic()
    chunk_file("blocks.py", text)
    assert time.monotonic() - t < 5


def test_offline_draft_on_deep_nesting_finishes(tmp_path: Path, capsys) -> None:
    repo, sha = _repo(tmp_path, 3000)
    out = tmp_path / "d.json"
    t = time.monotonic()
    args = ["draft", str(repo), "--rev", sha, "--offline", "--no-index", "--out", str(out)]
    assert main([*args, "--data-dir", str(tmp_path / "data")]) == 0, capsys.readouterr().err
    assert time.monotonic() - t < 30 and out.exists()


@pytest.mark.parametrize("opener", ["[", '{"a":'])
def test_deeply_nested_draft_json_is_one_line_error(tmp_path: Path, capsys, opener: str) -> None:
    bad = tmp_path / "deep.json"
    bad.write_text('{"schema_version": 1, "sections": [], "x": ' + opener * 100_000)
    assert main(["parse", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "deep.json" in err


def test_many_moderately_deep_lines_are_surveyed_not_skipped() -> None:
    """Under the depth cap, work is about linear in depth (memoised ancestors), so a file
    of twenty 200-deep lines is surveyed in well under the per-file budget."""
    text = "".join(f"z{i} = " + "f(" * 200 + "1" + ")" * 200 + "\n" for i in range(20))
    t = time.monotonic()
    pf = parse_python("many.py", text)
    assert time.monotonic() - t < 5
    assert len(pf.calls) == 20 * 200
