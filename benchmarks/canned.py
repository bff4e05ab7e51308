"""The Messages API answer the scripted models of the benchmarks send back.

Why one module: ``claude_transcript.py``, ``record_context.py`` and ``plan_requests.py``
each drive the real proposer through an in-process mock transport, and each answered
with its own copy of the same response body.
"""

from __future__ import annotations

from typing import Any

import httpx2


def message_response(
    body: dict[str, Any], n: int, content: list[dict[str, Any]], usage: dict[str, int]
) -> httpx2.Response:
    """A 200 answer to request ``body`` (the ``n``-th of the run) that stops for its
    tool calls in ``content``."""
    return httpx2.Response(
        200,
        json={
            "id": f"msg_{n}",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": content,
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": usage,
        },
    )
