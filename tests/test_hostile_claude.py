"""A quote the model copied in the visible form of a control character still verifies.

Requests show repository text with control characters as ``⟨U+001B⟩`` (so nothing
raw reaches the model or a dumped request).  A model quoting such a line copies that
form; the proposer and ``check_quotes`` must read it back to the file's real bytes
before verifying, or every quote of such a line is a false "not found".  The real
anthropic SDK over a mock transport, the whole LangGraph run.
"""

from __future__ import annotations

import pytest
from claude_investigation import tool_results
from fakes import FakeAPI, tool, use
from gitrepo import commit

from drafter.model import VerifyStatus

RAW = 'print("\x1b]0;owned\x07 ready")'
SHOWN = 'print("⟨U+001B⟩]0;owned⟨U+0007⟩ ready")'
PLAIN = "def start(loop):"

PLAN = {
    "system": "beacon",
    "items": [
        {
            "id": "RT-RTE-start",
            "kind": "RTE",
            "label": "Start",
            "files": ["beacon/run.py"],
            "rationale": "The only route.",
        }
    ],
}
RECORD = {
    "label": "Start",
    "lead": "Endpoints/progression: start → print",
    "fields": [{"name": "implementation conclusion status", "value": "wired"}],
    "paragraphs": ["Start prints a banner (SRC-1, beacon/run.py)."],
    "witnesses": [
        {"quote": SHOWN, "path": "beacon/run.py"},
        {"quote": PLAIN, "path": "beacon/run.py"},
    ],
}
ACCOUNT = {
    "sections": [
        {
            "title": "Scope and ordinary invocation",
            "items": [
                {"type": "paragraph", "text": "RT-RTE-start prints a banner."},
                {"type": "witness", "text": SHOWN, "path": "beacon/run.py"},
            ],
        }
    ]
}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory):
    repo = tmp_path_factory.mktemp("beacon") / "repo"
    sha = commit(repo, {"beacon/run.py": f"{PLAIN}\n    {RAW}\n    return loop\n"})
    fake = FakeAPI()
    fake.script("plan", tool(PLAN))
    fake.script(
        "record:RT-RTE-start",
        use(("read_file", {"path": "beacon/run.py"})),
        use(("check_quotes", {"witnesses": [{"quote": SHOWN, "path": "beacon/run.py"}]})),
        tool(RECORD),
    )
    fake.script("account", tool(ACCOUNT))
    result = fake.draft(repo, sha, tmp_path_factory.mktemp("data"), use_index=False)
    return fake, result


def test_the_model_is_shown_the_visible_form(run) -> None:
    fake, _ = run
    page = tool_results(fake.calls("record:RT-RTE-start")[1])[0]["content"]
    assert SHOWN in page and "\x1b" not in page


def test_check_quotes_reads_the_visible_form_back(run) -> None:
    fake, _ = run
    checked = tool_results(fake.calls("record:RT-RTE-start")[2])[0]["content"]
    assert checked.startswith("1 of 1 verified\n1. verified")


def test_the_recorded_quote_holds_the_real_bytes_and_verifies(run) -> None:
    fake, result = run
    rec = result.report.record("RT-RTE-start")
    assert rec is not None
    assert [w.quote for w in rec.witnesses] == [RAW, PLAIN]
    assert all(w.verification.status == VerifyStatus.verified for w in rec.witnesses)
    assert fake.calls("repair:RT-RTE-start") == []


def test_an_account_witness_in_the_visible_form_verifies(run) -> None:
    _, result = run
    ws = [w for a in result.report.account for w in a.witnesses]
    assert [w.quote for w in ws] == [RAW]
    assert ws[0].verification is not None
    assert ws[0].verification.status == VerifyStatus.verified
