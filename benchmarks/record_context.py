"""What a record's first request carries: per-record text, findings, search hits.

A scripted exploring model drafts through the real graph (the real anthropic SDK over
an in-process ``httpx2.MockTransport``; no key, no network).  Its plan is the one a
reasoner submitted in a relay transcript (``--transcript``, default: the ADAS run in
``../shared/tools/relay/transcripts/``), so the figures describe the records a real
planner asked for; without a transcript it plans one route per surveyed entry file.
Each record conversation reads on where its opening page stops, greps the file's
definitions, checks two quotes copied from what it was shown (one with a wrong line
hint) and a made-up one, and submits all three; repairs resubmit the same.

The scripted planner reads the README head and, for each plan item, lines
``PLAN_READ`` of its first file, and notes that range on the item (as a reasoner's
plan does), so the records' requests have planner-read ranges to carry.

Printed, over the first request of every record conversation: per-record text (the
bytes of the first user turn: task, notes, findings, hits, openings) median and max,
findings shown median and max, planner-read lines shown (numbered rows of the item's
noted ranges and of the planner's reads of its files) median and max, search hits per
top folder; then witnesses kept and whether every kept one verifies.  Runs on any
checkout (it reads requests, not internals), so the same script measures before and
after a change.

    .venv/bin/python benchmarks/record_context.py [REPO] [--rev REV] [--no-index]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import httpx2
from canned import message_response

from graph.configuration import Configuration
from graph.proposers.claude import ClaudeProposer
from graph.runner import run_draft

DEFAULT_REPO = "/work/.mirror/ShengranHu+ADAS/repo"
DEFAULT_TRANSCRIPT = (
    Path(__file__).resolve().parents[2]
    / "shared/tools/relay/transcripts/adas-2702bee/transcript.jsonl"
)
MODEL = "claude-sonnet-5-5"
_ROW = re.compile(r"^\s*(\d+)  (.+)$")
_RECORD = re.compile(r"record (RT-[A-Z]+-[a-z0-9-]+)")
#: Lines the scripted planner reads (and notes) of each item's first file.
PLAN_READ = (30, 110)


def transcript_plan(path: Path) -> dict[str, Any] | None:
    """The last ``submit_plan`` input of a relay transcript."""
    plan = None
    for line in path.read_text().splitlines():
        for block in json.loads(line)["answer"]["content"]:
            if block.get("type") == "tool_use" and block["name"] == "submit_plan":
                plan = block["input"]
    return plan


def survey_plan(args: argparse.Namespace) -> dict[str, Any]:
    """One route per surveyed entry file (at most eight), each with the files its entry
    findings' folder holds: a plan with no reasoner behind it, for repositories without
    a transcript."""
    from graph.resources import Resources

    res = Resources(repo=args.repo, rev=args.rev, use_index=False)
    try:
        sv = res.survey()
        entries = [f.path for f in sv.findings if f.category == "entry_point"]
        files = res.snapshot().files()
    finally:
        res.close()
    items = []
    for path in list(dict.fromkeys(entries))[:8]:
        folder = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
        near = [f for f in files if f.startswith(folder) and f.endswith(".py") and f != path]
        slug = re.sub(r"[^a-z0-9]+", "-", path.lower()).strip("-")[:40]
        items.append(
            {
                "id": f"RT-RTE-{slug}",
                "kind": "RTE",
                "label": f"Route of {path}",
                "files": [path, *near[:5]],
                "rationale": f"{path} is an entry point.",
            }
        )
    return {"system": Path(args.repo).name, "items": items}


def _texts(message: dict[str, Any]) -> str:
    content = message["content"]
    if isinstance(content, str):
        return content
    out = []
    for b in content:
        if b.get("type") == "text":
            out.append(b["text"])
        elif b.get("type") == "tool_result":
            c = b.get("content")
            out.append(c if isinstance(c, str) else json.dumps(c))
    return "\n".join(out)


class Explorer:
    """Answers each request by a fixed exploring strategy, from what the request shows."""

    def __init__(self, plan: dict[str, Any]):
        a, b = PLAN_READ
        self.plan_reads = [("README.md", 1, 80)]
        for item in plan["items"]:
            if item.get("files"):
                path = item["files"][0]
                self.plan_reads.append((path, a, b))
                note = {"path": path, "start_line": a, "end_line": b, "showed": "scripted read"}
                item["notes"] = [*item.get("notes", []), note]
        self.plan_reads = list(dict.fromkeys(self.plan_reads))
        self.plan = plan
        self.log: list[dict[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        self.log.append(body)
        submit = next(t["name"] for t in body["tools"] if t["name"].startswith("submit_"))
        turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
        forced = body["tool_choice"].get("type") == "tool"
        name, inp = (
            (submit, self.submission(submit, body)) if forced else self.step(submit, body, turn)
        )
        return _reply(body, len(self.log), name, inp)

    def step(self, submit: str, body: dict[str, Any], turn: int) -> tuple[str, dict[str, Any]]:
        first = _texts(body["messages"][0])
        if submit == "submit_plan":
            steps = [
                ("read_file", {"path": p, "start_line": a, "end_line": b})
                for p, a, b in self.plan_reads
            ]
        elif submit == "submit_account":
            steps = []
        else:
            m = re.search(r'continue with read_file\(path="([^"]+)", start_line=(\d+)\)', first)
            files = re.findall(r'kind="file_lines" path="([^"]+)"', first)
            path = m.group(1) if m else (files[0] if files else "README.md")
            start = int(m.group(2)) if m else 1
            steps = [
                ("read_file", {"path": path, "start_line": start, "end_line": start + 150}),
                ("grep", {"pattern": r"^\s*def \w+\(", "path_glob": path, "max_hits": 20}),
            ]
            quotes = self.quotes(body)
            if quotes:
                steps.append(("check_quotes", {"witnesses": quotes}))
        if turn < len(steps):
            return steps[turn]
        return submit, self.submission(submit, body)

    def quotes(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        """Two lines copied from the newest page shown (the second with a wrong line
        hint), and one quote that is in no file."""
        seen = "\n".join(_texts(m) for m in body["messages"] if m["role"] == "user")
        pages = re.findall(
            r'<repository_data kind="file_lines" path="([^"]+)"[^>]*>\n(.*?)\n</repository_data>',
            seen,
            re.S,
        )
        if not pages:
            return []
        path, rows = pages[-1]
        good = [
            (int(m.group(1)), m.group(2).strip())
            for r in rows.splitlines()
            if (m := _ROW.match(r)) and len(m.group(2).strip()) >= 24
        ]
        out: list[dict[str, Any]] = []
        for n, (line, text) in enumerate(good[:2]):
            hint = line if n == 0 else line + 7
            out.append({"quote": text, "path": path, "start_line": hint, "end_line": hint})
        out.append({"quote": "this sentence is in no file of the repository", "path": path})
        return out

    def submission(self, submit: str, body: dict[str, Any]) -> dict[str, Any]:
        if submit == "submit_plan":
            return self.plan
        quotes = self.quotes(body) or [{"quote": "no page was shown", "path": "README.md"}]
        if submit == "submit_account":
            items = [{"type": "paragraph", "text": "The entry points start the routes."}]
            items += [{"type": "witness", "text": q["quote"], "path": q["path"]} for q in quotes]
            return {"sections": [{"title": "Scope and ordinary invocation", "items": items}]}
        first = _texts(body["messages"][0])
        rid = m.group(1) if (m := _RECORD.search(first)) else "RT-RTE-x"
        return {
            "label": rid,
            "lead": "Endpoints/progression: a → b",
            "fields": [
                {"name": "implementation conclusion status", "value": "wired"},
                {"name": "operation conclusion status", "value": "uninspected"},
            ],
            "paragraphs": ["Scripted."],
            "witnesses": quotes,
        }


def _reply(body: dict[str, Any], n: int, name: str, inp: dict[str, Any]) -> httpx2.Response:
    call = {"type": "tool_use", "id": f"toolu_{n}", "name": name, "input": inp}
    usage = {"input_tokens": len(json.dumps(body)) // 4, "output_tokens": 100}
    return message_response(body, n, [call], usage)


def first_record_requests(log: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The first request of each record conversation (not repairs), by record ID."""
    out: dict[str, dict[str, Any]] = {}
    for body in log:
        first = body["messages"][0]["content"]
        text = first[0]["text"] if isinstance(first, list) else first
        m = re.match(r"Draft the record (RT-[A-Z]+-[a-z0-9-]+)", text)
        if m and len(body["messages"]) == 1:
            out.setdefault(m.group(1), body)
    return out


def findings_shown(text: str) -> int:
    """Findings in a request, in either format: one framed block per finding, or one
    row per (folded) finding inside a ``findings`` block."""
    n = text.count('<repository_data kind="finding"')
    for block in re.findall(
        r'<repository_data kind="findings"[^>]*>\n(.*?)\n</repository_data>', text, re.S
    ):
        n += sum(1 for row in block.splitlines() if row.strip())
    return n


def planner_lines_shown(text: str, item: dict[str, Any], reads: list[tuple[str, int, int]]) -> int:
    """Distinct numbered rows of ``text``'s file pages that lie in a range the planner
    read for ``item``: its notes' ranges, and the planner's reads of its files."""
    spans = [(n["path"], n["start_line"], n["end_line"]) for n in item.get("notes", [])]
    spans += [r for r in reads if r[0] in item.get("files", [])]
    seen: set[tuple[str, int]] = set()
    for path, rows in re.findall(
        r'<repository_data kind="file_lines" path="([^"]+)"[^>]*>\n(.*?)\n</repository_data>',
        text,
        re.S,
    ):
        for r in rows.splitlines():
            if (m := _ROW.match(r)) is None:
                continue
            n = int(m.group(1))
            if any(p == path and a <= n <= b for p, a, b in spans):
                seen.add((path, n))
    return len(seen)


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("repo", nargs="?", default=DEFAULT_REPO)
    ap.add_argument("--rev", default="2702bee")
    ap.add_argument(
        "--transcript",
        default=str(DEFAULT_TRANSCRIPT),
        help='relay transcript whose plan is replayed ("" to plan from the survey)',
    )
    ap.add_argument("--no-index", action="store_true")
    ap.add_argument("--data-dir", default=None, help="index/survey cache (default: a temp dir)")
    ap.add_argument("--show", default=None, help="also print this record's first request text")
    ap.add_argument("--save", type=Path, default=None, help="write every request here (JSON lines)")
    args = ap.parse_args()
    plan = transcript_plan(Path(args.transcript)) if args.transcript else survey_plan(args)
    if plan is None:
        raise SystemExit("no submit_plan in the transcript")
    model = Explorer(plan)
    prop = ClaudeProposer(
        MODEL, api_key="scripted", http_client=httpx2.Client(transport=httpx2.MockTransport(model))
    )
    config = Configuration(
        model=MODEL, generator="claude", concurrency=1, max_records=len(plan["items"])
    )
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(args.data_dir) if args.data_dir else Path(tmp)
        result = run_draft(
            args.repo,
            args.rev,
            config,
            lambda c, r: prop,
            data_dir=data,
            use_index=not args.no_index,
        )
    if args.save is not None:
        with args.save.open("w", encoding="utf-8") as out:
            for body in model.log:
                out.write(json.dumps({"request": body}, ensure_ascii=False) + "\n")
    largest: dict[str, int] = {}
    for body in model.log:
        kind = next(t["name"] for t in body["tools"] if t["name"].startswith("submit_"))
        size = len(json.dumps(body, ensure_ascii=False).encode("utf-8"))
        largest[kind] = max(largest.get(kind, 0), size)
    print(
        "largest request per kind: "
        + ", ".join(f"{k} {v / 1000:.1f} KB" for k, v in sorted(largest.items()))
    )
    firsts = first_record_requests(model.log)
    if args.show in firsts:
        print("\n\n".join(b["text"] for b in firsts[args.show]["messages"][0]["content"]))
    sizes, counts, read_rows, hits = [], [], [], Counter()
    items = {i["id"]: i for i in plan["items"]}
    for rid, body in sorted(firsts.items()):
        text = "\n".join(b["text"] for b in body["messages"][0]["content"])
        size = len(text.encode("utf-8"))
        sizes.append(size)
        counts.append(findings_shown(text))
        read_rows.append(planner_lines_shown(text, items.get(rid, {}), model.plan_reads))
        for p in re.findall(r'<repository_data kind="search_hit" path="([^"]+)"', text):
            hits[p.split("/", 1)[0] + ("/" if "/" in p else "")] += 1
        print(
            f"{rid:45} {size:>7} bytes  {counts[-1]:>4} findings  "
            f"{read_rows[-1]:>4} planner-read lines"
        )
    print(
        f"records: {len(sizes)}; first-request per-record text: median "
        f"{statistics.median(sizes):.0f} bytes, max {max(sizes)}; findings shown: "
        f"median {statistics.median(counts):.0f}, max {max(counts)}; planner-read lines "
        f"shown: median {statistics.median(read_rows):.0f}, max {max(read_rows)}"
    )
    print(f"search hits by top folder: {dict(sorted(hits.items())) or '(none)'}")
    report = result.report
    ws = [w for r in report.records for w in r.witnesses] if report else []
    kept_ok = all(w.verified for w in ws)
    print(
        f"calls: {len(model.log)}; records drafted: {len(report.records) if report else 0}; "
        f"witnesses kept: {len(ws)}, all verified: {kept_ok}"
    )
    flags = Counter(str(f.kind) for r in (report.records if report else []) for f in r.flags)
    print(f"record flags: {dict(flags)}")


if __name__ == "__main__":
    main()
