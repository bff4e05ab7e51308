"""Claude as an investigator, in process: the real anthropic SDK over a mock transport,
a scripted model that explores the repository with tools, the whole LangGraph run.

What is asserted is what the model *received*: numbered lines under a
``path @ sha · lines a–b of N`` header, the cut marker and how to continue, grep hits,
a refusal for ``../../etc/passwd``, the verifier's verdict and nearest passage for a
wrong quote, and a forced submit once a tool budget is spent.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from claude_investigation import (
    INJECTION,
    LOOP_LINES,
    RECORD_TURNS,
    RIGHT,
    STUBBORN_BUDGET,
    WRONG,
    make_repo,
    script_investigation,
    tool_results,
)
from fakes import MODEL, FakeAPI, Reply, tool, use

from drafter.model import VerifyStatus
from graph.proposer import PlanContext
from graph.resources import Resources


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    path = tmp_path_factory.mktemp("looper") / "repo"
    return path, make_repo(path)


@pytest.fixture(scope="module")
def run(repo, tmp_path_factory: pytest.TempPathFactory):
    path, sha = repo
    fake = FakeAPI()
    script_investigation(fake)
    result = fake.draft(path, sha, tmp_path_factory.mktemp("data"), use_index=False)
    return fake, result, sha


def test_the_model_reads_a_long_file_in_two_pages(run) -> None:
    fake, _, sha = run
    calls = fake.calls("record:RT-RTE-loop")
    assert len(calls) == len(RECORD_TURNS) + 1  # one paid call per turn, then submit
    first = tool_results(calls[1])[0]["content"]
    assert first.startswith(f"looper/loop.py @ {sha[:12]} · lines 1–400 of {LOOP_LINES}\n")
    assert '\n    1  """The agent loop."""\n' in first
    assert "\n  400  " in first and "\n  401  " not in first
    assert (
        f"[cut at line 400 of {LOOP_LINES} (a page is at most 400 lines / 24000 characters); "
        'continue with read_file(path="looper/loop.py", start_line=401)]'
    ) in first
    second = tool_results(calls[2])[0]["content"]
    assert second.startswith(f"looper/loop.py @ {sha[:12]} · lines 401–{LOOP_LINES} of ")
    assert f"        {RIGHT}" in second and "[cut at" not in second


def test_grep_refusal_and_quote_checks_reach_the_model(run) -> None:
    fake, _, _ = run
    calls = fake.calls("record:RT-RTE-loop")
    grep = tool_results(calls[3])[0]
    assert "looper/store.py:4: def save_state(x):" in grep["content"]
    assert "is_error" not in grep
    refused = tool_results(calls[5])[0]
    assert refused["is_error"] is True
    assert refused["content"].startswith("refused: '../../etc/passwd' is absolute or contains")
    wrong = tool_results(calls[6])[0]["content"]
    assert wrong.startswith("0 of 1 verified\n1. not_found in looper/loop.py")
    assert "nearest passage" in wrong and RIGHT in wrong  # the real line, to fix from
    assert WRONG not in wrong.split("nearest passage", 1)[1]
    fixed = tool_results(calls[7])[0]["content"]
    assert fixed.startswith("1 of 1 verified\n1. verified (exact) at lines")


def test_the_fixed_record_verifies_without_a_repair_round(run) -> None:
    fake, result, _ = run
    rec = result.report.record("RT-RTE-loop")
    assert [w.quote for w in rec.witnesses][0] == RIGHT
    assert all(w.verification.status == VerifyStatus.verified for w in rec.witnesses)
    assert fake.calls("repair:RT-RTE-loop") == []
    assert not rec.flags


def test_a_file_that_redirects_the_model_changes_nothing(run) -> None:
    fake, result, _ = run
    calls = fake.calls("record:RT-RTE-loop")
    notes = tool_results(calls[4])[0]["content"]
    # the file is shown as data; its forged closing tag cannot end the data block
    assert notes.count("</repository_data>") == 1 and "<\\/repository_data" in notes
    assert INJECTION.split("</repository_data>")[1] in notes
    # obeying it got a refusal; nothing outside the repository reached any request
    texts = str(fake.log)
    assert "root:x:0:0" not in texts
    # the system prompt and tools were the same on every turn of each kind of
    # conversation; record conversations share a shorter map than the planner's
    for kind in ("submit_plan", "submit_record"):
        bodies = [b for b in fake.log if b["tools"][-1]["name"] == kind]
        assert bodies and len({str(b["system"]) + str(b["tools"][:-1]) for b in bodies}) == 1
    plan = next(b for b in fake.log if b["tools"][-1]["name"] == "submit_plan")
    record = next(b for b in fake.log if b["tools"][-1]["name"] == "submit_record")
    assert plan["system"][0] == record["system"][0]
    assert len(record["system"][1]["text"]) < len(plan["system"][1]["text"])
    paths = {w.path for r in result.report.records for w in r.witnesses}
    assert paths <= {"looper/loop.py", "looper/store.py"}


def test_a_model_that_never_submits_is_stopped_and_flagged(run) -> None:
    fake, result, _ = run
    calls = fake.calls("record:RT-CMP-stubborn")
    assert len(calls) == STUBBORN_BUDGET + 1
    assert all(b["tool_choice"] == {"type": "any"} for b in calls[:-1])
    assert calls[-1]["tool_choice"] == {"type": "tool", "name": "submit_record"}
    last_turn = calls[-1]["messages"][-1]["content"]
    assert last_turn[-1]["text"].startswith(
        f"The budget of {STUBBORN_BUDGET} investigation tool calls is spent "
        "(submit_record does not count against it)"
    )
    assert result.report.record("RT-CMP-stubborn") is None
    missing = " ".join(result.report.meta.missing)
    assert "RT-CMP-stubborn" in missing and "never called submit_record" in missing
    assert result.state["outcomes"]["RT-CMP-stubborn"]["status"] == "dropped"


def test_planner_and_account_see_what_they_need(run, repo) -> None:
    fake, result, _ = run
    plan_first = fake.calls("plan")[0]
    opening = " ".join(b["text"] for b in plan_first["messages"][0]["content"])
    assert "README head:" in opening and "A tiny agent loop" in opening
    assert "The entry units, a summary of the" in opening
    shared = plan_first["system"][1]["text"]  # the cached map every call carries
    entries = shared.split("## Entry units")[1].split("##")[0]
    assert "entry_point:looper/loop.py:" in entries
    assert plan_first["max_tokens"] >= 16000
    acc = fake.calls("account")[0]
    data = acc["messages"][0]["content"][-1]["text"]
    # the record's summary: lead, fields and the verified witnesses where they verified
    assert "Endpoints/progression: __main__ → run_loop" in data
    assert re.search(rf'witness \(verified\) looper/loop\.py:\d+: "{re.escape(RIGHT)}"', data)
    symbol = tool_results(fake.calls("account")[1])[0]["content"]
    assert "looper/loop.py::run_loop" in symbol and "callers" in symbol
    assert [w.quote for w in result.report.account[0].witnesses] == ["run_loop(3)"]
    # the repository folder is named "repo": the system is named after its parent
    assert repo[0].name == "repo" and result.report.system == repo[0].parent.name


def test_every_tool_answer_is_journalled(run) -> None:
    _, result, _ = run
    from graph.journal import CallJournal

    j = CallJournal(result.checkpoint.with_suffix(".calls.sqlite"))
    try:
        # keyed by (tool, input, revision): the stubborn model's twelve identical
        # listings are one answer; plan README read, seven record turns, one symbol
        assert j.tool_count() == 1 + len(RECORD_TURNS) + 1 + 1
        for name, inp in RECORD_TURNS:
            assert j.get_tool({"tool": name, "input": inp, "sha": result.state["sha"]})
    finally:
        j.close()


def test_a_plan_cut_by_max_tokens_is_asked_again_never_used(repo) -> None:
    path, sha = repo
    fake = FakeAPI()
    cut = Reply(tool_input={"system": "looper", "items": [{"id": "RT-CMP-x", "kind": "CMP",
                "label": "cut"}]}, stop_reason="max_tokens")  # fmt: skip
    good = {"system": "looper", "items": [{"id": "RT-CMP-y", "kind": "CMP", "label": "ok"}]}
    fake.script("plan", cut, tool(good))
    prop = fake.proposer(MODEL)
    res = Resources(repo=str(path), rev=sha, use_index=False)
    try:
        prop.bind_resources(res)
        ctx = PlanContext(
            system="looper", repository="r", revision=sha, files=res.snapshot().files()
        )
        plan = prop.plan(ctx)
    finally:
        res.close()
    assert [i.id for i in plan.items] == ["RT-CMP-y"]
    again = fake.calls("plan")[1]["messages"][-1]["content"]
    assert again[0]["is_error"] is True and "cut" in again[0]["content"]
    assert "max_tokens" in again[-1]["text"] and "half as many records" in again[-1]["text"]


def test_tool_calls_beyond_the_budget_in_one_turn_are_not_run(repo) -> None:
    path, sha = repo
    fake = FakeAPI()
    many = [("read_file", {"path": "README.md"})] * 4
    fake.script("plan", use(*many), tool({"system": "looper", "items": []}))
    from graph.proposers.claude import ToolBudgets

    prop = fake.proposer(MODEL, budgets=ToolBudgets(plan=2))
    res = Resources(repo=str(path), rev=sha, use_index=False)
    try:
        prop.bind_resources(res)
        prop.plan(PlanContext(system="s", repository="r", revision=sha, files=[]))
    finally:
        res.close()
    results = tool_results(fake.calls("plan")[1])
    assert [r.get("is_error", False) for r in results] == [False, False, True, True]
    assert "budget of 2 tool calls is spent" in results[2]["content"]
    assert fake.calls("plan")[1]["tool_choice"]["type"] == "tool"


def test_a_prebuilt_forced_request_keeps_its_single_shot_path() -> None:
    """The epistemic proposer builds its own forced request and calls ``_structured``."""
    from graph.proposer import ProposalRejected
    from graph.proposers.agent.schema import RECORD_TOOL_DEF, RecordDraft, to_record

    fake = FakeAPI()
    ok = {"label": "x", "lead": "l", "witnesses": [{"quote": "q", "path": "a.py"}]}
    fake.script("record:RT-CMP-x", tool({"label": 3}))
    fake.script("record:RT-CMP-x+retry", tool(ok))
    prop = fake.proposer(MODEL)
    request = {
        "model": MODEL,
        "max_tokens": 100,
        "system": [{"type": "text", "text": "s"}],
        "tools": [RECORD_TOOL_DEF],
        "tool_choice": {"type": "tool", "name": "submit_record"},
        "messages": [{"role": "user", "content": [{"type": "text", "text": "record RT-CMP-x"}]}],
    }
    rec = prop._structured(request, RecordDraft, lambda d: to_record(d, "RT-CMP-x"))
    assert rec.id == "RT-CMP-x" and [w.quote for w in rec.witnesses] == ["q"]
    assert [b["tool_choice"]["type"] for b in fake.log] == ["tool", "tool"]
    assert [t["name"] for t in fake.log[0]["tools"]] == ["submit_record"]
    fake.script("record:RT-CMP-x", tool({"label": 3}))
    fake.script("record:RT-CMP-x+retry", tool({"label": 4}))
    with pytest.raises(ProposalRejected, match="after one corrective retry"):
        prop._structured(request, RecordDraft, lambda d: to_record(d, "RT-CMP-x"))
