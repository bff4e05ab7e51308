"""Judge answers kept by the content hash of their request.

Why the whole body: the hash covers the model name, the instructions, the schema and
every byte of both records as the judge read them (verification included), so an
unchanged pair is re-scored for nothing, and any change at all — a reworded draft
record, a new prompt, another model — asks again instead of reusing a stale answer.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from evals.judge.model import Answer, Reply
from evals.judge.request import JudgeRequest

#: Bumped when the meaning of a stored answer changes (4: rubric v4, where ``also``
#: holds only named parts and needs a ``best``; 5: rubric v5, with split references,
#: one home per draft record, other kinds and offline records settled).
VERSION = 5


def request_key(request: JudgeRequest) -> str:
    """SHA-256 of the canonical request body with the cache version."""
    return hashlib.sha256(f"judge-v{VERSION}\n{request.text()}".encode()).hexdigest()


class AnswerCache:
    """One JSON file per answered request under ``root`` (written atomically)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, request: JudgeRequest) -> tuple[Reply, float | None] | None:
        """The stored reply and what it cost when it was asked, else None."""
        path = self._path(request_key(request))
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        a = data.get("answer")
        answer = (
            None
            if a is None
            else Answer(a["best"], tuple(a["also"]), a["reason"], tuple(a.get("also_reasons", ())))
        )
        return Reply(answer, data.get("refused"), data.get("usage", {})), data.get("cost")

    def put(self, request: JudgeRequest, reply: Reply, cost: float | None) -> None:
        """Store a reply (refusals too: asking again would cost the same)."""
        path = self._path(request_key(request))
        path.parent.mkdir(parents=True, exist_ok=True)
        a = reply.answer
        data: dict[str, Any] = {
            "gold": request.gold_id,
            "candidates": list(request.candidates),
            "answer": None
            if a is None
            else {
                "best": a.best,
                "also": list(a.also),
                "reason": a.reason,
                "also_reasons": list(a.also_reasons),
            },
            "refused": reply.refused,
            "usage": reply.usage,
            "cost": cost,
        }
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
        tmp.replace(path)
