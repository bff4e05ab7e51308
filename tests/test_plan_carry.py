"""What the planner learnt reaches the records, and tool answers leave nothing to guess.

- A plan item's reading notes and the ranges the planner read appear in the record's
  first request (notes on paths outside the revision are dropped).
- ``submit_plan`` with a ``facts`` ID the survey does not have is refused once, with
  the nearest real IDs; the corrected plan is used; IDs still unknown are dropped.
- ``grep`` names each file it did not search, and why.
- ``search`` is not offered without an index; every budget line says whether the
  submit call counts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fakes import FakeAPI, tool, use
from gitrepo import APP, git, make_repo

from graph.proposers.agent.prompts import render
from graph.proposers.agent.tools import SnapshotTools
from graph.resources import Resources

RID = "RT-RTE-app-main"
NOTE = "main() hands a fixed make command to run(), which calls subprocess.run"


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    files = {
        "app.py": APP,
        "lib/util.py": "def helper():\n    return 1\n",
        "big.log": "x" * 1_100_000 + "\nrun(\n",
    }
    path = make_repo(tmp_path_factory.mktemp("carry") / "repo", files)
    return path, git(path, "rev-parse", "HEAD")


def _plan(facts: list[str], notes: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": RID,
        "kind": "RTE",
        "label": "app main",
        "files": ["app.py"],
        "facts": facts,
    }
    if notes is not None:
        item["notes"] = notes
    return {"system": "app", "items": [item]}


RECORD = {
    "label": "app main",
    "lead": "Endpoints/progression: main → run → subprocess.run",
    "witnesses": [{"quote": "return subprocess.run(cmd, check=True)", "path": "app.py"}],
}
NOTES = [
    {"path": "app.py", "start_line": 8, "end_line": 13, "showed": NOTE},
    {"path": "gone.py", "start_line": 1, "end_line": 3, "showed": "a file that is not there"},
]


@pytest.fixture(scope="module")
def run(repo, tmp_path_factory: pytest.TempPathFactory):
    path, sha = repo
    fake = FakeAPI()
    fake.script(
        "plan",
        use(("read_file", {"path": "app.py", "start_line": 4, "end_line": 9})),
        use(("read_file", {"path": "lib/util.py"})),
        # a guessed finding ID, as models do after seeing a few real ones
        tool(_plan(["entry_point:app.py:13", "exec_effect:app.py:5"], NOTES)),
    )
    fake.script("plan+retry", tool(_plan(["entry_point:app.py:12"], NOTES)))
    fake.script(f"record:{RID}", tool(RECORD))
    fake.script("account", tool({"sections": []}))
    result = fake.draft(path, sha, tmp_path_factory.mktemp("data"), use_index=False)
    return fake, result


def _first_texts(fake: FakeAPI, key: str) -> str:
    return "\n".join(b["text"] for b in fake.calls(key)[0]["messages"][0]["content"])


def test_an_unknown_fact_id_is_answered_with_the_nearest_real_ones(run) -> None:
    fake, result = run
    retry = fake.calls("plan+retry")
    assert len(retry) == 1
    refusal = retry[0]["messages"][-1]["content"][0]
    assert refusal["is_error"] is True
    text = refusal["content"]
    assert "unknown fact 'entry_point:app.py:13'" in text
    assert "nearest real IDs: entry_point:app.py:12" in text
    assert "exec_effect:app.py:5'" not in text  # the real one is not questioned
    plan = result.state["plan"]
    assert plan["items"][0]["facts"] == ["entry_point:app.py:12"]


def test_the_record_request_carries_the_planners_notes_and_reads(run) -> None:
    fake, _ = run
    text = _first_texts(fake, f"record:{RID}")
    assert f"app.py lines 8–13: {NOTE}" in text
    assert '<repository_data kind="plan_notes">' in text
    assert "gone.py" not in text  # a note on a path outside the revision is dropped
    assert "Ranges already read in this run (by the planner): app.py 4–9, lib/util.py 1–2." in (
        text
    )


def test_facts_still_unknown_after_the_correction_are_dropped(repo, tmp_path_factory) -> None:
    path, sha = repo
    fake = FakeAPI()
    wrong = ["entry_point:app.py:13", "nonsense"]
    fake.script("plan", tool(_plan(wrong)))
    fake.script("plan+retry", tool(_plan(wrong)))
    fake.script(f"record:{RID}", tool(RECORD))
    fake.script("account", tool({"sections": []}))
    result = fake.draft(path, sha, tmp_path_factory.mktemp("data"), use_index=False)
    assert result.state["plan"]["items"][0]["facts"] == []
    assert result.report.record(RID) is not None  # the plan was not lost


def test_grep_names_the_files_it_skipped_and_why(repo) -> None:
    path, sha = repo
    res = Resources(repo=str(path), rev=sha, use_index=False)
    try:
        out, err = SnapshotTools(res).run("grep", {"pattern": r"run\("})
    finally:
        res.close()
    assert not err
    assert "1 file(s) not searched:" in out
    assert "big.log: larger than 1,000,000 bytes; read it with read_file" in out
    assert "app.py:5:" in out


def test_search_is_offered_only_with_an_index(repo) -> None:
    path, sha = repo
    for use_index in (False, True):
        prop = FakeAPI().proposer()
        prop.bind_resources(Resources(repo=str(path), rev=sha, use_index=use_index))
        names = [t["name"] for t in prop.tool_defs()]
        assert ("search" in names) is use_index
        assert "grep" in names


@pytest.mark.parametrize(
    ("prompt", "submit", "values"),
    [
        ("plan", "submit_plan", {"max_records": 3, "claims": 1, "objects": 1}),
        (
            "record",
            "submit_record",
            {
                "record_id": "RT-CMP-x",
                "label": "x",
                "kind": "CMP",
                "rationale": "",
                "lead_hint": "",
                "kind_hint": "",
                "plan_ids": "",
                "files": "",
            },
        ),
        ("repair", "submit_record", {"record_id": "RT-CMP-x", "round": 1, "record_json": ""}),
        ("account", "submit_account", {"records": ""}),
    ],
)
def test_every_budget_line_says_the_submit_call_does_not_count(prompt, submit, values) -> None:
    text = render(prompt, budget=7, **values)
    assert "up to 7 investigation tool calls" in text
    assert f"the final `{submit}` call does not count against them" in text


def test_long_or_many_notes_are_clipped_not_refused() -> None:
    from graph.proposer import MAX_NOTES, NOTE_CHARS, PlanItem

    note = {"path": "app.py", "start_line": 1, "end_line": 2, "showed": "y" * 5000}
    item = PlanItem(id=RID, kind="RTE", label="x", notes=[note] * (MAX_NOTES + 3))
    assert len(item.notes) == MAX_NOTES
    assert len(item.notes[0].showed) == NOTE_CHARS
