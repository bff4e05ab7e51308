"""The planner's request sizes, turn by turn, for a scripted planner on a real repository.

The real proposer plans through the real anthropic SDK over an in-process
``httpx2.MockTransport`` (no key, no network); only the model is scripted.  Its
investigation is fixed in advance, so it is the same whatever the requests carry and
the script measures any checkout the same way (before and after a change to what the
planner is sent):

- default: the survey's entry findings, a repository-wide grep for model calls, then
  the entry files with the most findings read page by page (two pages at most each),
  one call per turn until the plan budget is spent; then ``submit_plan``.
- ``--transcript T``: the planner's own turns from a relay transcript (its words and
  tool calls as the reasoner made them), then ``submit_plan``.

Printed per request: bytes of the JSON body, estimated tokens (bytes / 3.5, as
:mod:`graph.estimate` counts), and what a prompt cache would read and write: the body
is split into blocks (tool definitions, system blocks, message blocks); the longest
prefix that ends where an earlier request of the run put a cache breakpoint is read,
the rest up to this request's last breakpoint is written.  Approximate (the API counts
tokens and looks back at most 20 blocks), but the same measure for every checkout.  The
last lines total them, and price the input in plain input tokens (cache reads at 0.1x,
writes at 1.25x, the API's multipliers).  To measure the code before a change, run this
script with ``PYTHONPATH`` pointing at an export of that commit (``git archive``).

    .venv/bin/python benchmarks/plan_requests.py REPO --rev REV [--no-index] [--transcript T]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import httpx2
from canned import message_response

MODEL = "claude-sonnet-5-5"
CHARS_PER_TOKEN = 3.5
MODEL_CALLS = r"messages\.create|chat\.completions|ChatCompletion|anthropic\.|openai\."


class ScriptedPlanner:
    """Answers each planning request with the next scripted turn."""

    def __init__(
        self, turns: list[tuple[str, list[tuple[str, dict[str, Any]]]]], plan: dict[str, Any]
    ):
        self.turns, self.plan = turns, plan
        self.log: list[dict[str, Any]] = []
        self.sizes: list[int] = []  # bytes of each request body as the SDK sent it

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        self.log.append(body)
        self.sizes.append(len(request.content))
        n = len(self.log)
        if n <= len(self.turns):
            words, calls = self.turns[n - 1]
        else:
            words, calls = "Submitting the plan.", [("submit_plan", self.plan)]
        content: list[dict[str, Any]] = [{"type": "text", "text": words}]
        content += [
            {"type": "tool_use", "id": f"toolu_{n:02d}_{i}", "name": name, "input": inp}
            for i, (name, inp) in enumerate(calls)
        ]
        usage = {"input_tokens": len(request.content) // 4, "output_tokens": 200}
        return message_response(body, n, content, usage)


def scripted_turns(res: Any, budget: int) -> list[tuple[str, list[tuple[str, dict[str, Any]]]]]:
    """One call per turn: entry findings, a grep for model calls, then pages of the entry
    files with the most findings (each page starting where the last one stopped)."""
    from graph.proposers.agent.tools import SnapshotTools

    tools = SnapshotTools(res)
    findings = res.survey().findings
    per_file = Counter(f.path for f in findings)
    entries = list(dict.fromkeys(f.path for f in findings if f.category == "entry_point"))
    entries.sort(key=lambda p: (-per_file[p], p))
    turns: list[tuple[str, list[tuple[str, dict[str, Any]]]]] = [
        ("List the entry points.", [("survey", {"category": "entry_point"})]),
        (
            "Find the model endpoints.",
            [("grep", {"pattern": MODEL_CALLS, "path_glob": "*.py", "max_hits": 60})],
        ),
    ]
    for path in entries:
        start = 1
        for _ in range(2):
            if len(turns) >= budget:
                return turns
            span = tools.page_span({"path": path, "start_line": start})
            if span is None:
                break
            turns.append(
                (
                    f"Read {path} from line {start}.",
                    [("read_file", {"path": path, "start_line": start})],
                )
            )
            start = span[2] + 1
    return turns


def transcript_turns(path: Path) -> list[tuple[str, list[tuple[str, dict[str, Any]]]]]:
    """The planner's investigation turns of a relay transcript (up to its submit_plan)."""
    turns = []
    for line in path.read_text().splitlines():
        answer = json.loads(line)["answer"]["content"]
        calls = [(b["name"], b["input"]) for b in answer if b.get("type") == "tool_use"]
        if any(name == "submit_plan" for name, _ in calls):
            break
        words = " ".join(b["text"] for b in answer if b.get("type") == "text")
        turns.append((words, calls))
    return turns


def _blocks(body: dict[str, Any]) -> list[tuple[str, bool]]:
    """(JSON without cache markers, ends a breakpoint) for each block of a request."""
    out: list[tuple[str, bool]] = []

    def add(block: dict[str, Any], prefix: str = "") -> None:
        bare = {k: v for k, v in block.items() if k != "cache_control"}
        out.append((prefix + json.dumps(bare, ensure_ascii=False), "cache_control" in block))

    for t in body["tools"]:
        add(t)
    for s in body["system"]:
        add(s)
    for m in body["messages"]:
        content = m["content"]
        for b in content if isinstance(content, list) else [{"type": "text", "text": content}]:
            add(b, m["role"] + ":")
    return out


def cache_figures(log: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """(bytes read from the cache, bytes written to it) per request, in order."""
    marked: set[str] = set()
    out = []
    for body in log:
        h = hashlib.sha256()
        prefix: list[tuple[str, int, bool]] = []  # (hash, bytes so far, breakpoint)
        size = 0
        for text, mark in _blocks(body):
            h.update(text.encode())
            size += len(text.encode())
            prefix.append((h.hexdigest(), size, mark))
        read = max((s for d, s, _ in prefix if d in marked), default=0)
        last = max((s for _, s, m in prefix if m), default=0)
        out.append((read, max(0, last - read)))
        marked |= {d for d, _, m in prefix if m}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("repo")
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--no-index", action="store_true")
    ap.add_argument("--transcript", type=Path, default=None)
    ap.add_argument("--save", type=Path, default=None, help="write the requests here (JSON lines)")
    args = ap.parse_args()

    from graph.configuration import Configuration, RunContext
    from graph.nodes.common import plan_context
    from graph.proposer import RunHandles
    from graph.proposers.claude import ClaudeProposer, ToolBudgets
    from graph.proposers.offline import OfflineProposer
    from graph.resources import Resources

    res = Resources(repo=args.repo, rev=args.rev, use_index=not args.no_index)
    try:
        budget = ToolBudgets().plan
        turns = (
            transcript_turns(args.transcript) if args.transcript else scripted_turns(res, budget)
        )
        entry = next(f for f in res.survey().findings if f.category == "entry_point")
        plan = {
            "system": "scripted",
            "items": [
                {
                    "id": "RT-RTE-entry",
                    "kind": "RTE",
                    "label": f"Route of {entry.path}",
                    "files": [entry.path],
                    "rationale": "The entry point starts the route.",
                }
            ],
        }
        model = ScriptedPlanner(turns, plan)
        config = Configuration(model=MODEL, generator="claude")
        pctx = plan_context(
            RunContext(proposer=OfflineProposer(), config=config, resources=res),
            res.snapshot().identity.rstrip("/").rsplit("/", 1)[-1],
        )
        prop = ClaudeProposer(
            MODEL,
            api_key="scripted",
            http_client=httpx2.Client(transport=httpx2.MockTransport(model)),
        )
        prop.start(RunHandles(res))
        got = prop.plan(pctx)
    finally:
        res.close()
    print(f"{args.repo} @ {args.rev}: {len(model.log)} planning requests, plan of {len(got.items)}")
    if args.save is not None:
        with args.save.open("w", encoding="utf-8") as out:
            for body in model.log:
                out.write(json.dumps({"request": body}, ensure_ascii=False) + "\n")
    cols = ("turn", "calls", "bytes", "~tokens", "cache read", "cache write")
    print("{:>4} {:<22} {:>9} {:>8} {:>11} {:>12}".format(*cols))
    total = written = cached = 0
    figures = zip(model.sizes, cache_figures(model.log), strict=True)
    for i, (size, (read, write)) in enumerate(figures, 1):
        calls = ",".join(n for n, _ in turns[i - 1][1]) if i <= len(turns) else "submit_plan"
        calls = re.sub(r"read_file", "read", calls)
        tokens = int(size / CHARS_PER_TOKEN)
        print(f"{i:>4} {calls[:22]:<22} {size:>9,} {tokens:>8,} {read:>11,} {write:>12,}")
        total += size
        written += write
        cached += read
    tokens = int(total / CHARS_PER_TOKEN)
    # what the input costs in plain input tokens: reads at 0.1x, writes at 1.25x, the rest 1x
    plain = total - cached - written
    paid = int((0.1 * cached + 1.25 * written + max(0, plain)) / CHARS_PER_TOKEN)
    print(f"all requests: {total:,} bytes (~{tokens:,} tokens)")
    print(
        f"cache reads {cached:,} bytes, cache writes {written:,} bytes; input priced as "
        f"~{paid:,} plain input tokens (reads 0.1x, writes 1.25x)"
    )


if __name__ == "__main__":
    main()
