"""Every survey finding ID can be cited in ``submit_plan``'s ``facts`` without a tool call.

The shared map shows only a few findings per category, and a relay run's planner left
``facts`` empty rather than guess.  The plan request's first turn now carries an index
of the other IDs, folded by file (``path: category 4 7; category 2``); past its byte
budget the files the code leads to are kept whole and the rest are counted, with the
tool call that lists them, which the refusal of an unknown ID names too.  The index is
the planner's alone: the shared (cached) block every record request carries is
unchanged.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from fakes import FakeAPI, tool
from gitrepo import git, make_repo

from graph.proposers.agent import map as code_map
from graph.resources import Resources

MAIN = (
    "import tools\n"
    "import store\n"
    "\n"
    "\n"
    "def run():\n"
    "    tools.step0()\n"
    "    store.save0('a')\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    run()\n"
)
#: Ten subprocess calls and ten file writes: more per category than the map shows.
TOOLS = "import subprocess\n\n" + "".join(
    f"def step{i}():\n    subprocess.run(['echo', '{i}'])\n\n" for i in range(10)
)
STORE = "".join(
    f"def save{i}(x):\n    with open('out{i}.txt', 'w') as f:\n        f.write(x)\n\n"
    for i in range(10)
)
RID = "RT-RTE-main"
RECORD = {
    "label": "main",
    "lead": "Endpoints/progression: run → step0",
    "witnesses": [{"quote": "tools.step0()", "path": "main.py"}],
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    files = {"main.py": MAIN, "tools.py": TOOLS, "store.py": STORE}
    path = make_repo(tmp_path_factory.mktemp("ids") / "repo", files)
    return path, git(path, "rev-parse", "HEAD")


@pytest.fixture(scope="module")
def survey_ids(repo) -> list[str]:
    path, sha = repo
    res = Resources(repo=str(path), rev=sha, use_index=False)
    try:
        return [f.id for f in res.survey().findings]
    finally:
        res.close()


def _plan(facts: list[str]) -> dict[str, Any]:
    item = {"id": RID, "kind": "RTE", "label": "main", "files": ["main.py"], "facts": facts}
    return {"system": "ids", "items": [item]}


def _draft(repo, data: Path, *plans: dict[str, Any]) -> tuple[FakeAPI, Any]:
    path, sha = repo
    fake = FakeAPI()
    fake.script("plan", tool(plans[0]))
    for p in plans[1:]:
        fake.script("plan+retry", tool(p))
    fake.script(f"record:{RID}", tool(RECORD))
    fake.script("account", tool({"sections": []}))
    return fake, fake.draft(path, sha, data, use_index=False)


def _index_ids(opening: str) -> set[str]:
    """The IDs the index block of the plan's opening stands for."""
    m = re.search(r'<repository_data kind="finding_ids">\n(.*?)\n</repository_data>', opening, re.S)
    assert m, opening
    ids: set[str] = set()
    for row in m.group(1).splitlines():
        path, _, rest = row.partition(": ")
        for part in rest.split("; "):
            cat, *tails = part.split(" ")
            ids.update(f"{cat}:{path}:{t}" for t in tails)
    return ids


def _opening(fake: FakeAPI) -> str:
    return "\n".join(b["text"] for b in fake.calls("plan")[0]["messages"][0]["content"])


def _map(fake: FakeAPI) -> str:
    return "\n".join(b["text"] for b in fake.calls("plan")[0]["system"])


def _shown(fid: str, text: str) -> bool:
    """``fid`` written whole in ``text`` (``store.py:2`` is not in ``store.py:22``)."""
    return re.search(re.escape(fid) + r"(?![\w#])", text) is not None


def test_every_finding_id_is_in_the_map_or_the_plan_index(repo, survey_ids, tmp_path) -> None:
    fake, _ = _draft(repo, tmp_path, _plan([]))
    opening, shared = _opening(fake), _map(fake)
    listed = _index_ids(opening)
    assert listed <= set(survey_ids)  # the index stands for real IDs only
    assert all(fid in listed or _shown(fid, shared) for fid in survey_ids)
    hidden = [fid for fid in survey_ids if not _shown(fid, shared)]
    assert len(hidden) >= 4  # the map alone leaves some out: the case this is for
    assert not any(_shown(fid, shared) for fid in listed)  # the index does not repeat the map
    assert "Every finding ID is in the map or here." in opening
    # the index is the planner's: the record request's cached prefix is the plan's
    (record,) = fake.calls(f"record:{RID}")
    assert "finding_ids" not in str(record["system"]) + str(record["messages"])
    # the system prompt is the plan's; the map is the record conversations' shorter one
    assert record["system"][0] == fake.calls("plan")[0]["system"][0]


def test_an_id_only_the_index_lists_is_accepted_at_once(repo, survey_ids, tmp_path) -> None:
    fake, result = _draft(repo, tmp_path, _plan([]))
    hidden = sorted(_index_ids(_opening(fake)))  # what a planner reads off the index
    fake, result = _draft(repo, tmp_path / "again", _plan(hidden[:3]))
    assert fake.calls("plan+retry") == []  # no refusal: the IDs were all citable
    assert result.state["plan"]["items"][0]["facts"] == hidden[:3]


def test_past_the_budget_whole_files_are_kept_and_the_rest_named(
    repo, survey_ids, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(code_map, "ID_INDEX_BUDGET", 60)
    monkeypatch.setattr(code_map, "CORE_ID_BUDGET", 60)
    guessed = "exec_effect:tools.py:5"  # near real IDs of tools.py, not one of them
    fake, result = _draft(repo, tmp_path, _plan([guessed]), _plan([]))
    opening = _opening(fake)
    listed = _index_ids(opening)
    files = {fid.split(":")[1] for fid in listed}
    assert len(files) == 1  # one file fitted, the other did not
    (path,) = files
    assert listed == {f for f in survey_ids if f.split(":")[1] == path} - set(
        f for f in survey_ids if _shown(f, _map(fake))
    )  # kept whole
    missing = [f for f in survey_ids if f not in listed and not _shown(f, _map(fake))]
    assert f"{len(missing)} findings in 1 more file(s) are not listed here" in opening
    assert "`survey(path=...)` lists a file's findings with their IDs" in opening
    (retry,) = fake.calls("plan+retry")
    refusal = retry["messages"][-1]["content"][0]["content"]
    assert "finding-ID index" in refusal and "`survey(path=...)`" in refusal
    assert "nearest real IDs: exec_effect:tools.py:" in refusal
    assert result.state["plan"]["items"][0]["facts"] == []
