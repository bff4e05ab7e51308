"""A real model's turns, replayed through the real graph.

``tests/data/replay/adas-2702bee.json`` holds four conversations of a real ADAS run
answered by a reasoner through the relay (the plan, two records, the account), as the
model answered them, and a sparse copy of the ADAS files those answers quote (see
``make_replay.py`` beside it).  Here the real anthropic SDK talks to a mock transport
that answers each request with the next recorded turn *of its conversation* — by
order, not by the request's bytes, so prompt edits do not break the replay, while a
change in how real turns are handled does: a tool input the tools now refuse, a
submission the schema now rejects, an extra corrective turn, a quote that no longer
verifies, a conversation that asks for more (or fewer) turns than the model gave.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import httpx2
import pytest
from fakes import MODEL, FakeAPI
from gitrepo import git, make_repo

from drafter.model import FlagKind, VerifyStatus
from graph.configuration import Configuration
from graph.proposers.claude import ClaudeProposer
from graph.proposers.providers.retry import RetryPolicy
from graph.runner import run_draft

DATA = Path(__file__).parent / "data" / "replay" / "adas-2702bee.json"


class Replay:
    """Answers each conversation with its recorded turns, in order."""

    def __init__(self, conversations: dict[str, list[dict[str, Any]]]):
        self.conversations = conversations
        self.served: Counter[str] = Counter()
        self.log: list[tuple[str, dict[str, Any]]] = []
        self.problems: list[str] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        key = FakeAPI.key_of(body)
        self.log.append((key, body))
        self.problems += [f"{key}: {p}" for p in malformed(body)]
        turns = self.conversations.get(key, [])
        n = self.served[key]
        if n >= len(turns):
            self.problems.append(f"{key} asked for turn {n + 1}; the model gave {len(turns)}")
            return httpx2.Response(
                400,
                json={
                    "type": "error",
                    "error": {"type": "invalid_request_error", "message": f"no turn for {key}"},
                },
            )
        self.served[key] += 1
        turn = turns[n]
        offered = {t["name"] for t in body["tools"]}
        forced = body["tool_choice"].get("name")
        for b in turn["content"]:
            if b.get("type") == "tool_use" and b["name"] not in offered:
                self.problems.append(f"{key} turn {n + 1}: {b['name']} is no longer offered")
            if b.get("type") == "tool_use" and forced and b["name"] != forced:
                self.problems.append(
                    f"{key} turn {n + 1}: {forced} was forced before the model submitted"
                )
        return httpx2.Response(
            200,
            json={
                "id": f"msg_replay_{len(self.log)}",
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "content": turn["content"],
                "stop_reason": turn["stop_reason"],
                "stop_sequence": None,
                "usage": {"input_tokens": len(request.content) // 4, "output_tokens": 200},
            },
        )

    def calls(self, key: str) -> list[dict[str, Any]]:
        return [b for k, b in self.log if k == key]


def malformed(body: dict[str, Any]) -> list[str]:
    """What the Messages API would refuse in a request: a tool_use not answered by a
    tool_result in the next user turn (or a result for no call)."""
    out = []
    msgs = body["messages"]
    for i, m in enumerate(msgs):
        if m["role"] != "assistant" or not isinstance(m["content"], list):
            continue
        asked = {b["id"] for b in m["content"] if b.get("type") == "tool_use"}
        nxt = msgs[i + 1]["content"] if i + 1 < len(msgs) else []
        answered = {b["tool_use_id"] for b in nxt if b.get("type") == "tool_result"}
        if asked != answered:
            out.append(
                f"turn {i // 2 + 1}: tool_use {sorted(asked)} answered by {sorted(answered)}"
            )
    return out


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return json.loads(DATA.read_text())


@pytest.fixture(scope="module")
def replayed(data, tmp_path_factory: pytest.TempPathFactory):
    files = {
        path: "\n".join(f["lines"].get(str(n), "") for n in range(1, f["line_count"] + 1))
        for path, f in data["files"].items()
    }
    repo = make_repo(tmp_path_factory.mktemp("adas") / "repo", files)
    sha = git(repo, "rev-parse", "HEAD")
    replay = Replay(data["conversations"])
    prop = ClaudeProposer(
        MODEL,
        api_key="replay",
        http_client=httpx2.Client(transport=httpx2.MockTransport(replay)),
        retry=RetryPolicy(base_delay=0.001, max_delay=0.01),
    )
    config = Configuration(model=MODEL, generator="claude", concurrency=1, max_records=12)
    result = run_draft(
        str(repo),
        sha,
        config,
        lambda c, r: prop,
        data_dir=tmp_path_factory.mktemp("data"),
        use_index=False,
    )
    return replay, result


def test_every_conversation_takes_exactly_the_turns_the_model_gave(data, replayed) -> None:
    replay, _ = replayed
    assert replay.problems == []
    assert dict(replay.served) == {k: len(v) for k, v in data["conversations"].items()}


def test_the_real_plan_is_accepted_as_submitted(data, replayed) -> None:
    _, result = replayed
    submitted = next(
        b["input"]
        for t in data["conversations"]["plan"]
        for b in t["content"]
        if b.get("name") == "submit_plan"
    )
    plan = result.state["plan"]
    assert [i["id"] for i in plan["items"]] == data["kept_items"]
    for got, sent in zip(plan["items"], submitted["items"], strict=True):
        assert got["facts"] == sent["facts"]  # every cited finding exists: no refusal
        assert got["files"] == [f for f in sent["files"] if f in data["files"]]


def test_every_witness_the_model_gave_is_kept_verified(replayed) -> None:
    _, result = replayed
    report = result.report
    assert [r.id for r in report.records] == [
        "RT-CMP-meta-agent-model",
        "RT-CLM-untrusted-code-warning",
    ]
    witnesses = report.witnesses
    assert len(witnesses) == 5 + 5 + 10  # two records and the account, as submitted
    assert all(w.verification.status == VerifyStatus.verified for w in witnesses)
    assert not any(r.flags_of(FlagKind.witness_dropped) for r in report.records)
    assert report.meta.missing == []


def test_tool_answers_to_the_real_calls(replayed) -> None:
    replay, _ = replayed
    plan = replay.calls("plan")
    first = plan[1]["messages"][-1]["content"][0]
    assert first["content"].startswith("_arc/search.py @ ")
    assert "· lines 1–400 of 446" in first["content"].splitlines()[0]
    check = replay.calls("record:RT-CMP-meta-agent-model")[2]["messages"][-1]["content"][0]
    assert check["content"].startswith("6 of 6 verified")


def test_what_the_planner_read_reaches_the_records(replayed) -> None:
    replay, _ = replayed
    first = replay.calls("record:RT-CMP-meta-agent-model")[0]["messages"][0]["content"]
    text = "\n".join(b["text"] for b in first)
    assert "Ranges already read in this run (by the planner): " in text
    assert "_arc/search.py 1–446" in text  # lines 1–400 and 400–446, merged
    assert sum(len(b["text"].encode("utf-8")) + 2 for b in first) <= 16_384
