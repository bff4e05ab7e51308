"""A planner's note is "read" only for the lines a tool answer gave the planner.

The scripted planner (the real anthropic SDK over the scripted endpoint, the real graph)
reads ``looper/loop.py`` lines 500–510 and then notes three ranges for its record: lines
it read, lines half of which it read, and ``looper/store.py``, which it never opened;
and one note on the README head its own request showed.  The record's request must
say which is which, and only the ranges it read count as "already read".
"""

from __future__ import annotations

import pytest
from claude_investigation import ACCOUNT, RECORD, make_repo
from fakes import FakeAPI, tool, use

from graph.proposer import ReadingNote, ReadRange
from graph.proposers.agent.reading import reading_mark

PLAN = {
    "system": "looper",
    "items": [
        {
            "id": "RT-RTE-loop",
            "kind": "RTE",
            "label": "Agent loop",
            "files": ["looper/loop.py", "looper/store.py", "README.md"],
            "rationale": "The only route.",
            "notes": [
                {
                    "path": "looper/loop.py",
                    "start_line": 502,
                    "end_line": 508,
                    "showed": "run_loop calls call_model each step.",
                },
                {
                    "path": "looper/loop.py",
                    "start_line": 505,
                    "end_line": 530,
                    "showed": "the loop saves its state after each call.",
                },
                {
                    "path": "looper/store.py",
                    "start_line": 1,
                    "end_line": 6,
                    "showed": "save_state writes state.json.",
                },
                {
                    "path": "README.md",
                    "start_line": 1,
                    "end_line": 3,
                    "showed": "a tiny agent loop that saves its state.",
                },
            ],
        }
    ],
}


@pytest.fixture(scope="module")
def record_request(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("looper") / "repo"
    sha = make_repo(path)
    fake = FakeAPI()
    fake.script(
        "plan",
        use(("read_file", {"path": "looper/loop.py", "start_line": 500, "end_line": 510})),
        tool(PLAN),
    )
    fake.script("record:RT-RTE-loop", tool(RECORD))
    fake.script("account", tool(ACCOUNT))
    fake.draft(path, sha, tmp_path_factory.mktemp("data"), use_index=False)
    body = fake.calls("record:RT-RTE-loop")[0]
    return "\n".join(b["text"] for b in body["messages"][0]["content"])


def test_each_note_says_what_the_planner_read_of_it(record_request) -> None:
    text = record_request
    assert "looper/loop.py lines 502–508: run_loop calls" in text  # read: no mark
    assert (
        "looper/loop.py lines 505–530 (read: lines 505–510; the rest mentioned, not read):" in text
    )
    assert "looper/store.py lines 1–6 (mentioned, not read): save_state" in text
    # the README head the plan request showed counts as read
    assert "README.md lines 1–3: a tiny agent loop" in text
    assert "2 of them name lines the planner never read" in text


def test_only_read_ranges_are_listed_as_already_read(record_request) -> None:
    listed = record_request.split("Ranges already read in this run (by the planner): ")[1]
    listed = listed.split(". Their text")[0]
    assert "looper/loop.py 500–510" in listed
    assert "looper/store.py" not in listed


@pytest.mark.parametrize(
    ("start", "end", "mark"),
    [
        (10, 20, ""),
        (5, 12, " (read: lines 10–12; the rest mentioned, not read)"),
        (30, 40, " (read: lines 30–31; the rest mentioned, not read)"),
        (41, 60, " (mentioned, not read)"),
        (15, 31, " (read: lines 15–20, 25–31; the rest mentioned, not read)"),
    ],
)
def test_reading_mark(start: int, end: int, mark: str) -> None:
    reads = [
        ReadRange(path="a.py", start_line=10, end_line=20),
        ReadRange(path="a.py", start_line=25, end_line=30),
        ReadRange(path="a.py", start_line=31, end_line=31),
        ReadRange(path="b.py", start_line=1, end_line=400),
    ]
    note = ReadingNote(path="a.py", start_line=start, end_line=end, showed="x")
    assert reading_mark(note, reads) == mark


def test_a_note_on_another_file_is_not_read_by_its_neighbour() -> None:
    reads = [ReadRange(path="b.py", start_line=1, end_line=400)]
    note = ReadingNote(path="a.py", start_line=1, end_line=5, showed="x")
    assert reading_mark(note, reads) == " (mentioned, not read)"
