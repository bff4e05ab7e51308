"""Every request of the model path stays under the 64 KB ceiling, and what a record's
request shows is said once.

A relay run on dgm sent a 75.8 KB planning request (the opening, the map and the
newest page) and the account request had reached 106 KB before it carried summaries.
Here a scripted model reads one large page after another through the real anthropic
SDK, in the plan and in a record conversation, and every request body is measured.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes import FakeAPI, tool, use
from gitrepo import git, make_repo

from graph.proposer import PlanItem, ReadRange
from graph.proposers.agent.context import (
    _not_covered,
    header_label,
    ranges_section,
)
from graph.proposers.agent.loop import REQUEST_CEILING, body_size
from graph.proposers.agent.map import nearby_files
from graph.proposers.agent.tools import ReadFileInput, SnapshotTools
from graph.resources import Resources

RID = "RT-RTE-main-loop"
#: Files of about 60 KB each: any two whole pages pass the ceiling with the map.
BIG = {
    f"pkg/mod{i}.py": "".join(f"value_{i}_{n} = {'x' * 48!r}\n" for n in range(1000))
    for i in range(4)
}
RECORD = {
    "label": "main loop",
    "lead": "Endpoints/progression: main → loop",
    "fields": [
        {"name": "implementation conclusion status", "value": "wired"},
        {"name": "operation conclusion status", "value": "uninspected"},
    ],
    "witnesses": [{"quote": "def main():", "path": "main.py"}],
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    files = {
        "README.md": "# big\n\nBy default the loop runs at most 10 steps.\n",
        "main.py": "def main():\n    return 1\n\n\nif __name__ == '__main__':\n    main()\n",
        **BIG,
        **{f"pkg/small{i}.py": f"X = {i}\n" for i in range(5)},
    }
    path = make_repo(tmp_path_factory.mktemp("ceiling") / "repo", files)
    return path, git(path, "rev-parse", "HEAD")


def _reads(*paths: str) -> list:
    return [use(("read_file", {"path": p, "start_line": 1, "end_line": 400})) for p in paths]


@pytest.fixture(scope="module")
def run(repo, tmp_path_factory: pytest.TempPathFactory) -> FakeAPI:
    path, sha = repo
    item = {"id": RID, "kind": "RTE", "label": "main loop", "files": ["main.py", *BIG]}
    fake = FakeAPI()
    fake.script("plan", *_reads(*BIG, *BIG), tool({"system": "big", "items": [item]}))
    fake.script(f"record:{RID}", *_reads(*BIG, *BIG), tool(RECORD))
    fake.script("account", tool({"sections": []}))
    fake.draft(path, sha, tmp_path_factory.mktemp("data"), use_index=False)
    return fake


def _answers(body: dict) -> list[str]:
    return [
        b["content"]
        for m in body["messages"]
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]


def test_every_request_stays_under_the_ceiling(run) -> None:
    sizes = {k: max(body_size(b) for b in run.calls(k)) for k in ("plan", f"record:{RID}")}
    assert all(body_size(b) <= REQUEST_CEILING for b in run.log), sizes
    # the conversations did read page after page: without the ceiling they pass it
    assert len(run.calls("plan")) == 9 and len(run.calls(f"record:{RID}")) == 9
    pages = sum(len(a) for a in _answers(run.calls(f"record:{RID}")[-1]))
    assert pages > 15_000


def test_a_cut_answer_says_where_to_go_on_and_older_answers_are_folded(run) -> None:
    last = run.calls(f"record:{RID}")[-1]
    answers = _answers(last)
    # the record conversation keeps answers whole until the ceiling, then folds the older
    assert any(a.startswith("[folded read_file answer") for a in answers[:-1])
    newest = answers[-1]
    assert "[cut at line" in newest and "continue with read_file" in newest
    assert "investigation tool calls left]" in newest
    # the first answers, while there was room, were whole pages of 400 lines
    first = _answers(run.calls(f"record:{RID}")[1])[0]
    assert "lines 1–" in first and "[cut at line" in first


def test_a_page_cut_to_the_room_is_a_read_of_the_lines_it_showed(run, repo) -> None:
    """The plan's "ranges read" come from the calls' inputs and the room each answer had,
    so a page cut to the request's room is a read of what it showed, no more."""
    path, sha = repo
    res = Resources(repo=str(path), rev=sha, use_index=False)
    try:
        tools = SnapshotTools(res)
        capped = tools.capped(5_000)
        raw = {"path": "pkg/mod0.py", "start_line": 1, "end_line": 400}
        span = capped.page_span(raw)
        whole = tools.page_span(raw)
        assert span is not None and whole is not None and span[2] < whole[2]
        answer = capped.read_file(ReadFileInput.model_validate(raw))
        assert f"lines 1–{span[2]} of 1000" in answer and len(answer) <= 5_000
        assert f'continue with read_file(path="pkg/mod0.py", start_line={span[2] + 1})' in answer
    finally:
        res.close()


def test_small_ranges_are_shown_whole_beside_a_large_one() -> None:
    lines = [f"line_{n} = {n} * 2 + {n}" for n in range(1, 401)]

    def span(path: str, a: int, b: int) -> str:
        rows = "\n".join(f"{i:>5}  {lines[i - 1]}" for i in range(a, b + 1))
        head = f'<repository_data kind="file_lines" path="{path}" lines="{a}-{b}">'
        return f"{head}\n{rows}\n</repository_data>"

    ranges = [
        ReadRange(path="a.py", start_line=1, end_line=400),
        ReadRange(path="b.py", start_line=10, end_line=12),
        ReadRange(path="c.py", start_line=30, end_line=34),
    ]
    text, shown, listed = ranges_section(ranges, span, lambda p: lines, 4_000)
    assert listed == []  # nothing "no room left"
    assert ReadRange(path="b.py", start_line=10, end_line=12) in shown
    assert ReadRange(path="c.py", start_line=30, end_line=34) in shown
    big = next(r for r in shown if r.path == "a.py")
    assert big.end_line < 400 and 'continue with read_file(path="a.py"' in text


def test_a_range_an_opening_shows_is_not_listed_as_missing() -> None:
    why = "no room left in this request"
    listed = [
        f'`a.py` 20–33: {why}; read_file(path="a.py", start_line=20, end_line=33)',
        f'`a.py` 300–310: {why}; read_file(path="a.py", start_line=300, end_line=310)',
    ]
    openings = (
        '<repository_data kind="file_lines" path="a.py" lines="1-59">\n...\n</repository_data>'
    )
    assert _not_covered(listed, openings) == listed[1:]


def test_the_skipped_header_is_named_for_what_it_is() -> None:
    assert header_label(["import os", "from x import y", ""]) == "imports"
    assert header_label(["# Copyright 2024 A", "# Licensed under MIT", "", "import os"]) == (
        "licence header and imports"
    )
    assert header_label(['"use strict";', "// helpers", "const a = require('a');"]) == (
        "comments and imports"
    )


def test_a_records_request_names_the_files_of_its_folders(run) -> None:
    first = run.calls(f"record:{RID}")[0]
    data = first["messages"][0]["content"][1]["text"]
    assert "Other files in the folders of this record's files:" in data
    assert "pkg/small3.py" in data and "README.md" in data
    # the record conversations' map is the short one: no per-category key findings
    plan_map = run.calls("plan")[0]["system"][1]["text"]
    record_map = first["system"][1]["text"]
    assert "Findings most of the code leads to" in plan_map
    assert "Findings most of the code leads to" not in record_map
    assert "## Entry units" in record_map


def test_nearby_files_are_the_folders_siblings_and_say_what_is_left() -> None:
    paths = ["a/x.py", "a/y.py", "a/z.py", "b/w.py", "top.py"]
    assert nearby_files(paths, ["a/x.py"]) == ["a/y.py", "a/z.py"]
    assert nearby_files(paths, ["top.py"]) == []
    cut = nearby_files(paths, ["a/x.py"], cap=1)
    assert cut[0] == "a/y.py" and cut[1].startswith("... 1 more")


def test_an_item_is_not_given_another_items_files() -> None:
    item = PlanItem(id=RID, kind="RTE", label="x", files=["a/x.py"])
    assert "b/w.py" not in nearby_files(["a/x.py", "b/w.py"], item.files)


def _turn_answers(fake: FakeAPI, kind: str) -> list[str]:
    """The tool answers of the conversation's last turn of calls, as the next request
    carries them."""
    last = fake.calls(kind)[-1]["messages"][-1]["content"]
    return [b["content"] for b in last if b.get("type") == "tool_result"]


def _one_turn(repo, tmp_path: Path, *paths: str) -> list[str]:
    """A plan conversation that reads three large pages, then calls ``paths`` in one
    turn: the answers of that turn share what room the request has left."""
    path, sha = repo
    item = {"id": RID, "kind": "RTE", "label": "main loop", "files": ["main.py"]}
    fake = FakeAPI()
    reads = [("read_file", {"path": p, "start_line": 1, "end_line": 400}) for p in paths]
    fake.script(
        "plan",
        *_reads(*list(BIG)[:3]),
        use(*reads),
        tool({"system": "big", "items": [item]}),
    )
    fake.script(f"record:{RID}", tool(RECORD))
    fake.script("account", tool({"sections": []}))
    fake.draft(path, sha, tmp_path, use_index=False)
    assert all(body_size(b) <= REQUEST_CEILING for b in fake.log)
    return _turn_answers(fake, "plan")


def test_a_turns_calls_share_the_room_a_short_answer_leaves(repo, tmp_path) -> None:
    big = "pkg/mod3.py"
    three = _one_turn(repo, tmp_path / "a", big, big.replace("3", "2"), big.replace("3", "1"))
    mixed = _one_turn(repo, tmp_path / "b", big, "pkg/small0.py", "pkg/small1.py")
    assert len(three) == len(mixed) == 3
    # three long pages split the room evenly; beside two one-line files the long page
    # gets the room the short ones leave (before: 12,307 characters in both turns)
    assert "[cut at line" in three[0] and "[cut at line" in mixed[0]
    assert len(mixed[0]) > 1.8 * len(three[0]), (len(mixed[0]), len(three[0]))
    assert "X = 0" in mixed[1] and "X = 1" in mixed[2]


def test_the_level_keeps_short_answers_whole() -> None:
    from graph.proposers.agent.loop import _level

    assert _level([100, 200, 5_000], 3_000) == 2_700
    assert _level([100, 200], 3_000) == 3_000
    assert _level([5_000, 5_000], 3_000) == 1_500
