"""One runner whatever answers: an offline draft, a draft over the Anthropic transport
(a scripted Messages API on loopback) and one over the OpenAI-compatible transport (a
scripted Chat Completions server) of the shipped sample, each by ``drafter draft`` in a
child process.  Both servers are scripted with the same answers (a plan, three records,
one of them read from a file first, and the account), each in its own API's shape.
Each is then continued by ``drafter draft --resume THREAD`` alone: the thread finds
its run, its workflow and its settings the same way for every transport, and the
finished run writes the same draft again without asking the model anything.

The tests name the transport and its server, never what the workflow does inside."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from claude_scenario import ACCOUNT, PLAN, RUN_TASK_3, rec
from claude_server import ClaudeServer
from fakes import FakeAPI, tool, use
from openai_endpoint import OpenAIServer, call

from drafter.model import Report
from drafter.sample import SampleRepo

DRAFTER = Path(sys.executable).with_name("drafter")
MODEL = "claude-sonnet-4-5"

#: The sample's plan cut to three records, each answered with quotes from the sample.
SAMPLE_PLAN = {**PLAN, "items": [i for i in PLAN["items"] if i["id"] in (
    "RT-CMP-claude", "RT-OBJ-run-log", "RT-RTE-run-task")]}  # fmt: skip
CLAUDE = rec(
    "Claude task model",
    "Source-native identity: config.MODEL. Representational form: hosted model. "
    "Storage substrate: provider.",
    [("client = anthropic.Anthropic(api_key=config.api_key())", "tinkerbot/agent.py")],
)
RUN_LOG = rec(
    "Run log",
    "Source-native identity: runs.jsonl. Representational form: JSON lines. "
    "Storage substrate: local file.",
    [('RUNS_FILE = STATE_DIR / "runs.jsonl"', "tinkerbot/store.py")],
)
#: The account without its quote that is not in the sample.
_ITEMS = [i for i in ACCOUNT["sections"][0]["items"] if i.get("text") != "MAX_TURNS = 800"]
SAMPLE_ACCOUNT = {"sections": [{**ACCOUNT["sections"][0], "items": _ITEMS}]}
READ = ("read_file", {"path": "tinkerbot/store.py", "start_line": 1, "end_line": 40})


def _script_anthropic(fake: FakeAPI) -> None:
    fake.script("plan", tool(SAMPLE_PLAN))
    fake.script("record:RT-CMP-claude", tool(CLAUDE))
    fake.script("record:RT-OBJ-run-log", use(READ), tool(RUN_LOG))
    fake.script("record:RT-RTE-run-task", tool(RUN_TASK_3))
    fake.script("account", tool(SAMPLE_ACCOUNT))


def _script_openai(srv: OpenAIServer) -> None:
    srv.script("plan", call("submit_plan", SAMPLE_PLAN))
    srv.script("record:RT-CMP-claude", call("submit_record", CLAUDE))
    srv.script("record:RT-OBJ-run-log", call(*READ), call("submit_record", RUN_LOG))
    srv.script("record:RT-RTE-run-task", call("submit_record", RUN_TASK_3))
    srv.script("account", call("submit_account", SAMPLE_ACCOUNT))


def _env(data: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DRAFTER_", "ANTHROPIC_", "OPENAI_")) and "proxy" not in k.lower()
    }
    env.update(DRAFTER_DATA_DIR=str(data), DRAFTER_RETRY_BASE_SECONDS="0.001", COLUMNS="200",
               NO_PROXY="127.0.0.1,localhost", **extra)  # fmt: skip
    return env


def _offline() -> tuple[list[str], dict[str, str], Callable[[], int], Callable[[], None]]:
    return ["--offline"], {}, lambda: 0, lambda: None


def _anthropic() -> tuple[list[str], dict[str, str], Callable[[], int], Callable[[], None]]:
    fake = FakeAPI()
    _script_anthropic(fake)
    srv = ClaudeServer(fake)
    env = {"ANTHROPIC_BASE_URL": srv.url, "ANTHROPIC_API_KEY": "local"}
    return ["--model", MODEL], env, lambda: len(fake.log), srv.close


def _openai() -> tuple[list[str], dict[str, str], Callable[[], int], Callable[[], None]]:
    srv = OpenAIServer()
    _script_openai(srv)
    args = ["--provider", "openai", "--base-url", srv.url, "--model", MODEL]
    return args, {"OPENAI_API_KEY": "local"}, lambda: len(srv.paths), srv.close


TRANSPORTS: dict[str, Callable[[], Any]] = {
    "offline": _offline,
    "anthropic": _anthropic,
    "openai": _openai,
}


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(DRAFTER), *args], env=env, capture_output=True, text=True,
                          timeout=240)  # fmt: skip


@pytest.fixture(params=sorted(TRANSPORTS))
def transport(request: pytest.FixtureRequest) -> Iterator[tuple[str, Any]]:
    made = TRANSPORTS[request.param]()
    yield request.param, made
    made[3]()


def test_every_transport_drafts_and_resumes_through_the_one_runner(
    sample: SampleRepo, transport: tuple[str, Any], tmp_path: Path
) -> None:
    name, (more, extra, sent, _close) = transport
    env = _env(tmp_path / "data", **extra)
    out = tmp_path / "draft.json"
    first = _run(["draft", str(sample.path), "--rev", sample.sha, "--out", str(out),
                  "--no-index", "--concurrency", "1", "--repair-rounds", "1", *more],
                 env)  # fmt: skip
    assert first.returncode == 0, first.stdout[-2000:] + first.stderr[-2000:]
    assert "Traceback" not in first.stderr
    report = Report.from_json(out.read_text(encoding="utf-8"))
    assert report.records and all(w.verified for w in report.witnesses)
    assert report.meta is not None
    assert report.meta.generator.startswith(
        "offline" if name == "offline" else ("claude", "openai")
    )
    if name != "offline":  # the scripted answers, whichever API carried them
        assert sorted(r.id for r in report.records) == sorted(i["id"] for i in SAMPLE_PLAN["items"])
    thread = re.search(r"--resume (draft-[0-9a-f]+)", first.stdout)
    assert thread, first.stdout[-2000:]
    asked = sent()
    again = _run(["draft", "--resume", thread.group(1)], env)
    assert again.returncode == first.returncode, again.stdout[-2000:] + again.stderr[-2000:]
    assert sent() == asked  # a finished run asks nothing more of its transport
    assert Report.from_json(out.read_text(encoding="utf-8")).model_dump(
        exclude={"meta"}
    ) == report.model_dump(exclude={"meta"})
