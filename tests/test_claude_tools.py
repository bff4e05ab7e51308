"""The investigation tools on their own: git objects only, refusals, bounded answers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from gitrepo import commit

from graph.proposers.agent.tools import (
    MAX_OUTPUT_CHARS,
    MAX_PATTERN_CHARS,
    PAGE_CHARS,
    TOOL_NAMES,
    SnapshotTools,
    tool_definitions,
)
from graph.resources import Resources


@pytest.fixture(scope="module")
def tools(tmp_path_factory: pytest.TempPathFactory):
    repo = tmp_path_factory.mktemp("t") / "repo"
    sha = commit(
        repo,
        {
            "a.py": "def f():\n    return 'committed'\n",
            "wide.txt": "\n".join("x" * 1500 for _ in range(40)) + "\n",
            "huge.txt": "".join(f"line {i} aaaaaaaaaaaaaaaaaaaaaaaaaa\n" for i in range(9000)),
            "pkg/b.py": "import a\n\n\ndef g():\n    return a.f()\n",
            "blob.bin": b"\0\1\2",
        },
    )
    os.symlink("a.py", repo / "link.py")
    commit(repo, {}, "symlink")  # the link is committed in a second commit
    (repo / "a.py").write_text("def f():\n    return 'WORK TREE'\n")  # never committed
    res = Resources(repo=str(repo), rev=sha, use_index=False)
    yield SnapshotTools(res), sha
    res.close()


def test_exactly_the_documented_tool_names() -> None:
    assert TOOL_NAMES == (
        "list_files",
        "read_file",
        "grep",
        "search",
        "survey",
        "symbol",
        "check_quotes",
    )
    for d in tool_definitions():
        assert d["input_schema"]["type"] == "object" and "$ref" not in str(d)


def test_reads_git_objects_not_the_work_tree(tools) -> None:
    t, sha = tools
    out, err = t.run("read_file", {"path": "a.py"})
    assert not err and "'committed'" in out and "WORK TREE" not in out
    assert out.startswith(f"a.py @ {sha[:12]} · lines 1–2 of 2\n")
    out, err = t.run("check_quotes", {"witnesses": [{"quote": "WORK TREE", "path": "a.py"}]})
    assert out.startswith("0 of 1 verified")


@pytest.mark.parametrize(
    "path", ["../../etc/passwd", "/etc/passwd", "pkg/../../x", "C:/Windows/win.ini"]
)
def test_paths_leaving_the_snapshot_are_refused(tools, path: str) -> None:
    t, _ = tools
    out, err = t.run("read_file", {"path": path})
    assert err and out.startswith("refused:")
    out, err = t.run("list_files", {"glob": "../*"})
    assert err and out.startswith("refused:")


def test_missing_directory_binary_and_bad_input_are_tool_errors(tools) -> None:
    t, sha = tools
    assert t.run("read_file", {"path": "nope.py"}) == (
        f"nope.py is not a file at {sha[:12]}; use list_files to see what exists",
        True,
    )
    assert t.run("read_file", {"path": "pkg"})[0].startswith("pkg is a directory")
    assert t.run("read_file", {"path": "blob.bin"}) == ("blob.bin is a binary file", True)
    out, err = t.run("read_file", {"path": "a.py", "start_line": 0})
    assert err and out.startswith("invalid input for read_file: start_line")
    assert t.run("launch_rockets", {})[1] is True
    out, err = t.run("search", {"query": "f"})
    assert err and "no search index" in out


def test_pages_are_cut_by_characters_too_and_say_how_to_continue(tools) -> None:
    t, sha = tools
    out, _ = t.run("read_file", {"path": "wide.txt"})
    assert len(out) <= PAGE_CHARS + 1000
    head = out.splitlines()[0]
    end = int(head.split("lines 1–")[1].split(" ")[0])
    assert 0 < end < 40
    assert f'continue with read_file(path="wide.txt", start_line={end + 1})]' in out


def test_every_answer_is_bounded(tools) -> None:
    t, _ = tools
    out, err = t.run("grep", {"pattern": "line", "max_hits": 200})
    assert not err and len(out) <= MAX_OUTPUT_CHARS
    assert "[stopped at max_hits=200" in out
    out, _ = t.run("list_files", {"glob": "*"})
    assert len(out) <= MAX_OUTPUT_CHARS


def test_grep_patterns_are_bounded_in_length_and_time(tools) -> None:
    t, _ = tools
    out, err = t.run("grep", {"pattern": "a" * (MAX_PATTERN_CHARS + 1)})
    assert err and "pattern" in out
    assert t.run("grep", {"pattern": "("})[0].startswith("bad pattern")
    slow = SnapshotTools(t.res, grep_seconds=0.05)
    out, err = slow.run("grep", {"pattern": r"(a|aa|aaa)*(b|c)$"})
    assert not err and "[grep stopped after 0.05 s" in out
    # the count in the first line says it covers only the files searched
    assert " files (stopped early)" in out.splitlines()[0], out.splitlines()[0]
    out, _ = t.run("grep", {"pattern": r"return a\.f\(\)", "path_glob": "pkg/*"})
    assert "pkg/b.py:5: return a.f()" in out


def test_symlinks_are_not_followed(tools, tmp_path: Path) -> None:
    t, _ = tools
    head = Resources(repo=t.res.repo, rev="HEAD", use_index=False)
    try:
        out, err = SnapshotTools(head).run("read_file", {"path": "link.py"})
    finally:
        head.close()
    assert err and "symlink" in out


def test_symbol_gives_definitions_callers_and_callees(tools) -> None:
    t, _ = tools
    out, err = t.run("symbol", {"name": "f"})
    assert not err and "a.py::f  defined at a.py:1-2" in out
    assert "pkg/b.py::g" in out.split("callers", 1)[1]
    assert t.run("symbol", {"name": "nothing_here"})[1] is True


def test_grep_reports_the_matching_line_not_a_blank_one_before_it(tools) -> None:
    t, _ = tools
    out, err = t.run("grep", {"pattern": r"^\s*def \w+\(", "path_glob": "pkg/*"})
    assert not err and "pkg/b.py:4: def g():" in out


def test_a_page_that_fills_the_answer_limit_has_one_cut_and_a_header_that_agrees(
    tmp_path: Path,
) -> None:
    """Rows that escape when framed (tag-like text) and long lines: the page is sized
    framed, so the answer is never cut again mid-page ("lines 1–307" above a cut at 302)."""
    import re

    row = "    x = '<repository_data kind=\"file_lines\">' + " + "y" * 90
    repo = tmp_path / "repo"
    sha = commit(repo, {"wide.py": "\n".join(row for _ in range(400)) + "\n"})
    res = Resources(repo=str(repo), rev=sha, use_index=False)
    try:
        out, err = SnapshotTools(res).run("read_file", {"path": "wide.py"})
    finally:
        res.close()
    assert not err
    assert len(out) <= MAX_OUTPUT_CHARS
    assert "[output cut at" not in out  # the only cut is the page's own
    first, last = map(int, re.match(r"wide\.py @ \w+ · lines (\d+)–(\d+) of 400", out).groups())
    shown = [int(m) for m in re.findall(r"^\s*(\d+)  ", out, re.M)]
    assert first == 1 and shown[-1] == last < 400
    assert f"start_line={last + 1})]" in out
