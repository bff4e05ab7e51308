"""An OpenAI-compatible provider: Chat Completions with tools, through the ``openai`` SDK.

Most local servers speak this API (vLLM, llama.cpp, LM Studio, Ollama), so
``--provider openai --base-url URL`` drafts with any of them.  The transport translates
the loop's Messages-format request into a Chat Completions one (system message,
``function`` tools, ``tool_choice`` required or named, assistant ``tool_calls`` and
``tool`` messages) and the answer back into a Messages turn: text and ``tool_use``
blocks, ``tool_calls`` / ``length`` / ``stop`` as ``tool_use`` / ``max_tokens`` /
``end_turn``, and usage with the cached prompt tokens as cache reads.  Arguments that
are not a JSON object are kept as the turn's text, so the loop's text-call recovery
and its corrective turn treat them as any answer in prose.  Prompt caching is the
server's affair: the loop's cache marks are not sent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from graph.jsontypes import JsonDict
from graph.proposers.providers.transport import Provider, TransportSettings

if TYPE_CHECKING:
    import httpx2
    import openai
    from anthropic.types import Message

    from graph.proposers.providers.retry import RetryPolicy, SdkErrors
    from graph.proposers.providers.transport import Transport

STOP_REASONS = {"tool_calls": "tool_use", "function_call": "tool_use", "length": "max_tokens"}


def _text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    blocks = content if isinstance(content, list) else []
    return "\n\n".join(b.get("text", "") for b in blocks if b.get("type") == "text")


def _system(system: object) -> list[JsonDict]:
    text = _text_of(system) if system else ""
    return [{"role": "system", "content": text}] if text else []


def _user(content: str | list[JsonDict]) -> list[JsonDict]:
    """Tool results first (each answers the call just before), then the user's text."""
    if isinstance(content, str):
        return [{"role": "user", "content": content}]
    out: list[JsonDict] = []
    for b in content:
        if b.get("type") == "tool_result":
            text = _text_of(b.get("content") or "")
            if b.get("is_error"):
                text = f"Error: {text}"
            out.append({"role": "tool", "tool_call_id": b["tool_use_id"], "content": text})
    text = _text_of(content)
    if text:
        out.append({"role": "user", "content": text})
    return out


def _assistant(content: str | list[JsonDict]) -> JsonDict:
    if isinstance(content, str):
        return {"role": "assistant", "content": content}
    msg: JsonDict = {"role": "assistant", "content": _text_of(content) or None}
    calls = [
        {
            "id": b["id"],
            "type": "function",
            "function": {"name": b["name"], "arguments": json.dumps(b.get("input") or {})},
        }
        for b in content
        if b.get("type") == "tool_use"
    ]
    if calls:
        msg["tool_calls"] = calls
    return msg


def chat_request(request: JsonDict) -> JsonDict:
    """The Chat Completions request of a Messages-format request."""
    messages = _system(request.get("system"))
    for m in request["messages"]:
        if m["role"] == "user":
            messages += _user(m["content"])
        else:
            messages.append(_assistant(m["content"]))
    out: JsonDict = {
        "model": request["model"],
        "max_tokens": request["max_tokens"],
        "messages": messages,
    }
    tools = [
        {
            "type": "function",
            "function": {
                "name": t["name"],
                "description": t.get("description", ""),
                "parameters": t["input_schema"],
            },
        }
        for t in request.get("tools") or []
    ]
    if tools:
        out["tools"] = tools
        choice = request.get("tool_choice") or {}
        if choice.get("type") == "tool":
            out["tool_choice"] = {"type": "function", "function": {"name": choice["name"]}}
        elif choice.get("type") == "any":
            out["tool_choice"] = "required"
    return out


def message_of(body: JsonDict) -> Message:
    """The Messages turn of a Chat Completions answer (a dict of its JSON)."""
    from anthropic.types import Message

    choice = (body.get("choices") or [{}])[0]
    msg = choice.get("message") or {}
    blocks: list[JsonDict] = []
    texts = [msg["content"]] if msg.get("content") else []
    for call in msg.get("tool_calls") or []:
        fn = call.get("function") or {}
        try:
            args = json.loads(fn.get("arguments") or "{}")
        except json.JSONDecodeError:
            args = None
        if isinstance(args, dict):
            blocks.append(
                {"type": "tool_use", "id": call["id"], "name": fn.get("name", ""), "input": args}
            )
        else:  # not a call the loop can run: its text, for the text-call recovery
            texts.append(json.dumps({"name": fn.get("name", ""), "input": fn.get("arguments")}))
    if texts:
        blocks.insert(0, {"type": "text", "text": "\n\n".join(texts)})
    usage = body.get("usage") or {}
    cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
    reason = choice.get("finish_reason") or "stop"
    return Message.model_validate(
        {
            "id": body.get("id") or "chatcmpl",
            "type": "message",
            "role": "assistant",
            "model": body.get("model") or "",
            "content": blocks,
            "stop_reason": STOP_REASONS.get(reason, "end_turn"),
            "stop_sequence": None,
            "usage": {
                "input_tokens": max(0, int(usage.get("prompt_tokens") or 0) - int(cached)),
                "output_tokens": int(usage.get("completion_tokens") or 0),
                "cache_read_input_tokens": int(cached),
                "cache_creation_input_tokens": 0,
            },
        }
    )


@dataclass
class OpenAITransport:
    """Chat Completions through the ``openai`` SDK, under drafter's retry policy."""

    client: openai.OpenAI
    retry: RetryPolicy = field(default_factory=lambda: _policy())

    @property
    def url(self) -> str:
        return str(self.client.base_url)

    def send(self, request: JsonDict) -> Message:
        body = chat_request(request)
        return message_of(self._create(body))

    def _create(self, body: JsonDict) -> JsonDict:
        from graph.proposers.providers.retry import call_with_retries

        def once() -> JsonDict:
            raw = self.client.chat.completions.with_raw_response.create(**body)
            parsed: JsonDict = json.loads(raw.text)
            return parsed

        return call_with_retries(once, self.retry, _errors(), url=self.url)


def _errors() -> SdkErrors:
    """The openai SDK's errors (imported with the transport, not with the registry)."""
    import openai

    from graph.proposers.providers.retry import SdkErrors

    return SdkErrors(
        auth=openai.AuthenticationError,
        status=openai.APIStatusError,
        connection=openai.APIConnectionError,
        timeout=openai.APITimeoutError,
        bad_key=f"the endpoint rejected the key ({PROVIDER.key_env})",
        endpoint_hint=f"--base-url or {PROVIDER.base_url_env}",
    )


def _policy() -> RetryPolicy:
    from graph.proposers.providers.retry import RetryPolicy

    return RetryPolicy()


def make_openai_client(
    api_key: str | None,
    base_url: str | None,
    timeout: float,
    http_client: httpx2.Client | None = None,
) -> openai.OpenAI:
    """An SDK client with drafter's retry policy in charge (``max_retries=0``)."""
    import httpx2
    import openai

    to = httpx2.Timeout(timeout, connect=10.0)
    return openai.OpenAI(
        api_key=api_key,
        base_url=base_url,  # None: the SDK reads $OPENAI_BASE_URL, else api.openai.com
        http_client=http_client or httpx2.Client(timeout=to),
        max_retries=0,
        timeout=to,
    )


def _transport(s: TransportSettings) -> Transport:
    return OpenAITransport(make_openai_client(s.api_key, s.base_url, s.timeout), s.retry)


PROVIDER = Provider("openai", "OPENAI_API_KEY", "OPENAI_BASE_URL", _transport)
