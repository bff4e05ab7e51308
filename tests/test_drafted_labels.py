"""A record renamed by its own conversation is named by its new label in the requests
of the records drafted after it (through the real graph and the real anthropic SDK)."""

from __future__ import annotations

import pytest
from claude_investigation import ACCOUNT, RECORD, make_repo
from fakes import FakeAPI, tool

ITEMS = [
    {"id": "RT-RTE-loop", "kind": "RTE", "label": "Planner's loop", "files": ["looper/loop.py"]},
    {"id": "RT-OBJ-state", "kind": "OBJ", "label": "State", "files": ["looper/store.py"]},
    {"id": "RT-CMP-model", "kind": "CMP", "label": "Model", "files": ["looper/loop.py"]},
]
OTHER = {**RECORD, "label": "State file", "lead": "Source-native identity: state.json."}


def _siblings(fake: FakeAPI, rid: str) -> str:
    text = fake.calls(f"record:{rid}")[0]["messages"][0]["content"][0]["text"]
    return text.split("Other records of the plan (for cross-references):")[1]


def _run(tmp_path, concurrency: int) -> FakeAPI:
    path = tmp_path / "repo"
    sha = make_repo(path)
    fake = FakeAPI()
    fake.script("plan", tool({"system": "looper", "items": ITEMS}))
    # the first record's model drafts it under another label ("Agent loop")
    fake.script("record:RT-RTE-loop", tool(RECORD))
    fake.script("record:RT-OBJ-state", tool(OTHER))
    fake.script("record:RT-CMP-model", tool({**RECORD, "label": "Model"}))
    fake.script("account", tool(ACCOUNT))
    fake.draft(path, sha, tmp_path / "data", {"concurrency": concurrency}, use_index=False)
    return fake


def test_later_record_requests_use_the_drafted_label(tmp_path) -> None:
    fake = _run(tmp_path, concurrency=1)
    later = _siblings(fake, "RT-CMP-model")
    assert "- RT-RTE-loop: Agent loop" in later and "Planner's loop" not in later
    assert "- RT-OBJ-state: State file" in later
    # the first record's request was built before anything was drafted
    first = _siblings(fake, "RT-RTE-loop")
    assert "- RT-OBJ-state: State\n" in first


@pytest.mark.parametrize("concurrency", [2])
def test_parallel_drafts_keep_the_plans_labels(tmp_path, concurrency: int) -> None:
    """Records drafted side by side cannot know which finished first; their requests
    keep the plan's labels, so a resumed run rebuilds the same requests."""
    fake = _run(tmp_path, concurrency)
    assert "- RT-RTE-loop: Planner's loop" in _siblings(fake, "RT-CMP-model")
