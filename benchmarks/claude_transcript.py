"""A scripted Claude investigating a real repository, and what it cost on paper.

No key and no network: the real anthropic SDK talks to an in-process
``httpx2.MockTransport`` whose "model" follows a fixed investigation per record (read
on from the opening page, read the next page where it is cut, grep its definitions, check a wrong
quote, check the right one, submit).  Its usage is computed from the request the way
the API counts it with the proposer's cache breakpoints: the part of a request that an
earlier request of the same conversation already sent is a cache read, the rest a
cache write, the answer's JSON is output.  Printed: the transcript of one record (what
the model saw, in order, long answers abbreviated), the usage table of the run, and
the estimate the CLI prints for the same plan size and for a default draft.

    .venv/bin/python benchmarks/claude_transcript.py [REPO] [--rev REV] [--records 4]
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import httpx2
from canned import message_response
from rich.console import Console

from graph.configuration import Configuration
from graph.costs import summarize, usage_table
from graph.estimate import estimate
from graph.proposers.claude import ClaudeProposer, ToolBudgets
from graph.runner import run_draft

DEFAULT_REPO = "/work/.mirror/facebookresearch+HyperAgents/repo"
MODEL = "claude-sonnet-5-5"


class ScriptedModel:
    """Answers Messages API requests by a fixed investigation strategy."""

    def __init__(self, texts: dict[str, str], plan_files: list[str]):
        self.texts, self.plan_files = texts, plan_files
        self.log: list[dict[str, Any]] = []
        self.answers: list[tuple[str, dict[str, Any]]] = []  # (tool, input) per request
        self.sent: dict[str, int] = {}  # conversation -> characters already sent

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        self.log.append(body)
        first = body["messages"][0]["content"][0]["text"]
        submit = next(t["name"] for t in body["tools"] if t["name"].startswith("submit_"))
        turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
        name, inp = self.answer(submit, first, turn, body)
        self.answers.append((name, inp))
        return self.reply(body, first[:200], name, inp)

    def answer(self, submit: str, first: str, turn: int, body: dict) -> tuple[str, dict]:
        if submit == "submit_plan":
            if turn == 0:
                return "read_file", {"path": "README.md", "end_line": 60}
            items = [
                {
                    "id": f"RT-RTE-{_slug(p)}",
                    "kind": "RTE",
                    "label": f"Route of {p}",
                    "files": [p],
                    "rationale": f"{p} is an entry point.",
                }
                for p in self.plan_files
            ]
            return submit, {"system": "HyperAgents", "items": items}
        if submit == "submit_account":
            path, line = self.real_line(self.plan_files[0])
            return submit, {
                "sections": [
                    {
                        "title": "Scope and ordinary invocation",
                        "items": [
                            {"type": "paragraph", "text": "The entry points start the routes."},
                            {"type": "witness", "text": line, "path": path},
                        ],
                    }
                ]
            }
        rid = re.search(r"record (RT-[A-Z]+-[a-z0-9-]+)", first).group(1)  # type: ignore[union-attr]
        path = next((p for p in self.plan_files if rid.endswith(_slug(p))), self.plan_files[0])
        _, line = self.real_line(path)
        wrong = line[:-2] + ("x" if line[-2] != "x" else "y") + line[-1]
        # the first cut marker of the conversation is the first page's (turn 0)
        cut = re.search(
            r"start_line=(\d+)\)\]", json.dumps(body["messages"][1:], ensure_ascii=False)
        )
        opened = re.search(r"start_line=(\d+)\)\]", json.dumps(body["messages"][0]))
        steps = [("read_file", {"path": path, "start_line": int(opened.group(1)) if opened else 1})]
        if turn >= 1 and cut:
            steps.append(("read_file", {"path": path, "start_line": int(cut.group(1))}))
        steps += [
            ("grep", {"pattern": r"^\s*def \w+\(", "path_glob": path, "max_hits": 15}),
            ("check_quotes", {"witnesses": [{"quote": wrong, "path": path}]}),
            ("check_quotes", {"witnesses": [{"quote": line, "path": path}]}),
        ]
        if turn < len(steps):
            return steps[turn]
        record = {
            "label": f"Route of {path}",
            "lead": f"Endpoints/progression: {path} → its main function",
            "fields": [
                {"name": "implementation conclusion status", "value": "wired"},
                {"name": "operation conclusion status", "value": "uninspected"},
            ],
            "paragraphs": [f"The route starts in {path} (SRC-1, {path})."],
            "witnesses": [{"quote": line, "path": path}],
        }
        return submit, record

    def real_line(self, path: str) -> tuple[str, str]:
        lines = [ln.strip() for ln in self.texts[path].splitlines()]
        defs = [ln for ln in lines if ln.startswith("def ") and len(ln) > 12]
        return path, (defs or [ln for ln in lines if len(ln) > 12])[0]

    def reply(self, body: dict, conv: str, name: str, inp: dict) -> httpx2.Response:
        size = len(json.dumps(body))
        shared = len(json.dumps(body["system"])) + len(json.dumps(body["tools"]))
        before = self.sent.get(conv, shared if self.log[:-1] else 0)
        self.sent[conv] = size
        out = len(json.dumps(inp)) // 3 + 60
        usage = {
            "input_tokens": 40,
            "output_tokens": out,
            "cache_read_input_tokens": before * 10 // 35,
            "cache_creation_input_tokens": max(0, size - before) * 10 // 35,
        }
        n = len(self.log)
        call = {"type": "tool_use", "id": f"toolu_{n}", "name": name, "input": inp}
        return message_response(body, n, [call], usage)


def _slug(path: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", path.lower().rsplit(".", 1)[0]).strip("-")[:40]


def _abbrev(text: str, head: int = 8, tail: int = 3) -> str:
    lines = text.splitlines()
    if len(lines) <= head + tail + 1:
        return text
    return "\n".join([*lines[:head], f"    … {len(lines) - head - tail} lines …", *lines[-tail:]])


def transcript(model: ScriptedModel, record_id: str) -> str:
    """What the model saw in one record's conversation, turn by turn, and its submission."""
    turns = [
        (b, a)
        for b, a in zip(model.log, model.answers, strict=True)
        if f"record {record_id}" in b["messages"][0]["content"][0]["text"]
    ]
    last, (name, inp) = turns[-1]
    convo = [b for b, _ in turns]
    out = [
        f"=== {record_id}: {len(convo)} paid calls; tools offered: "
        f"{', '.join(t['name'] for t in last['tools'])}"
    ]
    for i, m in enumerate(last["messages"]):
        for b in m["content"] if isinstance(m["content"], list) else [m["content"]]:
            if m["role"] == "assistant":
                out.append(
                    f"--- model (turn {i // 2 + 1}) calls {b['name']} {json.dumps(b['input'])}"
                )
            elif b.get("type") == "text":
                out.append(f"--- user text\n{_abbrev(b['text'], 14, 4)}")
            else:
                err = " (is_error)" if b.get("is_error") else ""
                out.append(f"--- tool_result{err}\n{_abbrev(str(b['content']))}")
    out.append(f"--- model (turn {len(convo)}) calls {name}\n{json.dumps(inp, indent=1)}")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo", nargs="?", default=DEFAULT_REPO)
    ap.add_argument("--rev", default="59a68f6")
    ap.add_argument("--records", type=int, default=4)
    ap.add_argument("--out", default=None, help="also write the transcript here")
    args = ap.parse_args()
    from graph.resources import Resources

    res = Resources(repo=args.repo, rev=args.rev, use_index=False)
    snap = res.snapshot()
    entries = [f.path for f in res.survey().findings if f.category == "entry_point"]
    files = list(dict.fromkeys(p for p in entries if p.endswith(".py")))
    per_file = Counter(f.path for f in res.survey().findings)
    plan_files = sorted(files, key=lambda p: (-per_file[p], p))[: args.records]
    texts = {p: snap.read_text(p).text for p in plan_files}
    res.close()
    model = ScriptedModel(texts, plan_files)
    prop = ClaudeProposer(
        MODEL, api_key="scripted", http_client=httpx2.Client(transport=httpx2.MockTransport(model))
    )
    config = Configuration(model=MODEL, generator="claude", concurrency=1, max_cost=15.0)
    with tempfile.TemporaryDirectory() as tmp:
        result = run_draft(
            args.repo, args.rev, config, lambda c, r: prop, data_dir=Path(tmp), use_index=False
        )
    console = Console(width=120)
    first = result.report.records[0].id if result.report and result.report.records else None
    text = transcript(model, first) if first else "(no record drafted)"
    console.print(text, markup=False, highlight=False)
    if args.out:
        Path(args.out).write_text(text + "\n")
    console.print(usage_table(summarize(result.usage), title="Canned usage of this run"))
    shared = len(model.log[0]["system"][1]["text"])
    for n in (len(plan_files), 40):
        console.print(estimate(MODEL, shared, n, ToolBudgets(), 2).line(15.0))
    kept = sum(1 for r in result.report.records for w in r.witnesses if w.verified)
    console.print(
        f"records: {len(result.report.records)}; verified witnesses kept: {kept}; "
        f"missing: {result.report.meta.missing}"
    )


if __name__ == "__main__":
    main()
