"""Test fakes shared by many modules: the scripted Messages API and hand-built drafts.

``FakeAPI`` is a scripted Messages API behind ``httpx2.MockTransport``.  The real
anthropic SDK talks to it exactly as it would to the API: requests are recorded in
``log`` (parsed JSON bodies, in arrival order) and answered from per-conversation
scripts keyed by what the request asks for (``plan``, ``record:<ID>``, ``repair:<ID>``,
``account``; a corrective turn adds ``+retry``).  A conversation with tools pops one
reply per turn from its key's queue: a reply may call investigation tools (``calls``)
instead of submitting.

``make_record`` and ``make_report`` build drafts from the model directly, for tests where only
the code reading a draft is under test.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2

from drafter.model import (
    KIND_SECTION,
    AccountSection,
    Block,
    Bullet,
    Paragraph,
    Record,
    RecordSection,
    Report,
    ReportType,
    Source,
    Witness,
    WitnessBlock,
)
from graph.configuration import Configuration
from graph.proposers.claude import ClaudeProposer
from graph.proposers.providers.retry import RetryPolicy
from graph.runner import RunResult, run_draft
from retrieval.survey.model import Category, Finding

#: The model every fake conversation names.
MODEL = "claude-sonnet-5-5"

USAGE = {
    "input_tokens": 1200,
    "output_tokens": 300,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 0,
}


class Killed(BaseException):
    """Stands in for the process dying mid-run (not an Exception: nothing catches it)."""


@dataclass
class Reply:
    status: int = 200
    tool_input: dict[str, Any] | None = None
    usage: dict[str, int] = field(default_factory=lambda: dict(USAGE))
    headers: dict[str, str] = field(default_factory=dict)
    text: str | None = None  # a text-only answer instead of a tool call
    #: Investigation tool calls (name, input) instead of a submission.
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    stop_reason: str | None = None  # e.g. "max_tokens" for a cut answer


def tool(tool_input: dict[str, Any], **usage: int) -> Reply:
    return Reply(tool_input=tool_input, usage={**USAGE, **usage})


def use(*calls: tuple[str, dict[str, Any]], **usage: int) -> Reply:
    """A turn that calls investigation tools (read_file, grep, check_quotes, ...)."""
    return Reply(calls=list(calls), usage={**USAGE, **usage})


def submit_tool(body: dict[str, Any]) -> str:
    """The conversation's terminal tool: the one ``submit_*`` tool it offers."""
    return next(t["name"] for t in body["tools"] if t["name"].startswith("submit_"))


def _corrective(body: dict[str, Any]) -> bool:
    """True when the newest user turn tells the model its submission was refused."""
    if len(body["messages"]) < 2:
        return False
    last = body["messages"][-1]["content"]
    blocks = last if isinstance(last, list) else [{"type": "text", "text": last}]
    for b in blocks:
        text = str(b.get("content") or b.get("text") or "")
        if "did not match the schema" in text or text.startswith("Answer only by calling"):
            return True
    return False


def error(status: int, **headers: str) -> Reply:
    return Reply(status=status, headers=headers)


_ERR_TYPES = {429: "rate_limit_error", 529: "overloaded_error", 500: "api_error", 503: "api_error"}


class FakeAPI:
    def __init__(self) -> None:
        self.log: list[dict[str, Any]] = []
        self.keys: list[str] = []
        self.scripts: dict[str, list[Reply]] = {}
        self.kill_at: int | None = None  # raise Killed on the n-th request (1-based)
        self.served: list[dict[str, int]] = []  # usage of every 200 answer sent
        self._lock = threading.Lock()
        self._n = 0
        self.last_proposer: ClaudeProposer | None = None  # the one draft() used

    # -- scripting ------------------------------------------------------------------

    def script(self, key: str, *replies: Reply) -> None:
        self.scripts.setdefault(key, []).extend(replies)

    @staticmethod
    def key_of(body: dict[str, Any]) -> str:
        name = submit_tool(body)
        first = body["messages"][0]["content"]
        text = first[0]["text"] if isinstance(first, list) else first
        if name == "submit_plan":
            key = "plan"
        elif name == "submit_account":
            key = "account"
        else:
            m = re.search(r"record (RT-[A-Z]+-[a-z0-9-]+)", text)
            rid = m.group(1) if m else "?"
            key = ("repair:" if "did not verify" in text else "record:") + rid
        if _corrective(body):
            key += "+retry"
        return key

    def calls(self, key: str) -> list[dict[str, Any]]:
        return [b for b, k in zip(self.log, self.keys, strict=True) if k == key]

    # -- transport --------------------------------------------------------------------

    def handler(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        key = self.key_of(body)
        with self._lock:
            self._n += 1
            if self.kill_at is not None and self._n >= self.kill_at:
                raise Killed(f"killed at request {self._n} ({key})")
            self.log.append(body)
            self.keys.append(key)
            queue = self.scripts.get(key)
            if not queue:
                return httpx2.Response(
                    400,
                    json={
                        "type": "error",
                        "error": {
                            "type": "invalid_request_error",
                            "message": f"unscripted call {key}",
                        },
                    },
                )
            reply = queue.pop(0)
        if reply.status != 200:
            etype = _ERR_TYPES.get(reply.status, "api_error")
            return httpx2.Response(
                reply.status,
                headers=reply.headers,
                json={
                    "type": "error",
                    "error": {"type": etype, "message": f"scripted {reply.status}"},
                },
            )
        with self._lock:
            self.served.append(dict(reply.usage))
        if reply.text is not None:
            content = [{"type": "text", "text": reply.text}]
            stop = "end_turn"
        else:
            calls = reply.calls or [(submit_tool(body), reply.tool_input)]
            content = [
                {"type": "tool_use", "id": f"toolu_{self._n:04d}_{i}", "name": n, "input": inp}
                for i, (n, inp) in enumerate(calls)
            ]
            stop = reply.stop_reason or "tool_use"
        return httpx2.Response(
            200,
            json={
                "id": f"msg_{self._n:04d}",
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "content": content,
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": reply.usage,
            },
        )

    def client(self) -> httpx2.Client:
        return httpx2.Client(transport=httpx2.MockTransport(self.handler))

    def proposer(self, model: str = MODEL, **kw: Any) -> ClaudeProposer:
        retry = kw.pop("retry", None) or RetryPolicy(base_delay=0.001, max_delay=0.01)
        return ClaudeProposer(
            model, api_key="test-key", http_client=self.client(), retry=retry, **kw
        )

    def draft(
        self,
        repo: Path | str,
        rev: str,
        data_dir: Path | None,
        settings: dict[str, Any] | None = None,
        **run: Any,
    ) -> RunResult:
        """A Claude draft of ``repo`` at ``rev`` through the real graph, this fake
        answering: one conversation at a time unless ``settings`` (Configuration
        fields) say otherwise; ``run`` goes to ``run_draft`` (system, thread, index)."""
        prop = self.proposer(MODEL)
        config = Configuration(
            **{"model": MODEL, "generator": "claude", "concurrency": 1, **(settings or {})}
        )
        self.last_proposer = prop
        return run_draft(str(repo), rev, config, lambda c, r: prop, data_dir=data_dir, **run)


# -- drafts built by hand ------------------------------------------------------------------

#: A witness as a test writes it: a model ``Witness``, or ``(quote, path)``.
WitnessSpec = Witness | tuple[str, str]


def witness_block(w: WitnessSpec) -> WitnessBlock:
    return WitnessBlock(witness=w if isinstance(w, Witness) else Witness(quote=w[0], path=w[1]))


def make_record(
    rid: str,
    label: str,
    body: str = "Claimed operation: x.",
    witnesses: Sequence[WitnessSpec] = (),
    bullets: Sequence[tuple[str, str]] = (),
    **fields: Any,
) -> Record:
    """A record as the format orders it: the lead paragraph, bullets, then witnesses;
    ``fields`` are further record fields (``part_of``, ``flags``)."""
    blocks: list[Block] = [Paragraph(text=body)]
    blocks += [Bullet(name=n, value=v) for n, v in bullets]
    blocks += [witness_block(w) for w in witnesses]
    return Record(id=rid, label=label, blocks=blocks, **fields)


def make_report(
    records: Iterable[Record],
    account: Sequence[WitnessSpec] | None = None,
    *,
    system: str = "tiny",
    source: Source | None = None,
) -> Report:
    """A runtime report of ``records``, each in its kind's section (sections in order of
    first use); ``account`` witnesses form one runtime account section."""
    sections: dict[str, RecordSection] = {}
    for r in records:
        title = KIND_SECTION[r.kind]
        sections.setdefault(title, RecordSection(title=title)).records.append(r)
    acc = []
    if account is not None:
        blocks: list[Block] = [witness_block(w) for w in account]
        acc = [AccountSection(title="Runtime account", blocks=blocks)]
    return Report(
        system=system,
        type=ReportType.runtime,
        source=source,
        account=acc,
        sections=list(sections.values()),
    )


# -- survey findings built by hand ------------------------------------------------------------


def make_finding(
    category: Category | str,
    line: int = 1,
    *,
    path: str = "a.py",
    symbol: str = "f",
    snippet: str = "x",
) -> Finding:
    """A one-line finding of kind ``k`` with the runner's ID shape ``category:path:line``."""
    return Finding(
        id=f"{category}:{path}:{line}",
        category=category,
        kind="k",
        path=path,
        start_line=line,
        end_line=line,
        symbol=symbol,
        snippet=snippet,
    )
