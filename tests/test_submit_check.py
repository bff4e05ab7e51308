"""``submit_record`` checks the witnesses itself: record calls per record, measured.

The real ADAS conversations of ``tests/data/replay`` (a reasoner's turns through the
relay, replayed through the real graph and the real anthropic SDK) drafted each record
in three calls: investigate, ``check_quotes``, submit, as the record prompt then asked.
Replayed here as given and with the ``check_quotes`` turn left out, and with a
submission whose witness the model got wrong: the submission is answered with the miss
and its nearest real lines, once, and the next submission is taken as it is.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import httpx2
import pytest
from fakes import MODEL
from gitrepo import git, make_repo
from test_replay_adas import DATA, Replay

from drafter.model import Record
from graph.configuration import Configuration
from graph.proposers.claude import ClaudeProposer
from graph.proposers.providers.retry import RetryPolicy
from graph.runner import RunResult, run_draft

CLAIM = "record:RT-CLM-untrusted-code-warning"
RIGHT = "exec(forward_str, globals(), namespace)"
WRONG = "exec(forward_str, globals(), local_namespace)"


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return json.loads(DATA.read_text())


@pytest.fixture(scope="module")
def repo(data, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    files = {
        path: "\n".join(f["lines"].get(str(n), "") for n in range(1, f["line_count"] + 1))
        for path, f in data["files"].items()
    }
    path = make_repo(tmp_path_factory.mktemp("adas") / "repo", files)
    return path, git(path, "rev-parse", "HEAD")


def run(conversations: dict[str, list[Any]], repo: tuple[Path, str], tmp: Path):
    replay = Replay(conversations)
    prop = ClaudeProposer(
        MODEL,
        api_key="replay",
        http_client=httpx2.Client(transport=httpx2.MockTransport(replay)),
        retry=RetryPolicy(base_delay=0.001, max_delay=0.01),
    )
    config = Configuration(model=MODEL, generator="claude", concurrency=1, max_records=12)
    result = run_draft(
        str(repo[0]), repo[1], config, lambda c, r: prop, data_dir=tmp, use_index=False
    )
    return replay, result, prop


def without_check_quotes(conversations: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """The record conversations as a model trusting ``submit_record`` plays them."""
    out = copy.deepcopy(conversations)
    for key, turns in out.items():
        if key.startswith("record:"):
            out[key] = [
                t
                for t in turns
                if not any(b.get("name") == "check_quotes" for b in t["content"] if "name" in b)
            ]
    return out


def submission(turn: dict[str, Any]) -> dict[str, Any]:
    return next(b for b in turn["content"] if b.get("name") == "submit_record")


def with_witness(turn: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    """The turn with one witness quote replaced (a fresh tool_use id, as a new turn has)."""
    out = copy.deepcopy(turn)
    sub = submission(out)
    sub["id"] += "_b"
    for w in sub["input"]["witnesses"]:
        if w["quote"] == old:
            w["quote"] = new
    return out


def record_calls(replay: Replay, result: RunResult) -> float:
    calls = sum(n for k, n in replay.served.items() if k.startswith(("record:", "repair:")))
    assert result.report is not None
    return calls / len(result.report.records)


def fixup_answer(replay: Replay, key: str) -> str:
    """The text submit_record answered the conversation's first submission with."""
    body = replay.calls(key)[-1]
    return "\n".join(
        str(b.get("content"))
        for b in body["messages"][-1]["content"]
        if b.get("type") == "tool_result"
    )


def records(result: RunResult) -> dict[str, Record]:
    assert result.report is not None
    return {r.id: r for r in result.report.records}


def test_record_calls_per_record_fall_from_three_to_two(data, repo, tmp_path) -> None:
    before, r1, _ = run(data["conversations"], repo, tmp_path / "a")
    after, r2, prop = run(without_check_quotes(data["conversations"]), repo, tmp_path / "b")
    assert before.problems == [] and after.problems == []
    assert record_calls(before, r1) == 3.0
    assert record_calls(after, r2) == 2.0
    # the same records, every witness verified, no fix-up and no repair conversation
    assert records(r1).keys() == records(r2).keys()
    assert all(w.verified for w in r2.report.witnesses)
    assert not any(k.startswith("repair:") for k in after.served)
    assert all(t.fixups == 0 for t in prop.transcripts.values())


def test_a_miss_is_answered_once_with_its_nearest_lines(data, repo, tmp_path) -> None:
    convs = without_check_quotes(data["conversations"])
    good = convs[CLAIM][-1]
    convs[CLAIM] = [*convs[CLAIM][:-1], with_witness(good, RIGHT, WRONG), good]
    replay, result, prop = run(convs, repo, tmp_path)
    assert replay.problems == []
    assert replay.served[CLAIM] == 3  # investigate, the miss, the fix
    answer = fixup_answer(replay, CLAIM)
    assert "1 of the 5 witnesses do not verify" in answer
    assert "3. " in answer and "_arc/search.py" in answer  # numbered by its place
    assert RIGHT in answer  # the nearest real passage holds the true line
    assert "Not taken yet" in answer and "one fix-up" in answer
    # the four witnesses that verified are not repeated in the answer
    assert "We strongly advise users" not in answer and "\n1. " not in answer
    # the fixed record is what the draft keeps, every witness verified by the verifier
    rec = records(result)["RT-CLM-untrusted-code-warning"]
    assert RIGHT in [w.quote for w in rec.witnesses] and all(w.verified for w in rec.witnesses)
    assert not any(k.startswith("repair:") for k in replay.served)
    assert prop.transcripts["RT-CLM-untrusted-code-warning"].fixups == 1


def test_the_fixup_is_bounded_and_never_marks_a_miss_verified(data, repo, tmp_path) -> None:
    convs = without_check_quotes(data["conversations"])
    good = convs[CLAIM][-1]
    bad = with_witness(good, RIGHT, WRONG)
    again = with_witness(bad, WRONG, WRONG)
    # the model ignores its fix-up: the second submission is taken as it is, and the
    # workflow's repair round (its own conversation, its own one fix-up) fixes the quote
    convs[CLAIM] = [*convs[CLAIM][:-1], bad, again]
    convs["repair:RT-CLM-untrusted-code-warning"] = [good]
    replay, result, _ = run(convs, repo, tmp_path)
    assert replay.problems == []
    assert replay.served[CLAIM] == 3
    assert replay.served["repair:RT-CLM-untrusted-code-warning"] == 1
    rec = records(result)["RT-CLM-untrusted-code-warning"]
    assert WRONG not in [w.quote for w in rec.witnesses]
    assert all(w.verified for w in rec.witnesses)


def test_the_fixup_answer_says_the_budget_left(data, repo, tmp_path) -> None:
    convs = without_check_quotes(data["conversations"])
    good = convs[CLAIM][-1]
    convs[CLAIM] = [*convs[CLAIM][:-1], with_witness(good, RIGHT, WRONG), good]
    replay, _, prop = run(convs, repo, tmp_path)
    spent = prop.transcripts["RT-CLM-untrusted-code-warning"].tool_calls
    budget = prop.budgets.record
    # the two calls of the first turn were counted, the submission was not
    assert spent == 2
    assert re.search(
        rf"\[budget: {budget - spent} of {budget} investigation tool calls left\]",
        fixup_answer(replay, CLAIM),
    )


def test_a_record_without_witness_is_sent_back_once(data, repo, tmp_path) -> None:
    convs = without_check_quotes(data["conversations"])
    good = convs[CLAIM][-1]
    empty = copy.deepcopy(good)
    submission(empty)["input"]["witnesses"] = []
    submission(empty)["id"] += "_empty"
    convs[CLAIM] = [*convs[CLAIM][:-1], empty, good]
    replay, result, _ = run(convs, repo, tmp_path)
    assert replay.problems == [] and replay.served[CLAIM] == 3
    assert "has no witness" in fixup_answer(replay, CLAIM)
    assert len(records(result)["RT-CLM-untrusted-code-warning"].witnesses) == 5


def test_six_witnesses_are_a_preference_not_a_rule(data, repo, tmp_path) -> None:
    convs = without_check_quotes(data["conversations"])
    six = copy.deepcopy(convs[CLAIM][-1])
    ws = submission(six)["input"]["witnesses"]
    ws.append({"quote": "exec(code, {}, local_vars)", "path": "_arc/search.py"})
    convs[CLAIM][-1] = six
    replay, result, _ = run(convs, repo, tmp_path)
    assert replay.problems == [] and replay.served[CLAIM] == 2
    rec = records(result)["RT-CLM-untrusted-code-warning"]
    assert len(rec.witnesses) == 6 and all(w.verified for w in rec.witnesses)


def test_the_record_request_says_check_quotes_is_optional(data, repo, tmp_path) -> None:
    replay, _, _ = run(without_check_quotes(data["conversations"]), repo, tmp_path)
    task = replay.calls(CLAIM)[0]["messages"][0]["content"][0]["text"]
    assert "`check_quotes` is optional" in task
    assert "run `check_quotes` on your witnesses" not in task
    assert "one to five verbatim excerpts" in task
    tool = next(t for t in replay.calls(CLAIM)[0]["tools"] if t["name"] == "submit_record")
    assert "resubmit once" in tool["description"]
