"""The plan's claim and object minimums are enforced, and never crowd out the rest.

The plan prompt asked for claim records and drafts still held one; at 6 records the
minimums of before (2 claims, 2 objects) left no room for a component.  The plan
converter now refuses a plan short of its minimums once (through the real anthropic
SDK, a scripted planner) and cuts a long plan keeping them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fakes import FakeAPI, tool
from gitrepo import git, make_repo

from graph.proposer import Plan, PlanItem
from graph.proposers.agent.quota import PlanQuota, claim_slots, keep_quota

README = (
    "# tiny agent\n\n"
    "By default, every generated program runs inside a fresh Docker container.\n"
    "The agent falls back to a second model when the first one fails.\n"
)
MAIN = (
    "ARCHIVE = []\n\n\n"
    "def save(entry):\n"
    "    ARCHIVE.append(entry)\n\n\n"
    "def main():\n"
    "    save({'score': 1})\n\n\n"
    "if __name__ == '__main__':\n"
    "    main()\n"
)
RECORD = {
    "label": "x",
    "lead": "Claimed operation: x.",
    "fields": [{"name": "claim status", "value": "not wired"}],
    "witnesses": [{"quote": "def main():", "path": "main.py"}],
}


@pytest.mark.parametrize("n", range(4, 31))
def test_the_minimums_are_a_third_and_leave_room_for_the_rest(n: int) -> None:
    claims, objects = claim_slots(n)
    assert claims >= 1
    assert 3 * (claims + objects) >= n  # at least a third are claims or objects
    assert n - claims - objects >= n // 2  # at least half stay for components, routes
    if n <= 9:
        assert n - claims - objects >= 2 * n // 3


def test_fifteen_records_keep_four_claims_and_three_objects_and_six_keep_one_each() -> None:
    assert claim_slots(15) == (4, 3)
    assert claim_slots(6) == (1, 1)
    assert claim_slots(1) == claim_slots(3) == (0, 0)


def _item(i: int, kind: str) -> PlanItem:
    return PlanItem(id=f"RT-{kind}-x{i}", kind=kind, label=f"x{i}", files=["main.py"])


def test_a_long_plan_is_cut_keeping_the_claims_it_lists_last() -> None:
    items = [_item(i, "RTE") for i in range(6)] + [_item(9, "OBJ"), _item(10, "CLM")]
    kept = keep_quota(items, 4, 1, 1)
    assert [i.kind for i in kept] == ["RTE", "RTE", "OBJ", "CLM"]
    quota = PlanQuota(4, promises=True)
    quota.calls = 1  # past the first submission: nothing is refused, the plan is cut
    plan = quota(Plan(system="x", items=items))
    assert [i.id for i in plan.items] == ["RT-RTE-x0", "RT-RTE-x1", "RT-OBJ-x9", "RT-CLM-x10"]


def test_no_claim_minimum_without_documented_promises() -> None:
    quota = PlanQuota(6, promises=False)
    plan = Plan(system="x", items=[_item(0, "RTE"), _item(1, "OBJ"), _item(2, "CMP")])
    assert quota(plan).items == plan.items


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    path = make_repo(
        tmp_path_factory.mktemp("quota") / "repo", {"README.md": README, "main.py": MAIN}
    )
    return path, git(path, "rev-parse", "HEAD")


def _items(kinds: list[str]) -> list[dict[str, Any]]:
    return [
        {"id": f"RT-{k}-r{i}", "kind": k, "label": f"r{i}", "files": ["main.py"]}
        for i, k in enumerate(kinds)
    ]


def test_a_plan_without_claims_is_refused_once_then_taken(repo, tmp_path) -> None:
    path, sha = repo
    routes = _items(["RTE", "CMP", "RTE", "RTE", "CMP", "RTE"])
    fixed = _items(["RTE", "CMP", "CLM", "OBJ", "CMP", "RTE"])
    fake = FakeAPI()
    fake.script("plan", tool({"system": "tiny", "items": routes}))
    fake.script("plan+retry", tool({"system": "tiny", "items": fixed}))
    for it in fixed:
        fake.script(f"record:{it['id']}", tool({**RECORD, "label": it["label"]}))
    fake.script("account", tool({"sections": []}))
    result = fake.draft(path, sha, tmp_path, settings={"max_records": 6}, use_index=False)
    (retry,) = fake.calls("plan+retry")
    said = retry["messages"][-1]["content"][0]["content"]
    assert "0 claim record(s) (CLM) and 0 object record(s)" in said
    assert "needs at least 1 and 1" in said
    kinds = [i["kind"] for i in result.state["plan"]["items"]]
    assert kinds == ["RTE", "CMP", "CLM", "OBJ", "CMP", "RTE"]
    # the plan request states the same minimums the converter holds it to
    opening = fake.calls("plan")[0]["messages"][0]["content"][0]["text"]
    assert "at least 1 of the records are claim records (CLM)" in opening
