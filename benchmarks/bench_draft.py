"""Drafting workflow figures: the demo's offline run, and graph overhead and bounded
concurrency with the Claude proposer over a mock transport that adds a fixed latency.

    .venv/bin/python benchmarks/bench_draft.py [--records 24] [--latency 0.1]

Prints: offline draft of the shipped sample, cold (fresh data dir: index + survey +
draft) and warm (index reused); Claude-path wall time for N records at concurrency 1
and 4 with a simulated per-call latency, and the per-record overhead of the graph
(wall time minus simulated model time at concurrency 1).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import httpx2
from rich.console import Console
from rich.table import Table

from drafter.sample import materialize
from graph.configuration import Configuration
from graph.proposers.claude import ClaudeProposer
from graph.proposers.factory import build_proposer
from graph.runner import run_draft

FILES = ["tinkerbot/agent.py", "tinkerbot/tools.py", "tinkerbot/store.py", "tinkerbot/improve.py"]


def _handler(n: int, latency: float):
    def handler(request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        # the conversation's terminal tool (the model may also investigate; this one
        # submits at once)
        tool = next(t["name"] for t in body["tools"] if t["name"].startswith("submit_"))
        time.sleep(latency)
        if tool == "submit_plan":
            out = {
                "system": "tinkerbot",
                "items": [
                    {
                        "id": f"RT-OBJ-item-{i}",
                        "kind": "OBJ",
                        "label": f"Item {i}",
                        "files": [FILES[i % 4]],
                    }
                    for i in range(n)
                ],
            }
        elif tool == "submit_record":
            out = {
                "label": "x",
                "lead": "Source-native identity: x.",
                "witnesses": [{"quote": "import anthropic", "path": "tinkerbot/agent.py"}],
            }
        else:
            out = {"sections": []}
        return httpx2.Response(
            200,
            json={
                "id": "m",
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "content": [{"type": "tool_use", "id": "t", "name": tool, "input": out}],
                "stop_reason": "tool_use",
                "stop_sequence": None,
                "usage": {"input_tokens": 1000, "output_tokens": 200},
            },
        )

    return handler


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=24)
    ap.add_argument("--latency", type=float, default=0.1)
    args = ap.parse_args()
    table = Table(title="drafting workflow")
    for col in ("run", "records", "seconds", "note"):
        table.add_column(col)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        sample = materialize(root / "sample")
        data = root / "data"
        for label in ("offline, cold", "offline, warm"):
            t0 = time.perf_counter()
            r = run_draft(
                str(sample.path),
                sample.sha,
                Configuration(generator="offline"),
                build_proposer,
                data_dir=data,
                system="tinkerbot",
            )
            dt = time.perf_counter() - t0
            note = "index + survey + draft + verify" if "cold" in label else "index reused"
            table.add_row(label, str(len(r.report.records)), f"{dt:.2f}", note)
        calls = args.records + 2
        for conc in (1, 4):
            client = httpx2.Client(
                transport=httpx2.MockTransport(_handler(args.records, args.latency))
            )
            prop = ClaudeProposer("claude-sonnet-5-5", api_key="bench", http_client=client)
            cfg = Configuration(
                model="claude-sonnet-5-5",
                generator="claude",
                concurrency=conc,
                max_records=args.records,
            )
            t0 = time.perf_counter()
            r = run_draft(
                str(sample.path), sample.sha, cfg, lambda c, res, p=prop: p, data_dir=data
            )
            dt = time.perf_counter() - t0
            model_time = calls * args.latency
            note = f"{calls} calls x {args.latency:.2f} s simulated"
            if conc == 1:
                note += f"; graph overhead {(dt - model_time) / args.records * 1000:.0f} ms/record"
            table.add_row(
                f"claude (mock), concurrency {conc}", str(len(r.report.records)), f"{dt:.2f}", note
            )
    Console().print(table)


if __name__ == "__main__":
    main()
