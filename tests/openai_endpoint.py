"""A scripted OpenAI-compatible server (Chat Completions with tools) on loopback.

It answers ``POST …/chat/completions`` as vLLM, llama.cpp or LM Studio do: a
``choices[0].message`` with ``content`` and ``tool_calls`` (arguments as a JSON
string), a ``finish_reason`` and ``usage`` with ``prompt_tokens_details.cached_tokens``.
Each conversation is told by its terminal tool (the one ``submit_*`` function offered)
and, for a record, the record ID in its first user message; its scripted answers are
given in order, the last one repeated.  Every request body is kept (``requests``).

The conversation (``script_openai``) drafts ``local_endpoint``'s small repository: the
planner reads a file first (so a tool result goes back as a ``tool`` message), the route
is submitted as fenced JSON in the answer's text (a server that ignored ``tool_choice``),
the other records and the account as tool calls.  Material for
``test_openai_provider``; no tests of its own.  Only ever binds 127.0.0.1.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from local_endpoint import ACCOUNT, LOOP, PLAN, SAVE, STORE, record

MODEL = "qwen3-coder"
#: Prompt tokens the server says it answered from its own cache, on every answer.
CACHED = 64


@dataclass(frozen=True)
class Answer:
    """One scripted answer: a tool call (``name`` and ``arguments``) or text."""

    name: str | None = None
    arguments: Any = None
    text: str | None = None


def call(name: str, arguments: Any) -> Answer:
    return Answer(name=name, arguments=arguments)


def text(body: str) -> Answer:
    return Answer(text=body)


def conversation_of(body: dict[str, Any]) -> str:
    """``plan``, ``account``, ``record:ID`` or ``repair:ID``: which conversation asks."""
    names = [t["function"]["name"] for t in body.get("tools") or []]
    terminal = next((n for n in names if n.startswith("submit_")), "")
    if terminal == "submit_plan":
        return "plan"
    if terminal == "submit_account":
        return "account"
    first = next(m["content"] for m in body["messages"] if m["role"] == "user")
    m = re.search(r"record (RT-[A-Z]+-[a-z0-9-]+)", first)
    rid = m.group(1) if m else "?"
    return ("repair:" if "did not verify" in first else "record:") + rid


class OpenAIServer:
    def __init__(self) -> None:
        self.scripts: dict[str, list[Answer]] = {}
        self.served: dict[str, int] = {}
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        """The base URL an OpenAI client is given (``/v1`` as the servers serve it)."""
        port = self._httpd.server_address[1]
        return f"http://127.0.0.1:{port}/v1"

    def script(self, key: str, *answers: Answer) -> None:
        self.scripts.setdefault(key, []).extend(answers)

    def close(self) -> None:
        self._httpd.shutdown()

    def of(self, key: str) -> list[dict[str, Any]]:
        return [b for b in self.requests if conversation_of(b) == key]

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        key = conversation_of(body)
        with self._lock:
            self.requests.append(body)
            n = self.served.get(key, 0)
            self.served[key] = n + 1
            script = self.scripts.get(key) or [text("I have nothing to add.")]
            ans = script[min(n, len(script) - 1)]
            seq = len(self.requests)
        message: dict[str, Any] = {"role": "assistant", "content": ans.text}
        reason = "stop"
        if ans.name is not None:
            message["tool_calls"] = [
                {
                    "id": f"call_{seq}",
                    "type": "function",
                    "function": {"name": ans.name, "arguments": json.dumps(ans.arguments)},
                }
            ]
            reason = "tool_calls"
        prompt = len(json.dumps(body)) // 4
        return {
            "id": f"chatcmpl-{seq}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", MODEL),
            "choices": [{"index": 0, "message": message, "finish_reason": reason}],
            "usage": {
                "prompt_tokens": prompt + CACHED,
                "completion_tokens": 50,
                "total_tokens": prompt + CACHED + 50,
                "prompt_tokens_details": {"cached_tokens": CACHED},
            },
        }

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
                size = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(size).decode() or "{}")
                server.paths.append(self.path)
                if not self.path.endswith("/chat/completions"):
                    self.send_response(404)
                    self.end_headers()
                    return
                out = json.dumps(server.answer(body)).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *args: Any) -> None:
                pass

        return Handler


#: The state-file record with only a quote that is in the file.
STATE_FOUND = record(
    "State file",
    "Object: state.json, written by save_state.",
    ('STATE_PATH = "state.json"', "bigagent/store.py"),
    (SAVE, "bigagent/store.py"),
)


def script_openai(server: OpenAIServer) -> None:
    server.script("plan", call("read_file", {"path": "README.md"}), call("submit_plan", PLAN))
    fenced = json.dumps({"name": "submit_record", "input": LOOP}, indent=2)
    server.script("record:RT-RTE-loop", text(f"Here is the record:\n\n```json\n{fenced}\n```\n"))
    server.script("record:RT-CMP-store", call("submit_record", STORE))
    server.script("record:RT-OBJ-state", call("submit_record", STATE_FOUND))
    server.script("account", call("submit_account", ACCOUNT))
