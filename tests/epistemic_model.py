"""A scripted Claude for epistemic drafts, behind ``httpx2.MockTransport``.

The real anthropic SDK talks to it as to the API.  Each conversation is recognised by
its opening (``Draft the record EPI-…`` or the sections task) and answered by turn:

- the record whose deciding line holds ``THRESHOLD`` is investigated: the model reads
  the file, checks a wrong quote, checks the right one, then submits with an invented
  ``part_of`` and an invented runtime ID in its prose;
- every other record is submitted at once from its deciding line, part of a real
  runtime record;
- the sections conversation reads the README, then submits a boundary with an inline
  witness (and one that does not verify), a conclusion, and three cell edits: one it
  can decide, one citing an invented ID, one on a row's identity column.

Usage is computed from the requests the way the API counts it with the proposer's
cache breakpoints: the prefix already sent (by the conversation's previous turn, or
the shared system and tools of any earlier request) is a cache read, the rest a
cache write, and the answer's JSON is output, at 3.5 characters per token.
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx2

INVENTED_PART = "RT-RTE-made-up-route"
INVENTED_TEXT = "RT-OBJ-never-existed"
INVENTED_CELL = "RT-RTE-invented-route"
REAL_PART = "RT-BAP-score-bar"
CHARS_PER_TOKEN = 3.5


class Killed(BaseException):
    """Stands in for the process dying (not an Exception: nothing catches it)."""


def _common(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


class EpiModel:
    def __init__(
        self,
        readme_line: str,
        kill_at: int | None = None,
        boundary_extra: list[dict[str, Any]] | None = None,
    ) -> None:
        self.readme_line = readme_line
        self.kill_at = kill_at
        #: More boundary items the sections conversation submits (after the usual ones).
        self.boundary_extra = list(boundary_extra or [])
        self.log: list[dict[str, Any]] = []
        self.convs: list[str] = []
        self.usage: list[dict[str, int]] = []
        self.target: str | None = None
        self._last: dict[str, str] = {}
        self._first = ""

    # -- what the model says --------------------------------------------------------

    @staticmethod
    def conversation(body: dict[str, Any]) -> str:
        first = body["messages"][0]["content"][0]["text"]
        m = re.search(r"Draft the record (EPI-[A-Z]+-[a-z0-9-]+)", first)
        return m.group(1) if m else "sections"

    @staticmethod
    def deciding(body: dict[str, Any]) -> tuple[str, str]:
        first = body["messages"][0]["content"][0]["text"]
        quote, path = re.search(r"^- (.+) --- (\S+)$", first, re.M).groups()
        return quote, path

    def answer(self, conv: str, turn: int, body: dict[str, Any]) -> list[tuple[str, Any]]:
        if conv == "sections":
            return self.sections(turn, body)
        quote, path = self.deciding(body)
        investigate = "THRESHOLD" in quote and self.target in (None, conv)
        if investigate:
            self.target = conv
            right = {"quote": quote, "path": path}
            steps: list[tuple[str, Any]] = [
                ("read_file", {"path": path}),
                ("check_quotes", {"witnesses": [{"quote": quote + "  # not there", "path": path}]}),
                ("check_quotes", {"witnesses": [right]}),
            ]
            if turn < len(steps):
                return [steps[turn]]
        return [("submit_record", self.record(conv, quote, path, investigate))]

    def record(self, rid: str, quote: str, path: str, investigated: bool) -> dict[str, Any]:
        route = "-RTE-" in rid
        prose = (
            f"It feeds {REAL_PART} and {INVENTED_TEXT}; the comparison does not establish "
            "that the score is correct."
            if investigated
            else "Written by the scripted model."
        )
        fields = [
            {"name": "implementation conclusion status", "value": "wired"},
            {"name": "operation conclusion status", "value": "uninspected"},
        ]
        return {
            "label": f"Model label for {rid}",
            "part_of": INVENTED_PART if investigated else REAL_PART,
            "lead": "Endpoints/progression: score → threshold → decision."
            if route
            else "Source-native identity: scores. Representational form: float. "
            "Storage substrate: process memory.",
            "fields": fields,
            "paragraphs": [prose],
            "witnesses": [{"quote": quote, "path": path}],
        }

    def sections(self, turn: int, body: dict[str, Any]) -> list[tuple[str, Any]]:
        if turn == 0:
            return [("read_file", {"path": "README.md"})]
        data = body["messages"][0]["content"][1]["text"]
        ledger = re.search(
            r'kind="draft_table" title="Authority-route ledger">\n(.+)\n', data
        ).group(1)
        header = ledger.split(" | ")
        return [
            (
                "submit_sections",
                {
                    "boundary": [
                        {
                            "type": "paragraph",
                            "text": "SRC-1 supplies code, not runs; "
                            "RT-CLM-no-internet is relied on as supplied.",
                        },
                        {"type": "witness", "text": self.readme_line, "path": "README.md"},
                        {
                            "type": "witness",
                            "text": "a line the README never had",
                            "path": "README.md",
                        },
                        *self.boundary_extra,
                    ],
                    "conclusion": [
                        {"type": "paragraph", "text": "Scores are conditional on the checks."}
                    ],
                    "cells": [
                        {
                            "table": "Authority-route ledger",
                            "row": 1,
                            "column": header[-1],
                            "value": "decided by the model from the source",
                        },
                        {
                            "table": "Authority-route ledger",
                            "row": 2,
                            "column": header[-1],
                            "value": f"see {INVENTED_CELL}",
                        },
                        {
                            "table": "Authority-route ledger",
                            "row": 1,
                            "column": header[0],
                            "value": "EPI-RTE-renamed",
                        },
                    ],
                },
            )
        ]

    # -- transport --------------------------------------------------------------------

    def _usage(self, conv: str, sent: str, out: str) -> dict[str, int]:
        read = max(_common(sent, self._last.get(conv, "")), _common(sent, self._first))
        self._last[conv] = sent
        return {
            "input_tokens": 0,
            "output_tokens": int(len(out) / CHARS_PER_TOKEN),
            "cache_creation_input_tokens": int((len(sent) - read) / CHARS_PER_TOKEN),
            "cache_read_input_tokens": int(read / CHARS_PER_TOKEN),
        }

    def handler(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        if self.kill_at is not None and len(self.log) + 1 >= self.kill_at:
            raise Killed(f"killed at request {len(self.log) + 1}")
        conv = self.conversation(body)
        turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
        calls = self.answer(conv, turn, body)
        self.log.append(body)
        self.convs.append(conv)
        content = [
            {"type": "tool_use", "id": f"toolu_{len(self.log):04d}_{i}", "name": n, "input": x}
            for i, (n, x) in enumerate(calls)
        ]
        if not self._first:  # tools and system: the shared prefix every request reads
            self._first = json.dumps([body["tools"], body["system"]])[:-1]
        sent = json.dumps([body["tools"], body["system"], body["messages"]])
        usage = self._usage(conv, sent, json.dumps(content))
        self.usage.append(usage)
        return httpx2.Response(
            200,
            json={
                "id": f"msg_{len(self.log):04d}",
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "content": content,
                "stop_reason": "tool_use",
                "stop_sequence": None,
                "usage": usage,
            },
        )

    def requests_of(self, conv: str) -> list[dict[str, Any]]:
        return [b for b, c in zip(self.log, self.convs, strict=True) if c == conv]
