"""The planner is shown the repository's documented promises and its core state, and
plans claim items from them.

Drafts through the model path held one claim record where an analyst's report held
four or five: the planner was shown entry units and planned routes.  The plan request
now lists the promises of the README, the docs and help texts that the code could bear
out (defaults, isolation, safety, fallback, determinism, limits), keeps a share of the
records for claims and objects, and accepts a promise's location (``path:line``) as a
fact; a claim record is asked for what was promised, what the code does and a claim
status.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from fakes import FakeAPI, tool
from gitrepo import git, make_repo

README = (
    "# tiny agent\n"
    "\n"
    "By default, every generated program runs inside a fresh Docker container.\n"
    "The agent falls back to a second model when the first one fails.\n"
    "\n"
    "```\n"
    "python main.py --timeout 30\n"
    "```\n"
    "\n"
    "We thank our friends for their support of this project.\n"
)
GUIDE = "# Guide\n\nRuns are deterministic: the seed is fixed so two runs give the same archive.\n"
MAIN = (
    "import argparse\n"
    "import json\n"
    "\n"
    "ARCHIVE = []\n"
    "\n"
    "\n"
    "def save(entry):\n"
    "    ARCHIVE.append(entry)\n"
    "    with open('archive.json', 'w') as f:\n"
    "        json.dump(ARCHIVE, f)\n"
    "\n"
    "\n"
    "def main():\n"
    "    p = argparse.ArgumentParser()\n"
    "    p.add_argument('--timeout', type=int, help='seconds each run may take at most')\n"
    "    p.parse_args()\n"
    "    save({'score': 1})\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    main()\n"
)
CLAIM = {
    "label": "default container",
    "lead": "Claimed operation: programs run in a fresh container by default.",
    "fields": [{"name": "claim status", "value": "not wired"}],
    "witnesses": [{"quote": "runs inside a fresh Docker container", "path": "README.md"}],
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    files = {"README.md": README, "docs/guide.md": GUIDE, "main.py": MAIN}
    path = make_repo(tmp_path_factory.mktemp("claims") / "repo", files)
    return path, git(path, "rev-parse", "HEAD")


def _plan(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"system": "tiny", "items": items}


def _opening(fake: FakeAPI) -> str:
    return "\n".join(b["text"] for b in fake.calls("plan")[0]["messages"][0]["content"])


def _promises(opening: str) -> list[str]:
    m = re.search(
        r'<repository_data kind="promises"[^>]*>\n(.*?)\n</repository_data>', opening, re.S
    )
    assert m, opening
    return m.group(1).splitlines()


def test_the_planner_plans_claim_items_from_the_readme_and_docs(repo, tmp_path) -> None:
    path, sha = repo
    items = [
        {
            "id": "RT-CLM-default-container",
            "kind": "CLM",
            "label": "default container",
            "files": ["README.md", "main.py"],
            "facts": ["README.md:3", "main.py:7-10"],
        },
        {
            "id": "RT-CLM-deterministic",
            "kind": "CLM",
            "label": "deterministic runs",
            "files": ["docs/guide.md", "main.py"],
            "facts": ["docs/guide.md:3"],
        },
    ]
    fake = FakeAPI()
    fake.script("plan", tool(_plan(items)))
    for it in items:
        fake.script(f"record:{it['id']}", tool(CLAIM))
    fake.script("account", tool({"sections": []}))
    result = fake.draft(path, sha, tmp_path, use_index=False)
    opening = _opening(fake)
    rows = _promises(opening)
    # the README's promises and the docs' are listed with their location and kinds
    assert any(r.startswith("README.md:3 [default, isolation") for r in rows), rows
    assert any(r.startswith("README.md:4 [fallback") for r in rows), rows
    assert any(r.startswith("docs/guide.md:3 [determinism") for r in rows), rows
    assert any(r.startswith("main.py:15 [limit; help text]") for r in rows), rows
    # a command block and a sentence with nothing checkable are not promises
    assert not any("python main.py" in r or "thank" in r for r in rows)
    # claims and objects have slots of their own, and the core state is named
    assert re.search(r"at least \d+ of the records are claim records \(CLM\)", opening)
    assert "object records (OBJ) for the core state" in opening
    state = opening.split('kind="core_state"')[1]
    assert "main.py:" in state and "save" in state
    # a promise's location is a fact: accepted at once, kept on the item
    assert fake.calls("plan+retry") == []
    planned = result.state["plan"]["items"]
    assert planned[0]["facts"] == ["README.md:3", "main.py:7-10"]
    assert planned[1]["facts"] == ["docs/guide.md:3"]
    # the claim record's request asks for both sides and the claim status
    (req,) = fake.calls("record:RT-CLM-default-container")
    task = req["messages"][0]["content"][0]["text"]
    assert '"claim status"' in task and "`contradicted`" in task and "`partly`" in task
    # the promise's own line reaches the record as numbered text, with what frames it,
    # though the planner only saw it in the list of promises (it never read the file)
    data = req["messages"][0]["content"][1]["text"]
    ranges = data.split("Ranges the planner read for this record", 1)[1]
    assert "    3  By default, every generated program runs inside a fresh Docker" in ranges
    assert "    1  # tiny agent" in ranges and "    5  " in ranges


def test_a_location_past_the_file_is_refused_once(repo, tmp_path) -> None:
    path, sha = repo
    bad = {"id": "RT-CLM-x", "kind": "CLM", "label": "x", "files": ["README.md"]}
    fake = FakeAPI()
    fake.script("plan", tool(_plan([{**bad, "facts": ["README.md:400"]}])))
    fake.script("plan+retry", tool(_plan([{**bad, "facts": ["README.md:400"]}])))
    fake.script("record:RT-CLM-x", tool(CLAIM))
    fake.script("account", tool({"sections": []}))
    result = fake.draft(path, sha, tmp_path, use_index=False)
    (retry,) = fake.calls("plan+retry")
    assert "path:first-last" in retry["messages"][-1]["content"][0]["content"]
    assert result.state["plan"]["items"][0]["facts"] == []


TOOLS = (
    "TOOLS = [\n"
    "    {\n"
    '        "name": "bash",\n'
    '        "description": "Runs the command inside a sandbox container; it never'
    ' writes outside the workspace",\n'
    '        "input_schema": {"type": "object"},\n'
    "    },\n"
    "]\n"
)


def test_a_tool_description_is_a_promise_the_planner_is_shown(tmp_path) -> None:
    # what a tool's description tells the model it does is a documented promise the code
    # can bear out or contradict, as a docstring's is
    files = {"README.md": "# tools\n", "main.py": MAIN, "agent/tools.py": TOOLS}
    path = make_repo(tmp_path / "repo", files)
    sha = git(path, "rev-parse", "HEAD")
    fake = FakeAPI()
    fake.script("plan", tool(_plan([])))
    fake.script("account", tool({"sections": []}))
    fake.draft(path, sha, tmp_path / "out", use_index=False)
    rows = _promises(_opening(fake))
    (row,) = [r for r in rows if r.startswith("agent/tools.py:4 ")]
    assert "; tool description]" in row and "isolation" in row, row
