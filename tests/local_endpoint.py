"""A scripted Anthropic-compatible *local* server, and the conversation it holds.

``LocalAPI`` is :class:`fakes.FakeAPI` behaving the way the documentation of Ollama's
Anthropic compatibility describes such a server (``tool_choice`` and prompt caching
not supported, ``usage`` with ``input_tokens`` and ``output_tokens`` only, token counts
approximate) with the context window of a small local deployment:

- every answer's ``usage`` is its own approximate count of the request and the answer,
  without any cache field, whatever the script said;
- a request whose prompt plus ``max_tokens`` exceeds ``window`` tokens is refused with
  HTTP 400, as vLLM refuses one longer than ``--max-model-len`` (a run that sent it
  would fail there);
- scripted text answers stand for turns on which the model ignored ``tool_choice``;
  ``ignored_tool_choice`` counts them;
- ``delay`` seconds before each answer stand for a slow first token.

Its tokenizer is not drafter's: words take one leading space, digits go in threes,
punctuation in pairs, whitespace runs are one token (about 3.5 characters per token
on drafter's requests, like a code-trained BPE).

The conversation (``script_local``) drafts a small repository with one long module:
the route's model reads the module page after page, nine times (so even 32k-sized
pages overflow the window without cuts), then submits as fenced JSON in text; another
record first answers in prose and submits after the follow-up; a third submits one
quote that is not in the file and its repair answers in prose twice (flagged; the
quote is dropped); the account comes as a named call in unfenced JSON.  Material for
``test_local_endpoint`` (in process) and ``test_cli_local_e2e`` (``drafter draft`` over
HTTP); no tests of its own.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
from fakes import FakeAPI, Reply, tool, use
from gitrepo import commit

WINDOW = 32_768
MODEL = "qwen3-coder"

_TOKEN = re.compile(r" ?[A-Za-z]+|\d{1,3}| ?[^\sA-Za-z\d]{1,2}|\s+")


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)
    elif value is not None:
        yield str(value)


def count_tokens(value: Any) -> int:
    """The server's own approximate token count of a request or an answer."""
    return sum(len(_TOKEN.findall(s)) for s in _strings(value))


class LocalAPI(FakeAPI):
    def __init__(self, window: int = WINDOW, delay: float = 0.0) -> None:
        super().__init__()
        self.window = window
        self.delay = delay
        self.prompt_tokens: list[int] = []  # of every request the window admitted
        self.too_long: list[int] = []  # prompt tokens of every request refused
        self.usages: list[dict[str, int]] = []  # what each 200 answer reported
        self.ignored_tool_choice = 0

    def handler(self, request: httpx2.Request) -> httpx2.Response:
        if self.delay:
            time.sleep(self.delay)
        body = json.loads(request.content)
        prompt = count_tokens({k: v for k, v in body.items() if k != "max_tokens"})
        if prompt + int(body["max_tokens"]) > self.window:
            with self._lock:
                self.too_long.append(prompt)
            message = (
                f"This model's maximum context length is {self.window} tokens; the prompt "
                f"has {prompt} and max_tokens asks for {body['max_tokens']} more"
            )
            return httpx2.Response(
                400,
                json={
                    "type": "error",
                    "error": {"type": "invalid_request_error", "message": message},
                },
            )
        response = super().handler(request)
        if response.status_code != 200:
            return response
        data = json.loads(response.content)
        usage = {"input_tokens": prompt, "output_tokens": count_tokens(data["content"])}
        data["usage"] = usage  # no cache fields: the server has no prompt cache
        with self._lock:
            self.prompt_tokens.append(prompt)
            self.usages.append(usage)
            if body.get("tool_choice") and all(c["type"] == "text" for c in data["content"]):
                self.ignored_tool_choice += 1
        return httpx2.Response(200, json=data)


# -- the repository -----------------------------------------------------------------------

RIGHT = "result = call_model(prompt, tools=TOOLS)"
SAVE = 'with open(STATE_PATH, "w", encoding="utf-8") as handle:'
NOT_THERE = "state is encrypted before it is written"
PAGE_STARTS = tuple(range(1, 3_300, 400))  # nine reads: 1, 401, ..., 3201


def long_module() -> str:
    """About 3,300 lines (≈165 kB): each 400-line page is a full tool page."""
    lines = ['"""The agent loop of bigagent: helpers, then the route at the end."""', ""]
    lines += ["from bigagent.store import save_state", "", "TOOLS = []", ""]
    n = 0
    while len(lines) < 3_280:
        lines += [
            f"def helper_{n:04d}(value, scale={n % 7 + 1}):",
            f'    """Scale a value for step {n}; kept small so the module reads long."""',
            f"    return value * scale + {n}  # step {n} of the warm-up sequence",
            "",
        ]
        n += 1
    lines += [
        "def call_model(prompt, tools):",
        "    return {'text': prompt.upper(), 'tools': list(tools)}",
        "",
        "def run_loop(steps):",
        "    prompt = 'start'",
        "    for _ in range(steps):",
        f"        {RIGHT}",
        "        save_state(result)",
        "    return result",
        "",
        'if __name__ == "__main__":',
        "    run_loop(3)",
    ]
    return "\n".join(lines) + "\n"


def make_repo(path: Path) -> str:
    return commit(
        path,
        {
            "README.md": "# bigagent\n\nAn agent loop that saves its state after every step.\n",
            "bigagent/__init__.py": "",
            "bigagent/loop.py": long_module(),
            "bigagent/store.py": (
                'STATE_PATH = "state.json"\n\n\ndef save_state(result):\n'
                f"    {SAVE}\n        handle.write(repr(result))\n"
            ),
        },
    )


# -- the conversation -------------------------------------------------------------------------

STATUSES = [
    {"name": "implementation conclusion status", "value": "wired"},
    {"name": "operation conclusion status", "value": "uninspected"},
]

PLAN = {
    "system": "bigagent",
    "items": [
        {
            "id": "RT-RTE-loop",
            "kind": "RTE",
            "label": "Agent loop",
            "files": ["bigagent/loop.py"],
            "rationale": "The only route.",
        },
        {
            "id": "RT-CMP-store",
            "kind": "CMP",
            "label": "State store",
            "files": ["bigagent/store.py"],
            "rationale": "Every step is saved.",
        },
        {
            "id": "RT-OBJ-state",
            "kind": "OBJ",
            "label": "State file",
            "files": ["bigagent/store.py"],
            "rationale": "The saved state.",
        },
    ],
}


def record(label: str, lead: str, *witnesses: tuple[str, str]) -> dict[str, Any]:
    return {
        "label": label,
        "lead": lead,
        "fields": STATUSES,
        "paragraphs": [f"{label}, as the source shows (SRC-1)."],
        "witnesses": [{"quote": q, "path": p} for q, p in witnesses],
    }


LOOP = record(
    "Agent loop",
    "Endpoints/progression: __main__ → run_loop → call_model → save_state",
    (RIGHT, "bigagent/loop.py"),
    ("save_state(result)", "bigagent/loop.py"),
)
STORE = record("State store", "Writes the state after each step.", (SAVE, "bigagent/store.py"))
STATE = record(
    "State file",
    "Object: state.json, written by save_state.",
    ('STATE_PATH = "state.json"', "bigagent/store.py"),
    (NOT_THERE, "bigagent/store.py"),
)
ACCOUNT = {
    "sections": [
        {
            "title": "Scope and ordinary invocation",
            "items": [
                {"type": "paragraph", "text": "RT-RTE-loop runs three steps via RT-CMP-store."},
                {"type": "witness", "text": "run_loop(3)", "path": "bigagent/loop.py"},
            ],
        }
    ]
}


def fenced(obj: dict[str, Any]) -> Reply:
    """The call written as a fenced JSON block in prose (``tool_choice`` ignored)."""
    body = json.dumps(obj, indent=2)
    return Reply(text=f"I have what I need. Here is the record:\n\n```json\n{body}\n```\n")


def prose(text: str) -> Reply:
    return Reply(text=text)


def script_local(fake: FakeAPI) -> None:
    fake.script("plan", use(("read_file", {"path": "README.md"})), tool(PLAN))
    pages = [use(("read_file", {"path": "bigagent/loop.py", "start_line": s})) for s in PAGE_STARTS]
    fake.script(
        "record:RT-RTE-loop",
        *pages,
        use(("grep", {"pattern": r"def run_loop\(", "path_glob": "bigagent/*"})),
        fenced(LOOP),
    )
    fake.script(
        "record:RT-CMP-store",
        prose("The store writes the state as JSON after every step; that is the component."),
    )
    fake.script("record:RT-CMP-store+retry", tool(STORE))
    # its quote that is not there gets the one fix-up turn; the model resubmits as is
    fake.script("record:RT-OBJ-state", tool(STATE), tool(STATE))
    fake.script("repair:RT-OBJ-state", prose("I could not find a better quote; the state is safe."))
    fake.script("repair:RT-OBJ-state+retry", prose("Still nothing to add, sorry."))
    named = json.dumps({"name": "submit_account", "input": ACCOUNT})
    fake.script("account", prose(f"Account follows. {named} That is all."))
