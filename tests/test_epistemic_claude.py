"""The Claude epistemic proposer through the real anthropic SDK and a mock transport."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx2

from drafter.sample import gold_path, materialize
from drafter.textformat import parse_report
from graph.epistemic.claude import ClaudeEpistemicProposer
from graph.epistemic.workflow import run_epistemic
from graph.proposers.claude import ClaudeProposer
from graph.proposers.claude_client import RetryPolicy

USAGE = {"input_tokens": 900, "output_tokens": 200}
INVENTED = "RT-RTE-made-up-route"


class Scripted:
    """Answers each submit_record call from the request's own deciding lines."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.bad: str | None = None  # record ID answered with schema-invalid input

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        text = body["messages"][0]["content"][0]["text"]
        rid = re.search(r"Write record (EPI-[A-Z]+-[a-z0-9-]+)", text).group(1)
        if self.bad is None and rid.startswith("EPI-RTE-"):
            self.bad = rid
        if rid == self.bad:
            return {"lead": "no label given"}
        quote, path = re.search(r"^- (.+) --- (\S+)$", text, re.M).groups()
        part_of = INVENTED if rid.startswith("EPI-OBJ-") else "RT-RTE-task-scoring"
        lead = "Endpoints/progression: a → b." if "-RTE-" in rid else "Source-native identity: x."
        return {
            "label": f"Model label for {rid}",
            "part_of": part_of,
            "lead": lead,
            "fields": [{"name": "implementation conclusion status", "value": "wired"}],
            "paragraphs": ["Written by the scripted model."],
            "witnesses": [{"quote": quote, "path": path}],
        }

    def handler(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        self.bodies.append(body)
        block = {
            "type": "tool_use",
            "id": f"toolu_{len(self.bodies):04d}",
            "name": body["tool_choice"]["name"],
            "input": self.answer(body),
        }
        return httpx2.Response(
            200,
            json={
                "id": f"msg_{len(self.bodies):04d}",
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "content": [block],
                "stop_reason": "tool_use",
                "stop_sequence": None,
                "usage": USAGE,
            },
        )


def test_claude_records_never_cite_invented_ids(tmp_path: Path) -> None:
    sample = materialize(tmp_path / "repo")
    api = Scripted()
    inner = ClaudeProposer(
        "claude-sonnet-5-5",
        api_key="test-key",
        http_client=httpx2.Client(transport=httpx2.MockTransport(api.handler)),
        retry=RetryPolicy(base_delay=0.001, max_delay=0.01),
    )
    result = run_epistemic(
        str(sample.path),
        sample.sha,
        gold_path(),
        data_dir=tmp_path / "d",
        proposer=ClaudeEpistemicProposer(inner),
    )
    report = result.report
    runtime_ids = {r.id for r in parse_report(gold_path().read_text()).report.records}
    objects, routes = report.records_of_kind("OBJ"), report.records_of_kind("RTE")
    assert objects and routes
    # the invented part-of is removed and flagged; the real one is kept
    for r in objects:
        assert r.part_of is None and any(INVENTED in f for f in r.flags)
        assert r.label.startswith("Model label")
    good = [r for r in routes if r.id != api.bad]
    assert all(r.part_of == "RT-RTE-task-scoring" for r in good)
    # a record the model could not deliver keeps the offline version, with the reason
    kept = report.record(api.bad)
    assert kept is not None and not kept.label.startswith("Model label")
    assert any("schema-invalid" in f for f in kept.flags)
    assert all(r.part_of is None or r.part_of in runtime_ids for r in report.records)
    assert all(w.verified for w in report.witnesses) and report.witnesses
    # one call per record plus one corrective retry; the system context is cached
    assert len(api.bodies) == len(report.records) + 1
    assert all(b["system"][-1].get("cache_control") for b in api.bodies)
    assert report.meta.model == "claude-sonnet-5-5"
    assert sum(u.calls for u in report.meta.usage) == len(api.bodies)
    assert (tmp_path / "d" / "runs" / f"{result.thread_id}.calls.sqlite").exists()
