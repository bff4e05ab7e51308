"""Cold start on real repositories: the default draft against ``--no-index``, the first
record request with a scripted model, and the full index.

    .venv/bin/python benchmarks/bench_cold.py [--repos sample,dgm,...] [--no-full-index]
        [--draft-only]

Each figure is a child process with an empty data dir, measured from outside (wall
clock; peak RSS of that child from ``wait4``), so start-up and set-up count:

* **draft** — ``drafter draft REPO --rev REV --offline --out …`` (the default, index
  in the background) and the same with ``--no-index``; their ratio is measured in the
  same run, one right after the other.  The CPU ratio (user + system of each child,
  from ``wait4``) is the one to read on a shared machine; ``--draft-only`` measures
  just this pair.
* **survey** — ``drafter survey REPO --rev REV --json`` (cold survey cache).
* **first record** — ``drafter draft`` with a key and ``$ANTHROPIC_BASE_URL`` pointing
  at a scripted Messages API on loopback: it answers the plan with one record (the
  first entry point's file) and notes when the first record request arrives; the child
  is then stopped.  Seconds are from the child's start.
* **chunks** — from the default draft's summary (``meta.extra.index``): chunks with a
  vector when the draft was written / to embed, lexical-only chunks, files skipped.
* **full index** — ``drafter index`` in an empty data dir: seconds and the data dir's
  size on disk.

Targets (2 cores): draft ratio <= 4; first record <= max(3 x survey, 20 s); dgm's full
index <= 10 min; peak RSS <= 1.5 GB.  Repositories are the bare mirrors under
/work/.mirror (missing ones are skipped) and the shipped sample; ``cline`` (a 3.8k-file
TypeScript repository) is measured when named in ``--repos``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

MIRRORS = Path("/work/.mirror")
REPOS: dict[str, tuple[str, str]] = {
    "auto-harness": ("neosigmaai+auto-harness", "bf052bc"),
    "HyperAgents": ("facebookresearch+HyperAgents", "59a68f6"),
    "ADAS": ("ShengranHu+ADAS", "2702bee"),
    "dgm": ("jennyzzt+dgm", "d88fdd6"),
    "AI-Scientist": ("SakanaAI+AI-Scientist", "9dffdc4"),
    "smolagents": ("huggingface+smolagents", "e3a5b899"),
    "cline": ("cline+cline", "21cb8d2525"),
}
DRAFTER = str(Path(sys.executable).with_name("drafter"))


@dataclass
class Run:
    seconds: float
    peak_mb: float
    rc: int
    out: str = ""
    cpu: float = 0.0  # user + system seconds of the child (and children it waited for)


@dataclass
class Row:
    name: str
    figures: dict[str, str] = field(default_factory=dict)


def run(
    cmd: list[str], data: Path, env: dict[str, str] | None = None, timeout: float = 7200
) -> Run:
    """One child: wall seconds, CPU seconds and its own peak RSS (wait4), stdout kept."""
    full = {**os.environ, "DRAFTER_DATA_DIR": str(data), **(env or {})}
    full.pop("ANTHROPIC_API_KEY", None)  # offline runs and the index need no key
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL, env=full)
        deadline = t0 + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
            time.sleep(0.05)
        dt = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    cpu = usage.ru_utime + usage.ru_stime
    return Run(dt, usage.ru_maxrss / 1024, proc.returncode, text, cpu)


class ScriptedAPI:
    """A Messages API on loopback: plans one record, then holds the first record
    request and notes when it came."""

    def __init__(self, plan_file: str):
        self.plan_file = plan_file
        self.first_record = threading.Event()
        self.at = 0.0
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                tools = [t["name"] for t in body.get("tools", [])]
                if "submit_plan" in tools:
                    item = {
                        "id": "RT-RTE-main",
                        "kind": "RTE",
                        "label": "Main route",
                        "files": [api.plan_file],
                        "rationale": "the first entry point",
                        "facts": [],
                    }
                    self._answer(body, "submit_plan", {"system": "bench", "items": [item]})
                    return
                if not api.first_record.is_set():
                    api.at = time.perf_counter()
                    api.first_record.set()
                time.sleep(3600)  # held: the child is stopped meanwhile

            def _answer(self, body: dict[str, Any], tool: str, data: dict[str, Any]) -> None:
                payload = json.dumps(
                    {
                        "id": "msg_1",
                        "type": "message",
                        "role": "assistant",
                        "model": body["model"],
                        "content": [{"type": "tool_use", "id": "t1", "name": tool, "input": data}],
                        "stop_reason": "tool_use",
                        "stop_sequence": None,
                        "usage": {"input_tokens": 100, "output_tokens": 10},
                    }
                ).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self) -> None:
        self.httpd.shutdown()


def first_record(repo: str, rev: str, data: Path, plan_file: str, timeout: float) -> float | None:
    """Seconds from the start of a Claude draft to its first record request."""
    api = ScriptedAPI(plan_file)
    env = {
        **os.environ,
        "DRAFTER_DATA_DIR": str(data),
        "ANTHROPIC_API_KEY": "bench",
        "ANTHROPIC_BASE_URL": api.url,
    }
    data.mkdir(parents=True, exist_ok=True)
    out = data.parent / "claude.json"
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [DRAFTER, "draft", repo, "--rev", rev, "--out", str(out), "--max-records", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        start_new_session=True,
    )
    try:
        got = api.first_record.wait(timeout)
        return api.at - t0 if got else None
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        api.close()


def entry_file(survey_json: str) -> str:
    try:
        data = json.loads(survey_json)
    except ValueError:
        return ""
    findings = data.get("findings", []) if isinstance(data, dict) else []
    for cat in ("entry_point", "model_call"):
        for f in findings:
            if f.get("category") == cat and str(f.get("path", "")).endswith(".py"):
                return str(f["path"])
    return next((str(f["path"]) for f in findings), "")


def du_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6


def bench(
    name: str, repo: str, rev: str, work: Path, full_index: bool, draft_only: bool = False
) -> Row:
    row = Row(name)
    f = row.figures
    d = work / name
    draft = run(
        [DRAFTER, "draft", repo, "--rev", rev, "--offline", "--out", str(d / "a.json")], d / "a"
    )
    bare = run(
        [DRAFTER, "draft", repo, "--rev", rev, "--offline", "--no-index"]
        + ["--out", str(d / "b.json")],
        d / "b",
    )
    f["draft s (MB)"] = f"{draft.seconds:.1f} ({draft.peak_mb:.0f})"
    f["--no-index s (MB)"] = f"{bare.seconds:.1f} ({bare.peak_mb:.0f})"
    f["ratio"] = f"{draft.seconds / bare.seconds:.2f}"
    # CPU is the steadier ratio on a shared machine: the wall clock counts other jobs
    f["CPU s / --no-index CPU s"] = f"{draft.cpu:.1f} / {bare.cpu:.1f}"
    f["CPU ratio"] = f"{draft.cpu / bare.cpu:.2f}"
    try:
        idx = json.loads((d / "a.json").read_text())["meta"]["extra"].get("index", {})
    except (OSError, ValueError, KeyError):
        idx = {}
    f["chunks embedded/to embed"] = (
        f"{idx.get('chunks embedded', '?')}/{idx.get('chunks to embed', '?')}"
    )
    f["lexical only"] = str(idx.get("chunks lexical only", "?"))
    f["files skipped"] = str(idx.get("files skipped", "?"))
    if draft_only:
        return row
    survey = run([DRAFTER, "survey", repo, "--rev", rev, "--json"], d / "s")
    f["survey s"] = f"{survey.seconds:.1f}"
    target = max(3 * survey.seconds, 20.0)
    first = first_record(repo, rev, d / "c", entry_file(survey.out), timeout=max(600.0, target * 5))
    f["first record s (target)"] = (
        f"{first:.1f} ({target:.0f})" if first is not None else f"none ({target:.0f})"
    )
    if full_index:
        full = run([DRAFTER, "index", repo, "--rev", rev, "--quiet"], d / "i")
        f["full index s (MB RSS)"] = f"{full.seconds:.0f} ({full.peak_mb:.0f})"
        f["index size MB"] = f"{du_mb(d / 'i'):.1f}"
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repos", default="sample," + ",".join(r for r in REPOS if r != "cline"))
    ap.add_argument("--no-full-index", action="store_true")
    ap.add_argument(
        "--draft-only",
        action="store_true",
        help="only the default draft against --no-index (no survey, first record or index)",
    )
    args = ap.parse_args()
    console = Console(width=220)
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="bench-cold-") as tmp:
        work = Path(tmp)
        for name in args.repos.split(","):
            if name == "sample":
                from drafter.sample import materialize

                s = materialize(work / "sample-repo")
                repo, rev = str(s.path), s.sha
            else:
                mirror, rev = REPOS[name]
                path = MIRRORS / mirror / "repo"
                if not path.exists():
                    console.print(f"skipped {name}: no mirror at {path}")
                    continue
                repo = str(path)
            t = time.perf_counter()
            full = not (args.no_full_index or args.draft_only)
            rows.append(bench(name, repo, rev, work, full, args.draft_only))
            console.print(f"{name}: {time.perf_counter() - t:.0f} s of benchmarking", style="dim")
            console.print(rows[-1].figures, style="dim")
    table = Table(title=f"cold start ({os.cpu_count()} cores, load {os.getloadavg()[0]:.1f})")
    cols = list(rows[0].figures) if rows else []
    table.add_column("repository")
    for c in cols:
        table.add_column(c, justify="right")
    for r in rows:
        table.add_row(r.name, *(r.figures.get(c, "") for c in cols))
    console.print(table)


if __name__ == "__main__":
    main()
