"""The judge's model behind one small seam: a request in, a checked answer out.

Why a seam (:class:`JudgeModel`): the rest of the judged eval (shortlist, cache,
budget, scoring) needs only "ask this request, get an answer and its usage", so a
provider registry can replace :class:`AnthropicJudge` later without touching it.
:class:`AnthropicJudge` is the real ``anthropic`` SDK, configured like the drafting
path: ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL (read by the SDK), the timeout and
retry count of :mod:`drafter.endpoint`; the SDK's own retries honour ``retry-after``.

The answer is model output, so it is checked, never trusted: a tool input that names
an ID outside the call's candidates, misses a field (an ``also`` entry's part among
them), or comes as text is *refused* (no link is credited for it, and the scorecard
says so).  An answer with no ``best`` credits no ``also`` either: a part is a part of
a cover, so "none covers it" with parts listed is read as none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import anthropic
import httpx2

from drafter.errors import BadInput, DrafterError
from evals.judge.request import PARTS, REASON_CHARS, TOOL, JudgeRequest


class JudgeUnavailable(DrafterError):
    """The endpoint kept failing or refused the request: the check could not run."""

    exit_code = 1


@dataclass(frozen=True, slots=True)
class Answer:
    """Which candidates cover the reference record, and why (one line)."""

    best: str | None
    also: tuple[str, ...]
    reason: str
    #: One line per ``also`` entry (same order): its part (one of ``PARTS``), a colon,
    #: and which part of the reference record it covers.
    also_reasons: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Reply:
    """A checked answer, or why it was refused; and the call's token usage."""

    answer: Answer | None
    refused: str | None
    usage: dict[str, int | None] = field(default_factory=dict)


class JudgeModel(Protocol):
    """Anything that answers a :class:`JudgeRequest` (the real SDK, a test double)."""

    name: str

    def ask(self, request: JudgeRequest) -> Reply: ...


def check_answer(request: JudgeRequest, content: list[Any], stop: str | None) -> Reply:
    """The answer of a response's content blocks, checked against the call's schema."""
    if stop == "refusal":
        return Reply(None, "the model refused to answer")
    uses = [b for b in content if _get(b, "type") == "tool_use" and _get(b, "name") == TOOL]
    if not uses:
        return Reply(None, f"answered without calling {TOOL}")
    raw = _get(uses[0], "input")
    if not isinstance(raw, dict):
        return Reply(None, f"{TOOL} input is not an object")
    best, also, reason = raw.get("best"), raw.get("also", []), raw.get("reason")
    allowed = set(request.candidates)
    if best is not None and best not in allowed:
        return Reply(None, f"best {str(best)[:80]!r} is not one of this call's candidates")
    if not isinstance(also, list) or not all(_also_ok(a, allowed) for a in also):
        return Reply(
            None,
            "also must list objects {id, part, reason} naming this call's candidates, "
            f"each part one of: {', '.join(PARTS)}",
        )
    if not isinstance(reason, str) or not reason.strip():
        return Reply(None, "no reason given")
    why: dict[str, str] = {}
    # "none covers it" leaves nothing for a part to be part of: no also without a best
    for a in also if best is not None else []:
        if a["id"] != best and a["id"] not in why:
            why[a["id"]] = _line(f"{a['part']}: {a['reason']}")
    return Reply(Answer(best, tuple(why), _line(reason), tuple(why.values())), None)


def _also_ok(item: Any, allowed: set[str]) -> bool:
    return (
        isinstance(item, dict)
        and item.get("id") in allowed
        and item.get("part") in PARTS
        and isinstance(item.get("reason"), str)
        and bool(item["reason"].strip())
    )


def _line(text: str) -> str:
    return " ".join(text.split())[:REASON_CHARS]


def _get(block: Any, key: str) -> Any:
    return block.get(key) if isinstance(block, dict) else getattr(block, key, None)


def usage_of(response: Any) -> dict[str, int | None]:
    """The Messages API usage fields; a cache field the server did not send stays None."""
    u = getattr(response, "usage", None)
    keys = ("input_tokens", "output_tokens", "cache_creation_input_tokens")
    out = {k: getattr(u, k, None) for k in (*keys, "cache_read_input_tokens")}
    return {k: (int(v) if isinstance(v, int) else None) for k, v in out.items()}


class AnthropicJudge:
    """The judge over the real ``anthropic`` SDK (``http_client`` for tests)."""

    def __init__(
        self,
        name: str,
        api_key: str | None,
        *,
        http_client: httpx2.Client | None = None,
        timeout: float = 300.0,
        retries: int = 5,
    ) -> None:
        self.name = name
        to = httpx2.Timeout(timeout, connect=10.0)
        self._client = anthropic.Anthropic(
            api_key=api_key,
            http_client=http_client or httpx2.Client(timeout=to),
            max_retries=retries,
            timeout=to,
        )

    def ask(self, request: JudgeRequest) -> Reply:
        body = dict(request.body)
        try:
            response = self._client.messages.create(**body)
        except anthropic.AuthenticationError as exc:
            raise BadInput("the Anthropic API rejected the key (ANTHROPIC_API_KEY)") from exc
        except anthropic.APIStatusError as exc:
            raise JudgeUnavailable(
                f"judge request refused: HTTP {exc.status_code}: {exc.message}"
            ) from exc
        except anthropic.APIConnectionError as exc:
            raise JudgeUnavailable(
                f"cannot reach the judge's model endpoint ({type(exc).__name__}); check "
                "ANTHROPIC_BASE_URL, or eval without --judge"
            ) from exc
        reply = check_answer(request, list(response.content), response.stop_reason)
        return Reply(reply.answer, reply.refused, usage_of(response))
