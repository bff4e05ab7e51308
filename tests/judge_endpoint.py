"""A scripted judge behind the Messages API, for ``test_eval_judge``.

``JudgeAPI.handler`` answers every request with a ``submit_judgement`` tool call
chosen by ``policy(body)`` (a tool input dict, or a string for a text-only answer);
requests are recorded in ``log`` (parsed bodies, in arrival order).  It is used
in-process behind ``httpx2.MockTransport`` and, for ``drafter eval --judge``, over real
HTTP through :class:`claude_server.ClaudeServer` (which only calls ``handler``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import httpx2
from fakes import FakeAPI

Policy = Callable[[dict[str, Any]], "dict[str, Any] | str"]

_BLOCK = re.compile(r"<untrusted_records>\n(.*)\n</untrusted_records>", re.S)


def records_of(body: dict[str, Any]) -> dict[str, Any]:
    """The quoted records of a judge request (the frame's JSON, escapes undone)."""
    m = _BLOCK.search(body["messages"][0]["content"])
    assert m is not None, "no untrusted_records frame"
    return json.loads(m.group(1).replace("<\\", "<"))


def same_kind(body: dict[str, Any]) -> dict[str, Any]:
    """A careful enough judge: the first candidate of the reference record's kind."""
    data = records_of(body)
    kind = data["reference"]["kind"]
    best = next((c["id"] for c in data["candidates"] if c["kind"] == kind), None)
    return {"best": best, "also": [], "reason": f"same {kind}" if best else "none"}


class JudgeAPI(FakeAPI):
    def __init__(self, policy: Policy = same_kind) -> None:
        super().__init__()
        self.policy = policy

    def handler(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        self.log.append(body)
        answer = self.policy(body)
        if isinstance(answer, str):
            content = [{"type": "text", "text": answer}]
            stop = "end_turn"
        else:
            content = [
                {
                    "type": "tool_use",
                    "id": f"toolu_{len(self.log)}",
                    "name": "submit_judgement",
                    "input": answer,
                }
            ]
            stop = "tool_use"
        return httpx2.Response(
            200,
            json={
                "id": f"msg_{len(self.log)}",
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "content": content,
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": {"input_tokens": 1000, "output_tokens": 50},
            },
        )

    def client(self) -> httpx2.Client:
        return httpx2.Client(transport=httpx2.MockTransport(self.handler))
