"""``drafter draft`` with Claude, end to end: the console script in a child process, the
real anthropic SDK, and a canned Messages API on loopback (``tests/claude_server.py``).

The SDK finds the server through ``$ANTHROPIC_BASE_URL``; the answers are the scripted
sample conversation of ``claude_scenario`` (a 529 and a 429 that are retried, a
quote repaired in round two, one never repairable, schema-invalid answers), so what
the graph tests prove in-process is proved here for the command users run: exit code,
draft file, verified witnesses, the cost table, and resuming after SIGKILL or a
rejected key without paying twice.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from claude_scenario import GOOD_RUN_TASK, script_sample
from claude_server import ClaudeServer
from fakes import FakeAPI

from drafter.cli import main
from drafter.model import FlagKind, Report, VerifyStatus
from graph.configuration import DEFAULT_MODEL
from graph.costs import price_for

DRAFTER = Path(sys.executable).with_name("drafter")  # the console script beside the venv python
RECORDS = [
    "RT-CMP-claude",
    "RT-OBJ-run-log",
    "RT-RTE-run-task",
    "RT-CLM-sandbox",
    "RT-BAP-system-prompt",
]
USAGE_FIELDS = (
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
)


@dataclass
class Child:
    code: int
    out: str
    err: str


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One data dir for every child run of the module: the sample is indexed once."""
    return tmp_path_factory.mktemp("data")


def _scripted() -> ClaudeServer:
    fake = FakeAPI()
    script_sample(fake)
    return ClaudeServer(fake)


@pytest.fixture
def server():
    srv = _scripted()
    yield srv
    srv.close()


def _env(server: ClaudeServer, data: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DRAFTER_MODEL", "DRAFTER_CHROMA_URL", "ANTHROPIC_AUTH_TOKEN")
        and "proxy" not in k.lower()
    }
    env.update(
        ANTHROPIC_API_KEY="test-key",
        ANTHROPIC_BASE_URL=server.url,
        DRAFTER_DATA_DIR=str(data),
        DRAFTER_RETRY_BASE_SECONDS="0.001",
        COLUMNS="160",  # rich lays the tables out this wide in a pipe
        PYTHONUNBUFFERED="1",  # the thread line reaches the file before a SIGKILL
        NO_PROXY="127.0.0.1,localhost",
    )
    return env


def _draft_args(sample, out: Path) -> list[str]:
    return [
        "draft",
        str(sample.path),
        "--rev",
        sample.sha,
        "--out",
        str(out),
        "--model",
        DEFAULT_MODEL,
        "--system",
        "tinkerbot",
        "--concurrency",
        "1",  # one record call at a time: the kill point is deterministic
    ]


def _run(args: list[str], env: dict[str, str], timeout: float = 60) -> Child:
    assert DRAFTER.exists(), f"console script missing at {DRAFTER}"
    p = subprocess.run(
        [str(DRAFTER), *args], env=env, capture_output=True, text=True, timeout=timeout
    )
    return Child(p.returncode, p.stdout, p.stderr)


def _thread(text: str) -> str:
    m = re.search(r"thread: (draft-[0-9a-f]+)", text)
    assert m, text
    return m.group(1)


def _comparable(path: Path) -> dict[str, Any]:
    """The draft minus what legitimately differs between two runs."""
    d = json.loads(path.read_text())
    d["meta"]["created"] = None
    d["meta"]["extra"]["thread_id"] = None
    # how far the background index had got when the draft was written is timing (the
    # resume test strips it the same way)
    d["meta"]["extra"].pop("index", None)
    # (and so is whether it was complete when a run started: word-only search then)
    d["meta"]["notes"] = [
        n for n in d["meta"]["notes"] if not n.startswith(("dense index:", "search: word"))
    ]
    return d


@dataclass
class Reference:
    child: Child
    out: Path
    fake: FakeAPI
    paths: list[str]


@pytest.fixture(scope="module")
def reference(sample, data, tmp_path_factory: pytest.TempPathFactory):
    """One uninterrupted Claude draft through the CLI, the yardstick for the others."""
    srv = _scripted()
    try:
        out = tmp_path_factory.mktemp("ref") / "draft.json"
        child = _run(_draft_args(sample, out), _env(srv, data))
        yield Reference(child, out, srv.fake, list(srv.paths))
    finally:
        srv.close()


def test_claude_draft_through_the_cli(reference, sample) -> None:
    child, fake = reference.child, reference.fake
    # RT-CMP-mystery was dropped: a partial draft, written, and exit 1
    assert child.code == 1, child.err[-3000:]
    assert "partial draft" in child.out and "RT-CMP-mystery" in child.out
    assert "drafting offline" not in child.err
    # the estimate came first, before the progress of any paid call
    assert re.search(r"estimate for 20–40 records .*\$[\d.]+–\$[\d.]+", child.out)
    assert "stops at --max-cost $15.00" in child.out
    assert child.out.index("estimate for") < child.out.index("Model usage by node")
    assert "Witnesses proposed, kept and dropped" in child.out
    assert set(reference.paths) == {"/v1/messages"}
    assert all(b["model"] == DEFAULT_MODEL for b in fake.log)

    report = Report.from_json(reference.out.read_text())
    assert report.meta.generator == "claude" and report.meta.model == DEFAULT_MODEL
    assert report.source.revision == sample.sha
    assert [r.id for r in report.records] == RECORDS
    assert report.witnesses and all(
        w.verification is not None and w.verification.status == VerifyStatus.verified
        for w in report.witnesses
    )
    assert GOOD_RUN_TASK in [w.quote for w in report.record("RT-RTE-run-task").witnesses]
    assert report.record("RT-CLM-sandbox").flags_of(FlagKind.witness_dropped)
    assert any(m.startswith("RT-CMP-mystery") for m in report.meta.missing)
    # the 529 and the 429 were retried by the CLI's own policy
    assert Counter(fake.keys)["record:RT-CMP-claude"] == 2
    assert Counter(fake.keys)["record:RT-OBJ-run-log"] == 2

    # usage and cost in the draft equal what the server's answers said
    served = fake.served
    meta = report.meta
    # 16 calls, and 5 fix-up turns: submit_record answers a submission with misses once
    # per conversation (the route's and the claim's record, and their repairs but the last)
    assert sum(u.calls for u in meta.usage) == len(served) == 21
    for field in USAGE_FIELDS:
        assert sum(getattr(u, field) for u in meta.usage) == sum(s.get(field, 0) for s in served)
    p = price_for(DEFAULT_MODEL)
    cost = (
        sum(
            s["input_tokens"] * p.input
            + s["output_tokens"] * p.output
            + s.get("cache_creation_input_tokens", 0) * p.cache_write
            + s.get("cache_read_input_tokens", 0) * p.cache_read
            for s in served
        )
        / 1e6
    )
    assert sum(u.cost_usd for u in meta.usage) == pytest.approx(cost)

    # what the analyst saw: the thread to resume, the cost table, where the draft went
    assert _thread(child.out) == meta.extra["thread_id"]
    assert f"continue with: drafter draft --resume {meta.extra['thread_id']}" in child.out
    assert "Model usage by node" in child.out
    # the usage table's total row (the cost rounded to 4 places by the table, so it is
    # compared to within that rounding, not as a Python float formatted again)
    total = next(
        line
        for line in child.out.splitlines()
        if re.search(rf"\btotal\b\s*│\s*{len(served)}\s*│", line)
    )
    tokens = [sum(s.get(f, 0) for s in served) for f in USAGE_FIELDS]
    figures = re.findall(r"\d+(?:\.\d+)?", total)[:6]
    assert figures[:5] == [str(len(served)), *map(str, tokens)]
    assert float(figures[5]) == pytest.approx(cost, abs=0.00006)
    for node in ("plan", "draft_record", "repair", "account"):
        assert re.search(rf"│ {node}\s+│", child.out), node
    assert f"draft written to {reference.out}" in child.out


def test_sigkill_then_resume_through_the_cli(reference, sample, data, server, tmp_path) -> None:
    out = tmp_path / "draft.json"
    # plan, 529+answer, 429+answer, then the route's first tool turn is answered (and
    # its read_file run); the 7th request, the route's second turn, hangs: the kill
    # lands in the middle of a tool loop
    server.hang_at = 7
    log = (tmp_path / "stdout.txt").open("w")
    child = subprocess.Popen(
        [str(DRAFTER), *_draft_args(sample, out)],
        env=_env(server, data),
        stdout=log,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while not server.hanging.wait(0.1):
            assert child.poll() is None, child.stderr.read().decode()[-3000:]
            assert time.monotonic() < deadline, "the child never reached the 7th request"
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stderr.close()
        log.close()
    server.release()
    assert child.returncode == -signal.SIGKILL
    assert not out.exists()
    before = list(server.fake.keys)
    assert before == reference.fake.keys[:6]
    completed = {"plan", "record:RT-CMP-claude", "record:RT-OBJ-run-log"}
    assert completed <= set(before)
    assert before.count("record:RT-RTE-run-task") == 1  # one turn of the loop was paid

    thread = _thread((tmp_path / "stdout.txt").read_text())
    server.hang_at = None
    resumed = _run(["draft", "--resume", thread], _env(server, data))
    assert resumed.code == 1, resumed.err[-3000:]  # the same partial draft
    assert f"resuming thread: {thread}" in resumed.out
    assert "answered from the run's journal, not paid again" in resumed.out
    after = server.fake.keys[len(before) :]
    assert not completed & set(after), f"asked again after the kill: {completed & set(after)}"
    # in total exactly what the uninterrupted run asked, each call once
    assert Counter(server.fake.keys) == Counter(reference.fake.keys)
    assert server.received == len(reference.fake.keys) + 1  # + the one held at the kill
    # --out came from the stored run; the draft equals the uninterrupted one
    assert out.exists()
    assert _comparable(out) == _comparable(reference.out)


#: A progress line a draft prints on stderr when it has no terminal (graph.cli._RunProgress).
PROGRESS_LINE = re.compile(r"^drafter: [a-z][a-z ]*( \d+/\d+)? \(\d+ s\)$")


def test_rejected_key_is_one_line_exit_2_and_the_run_resumes(
    reference, sample, data, server, tmp_path
) -> None:
    out = tmp_path / "draft.json"
    server.fail_from = 4  # plan and the Claude record are answered, then the key is refused
    child = _run(_draft_args(sample, out), _env(server, data))
    assert child.code == 2, child.err
    # without a terminal the run prints a stage line now and then ("drafter: planning
    # (8 s)"); the failure itself is one line, and the last
    lines = [x for x in child.err.strip().splitlines() if not PROGRESS_LINE.match(x)]
    assert len(lines) == 1, child.err
    assert child.err.strip().splitlines()[-1] == lines[0]
    thread = _thread(child.out)
    assert lines[0].startswith("drafter: error: the Anthropic API rejected the key")
    assert f"continue with --resume {thread}" in lines[0]
    assert "Traceback" not in child.err
    assert not out.exists()
    refused = [FakeAPI.key_of(b) for b in server.refused]
    # a 401 is never retried; LangGraph may have started the next record before the
    # failure stopped the run, and that one is refused too
    assert refused[0] == "record:RT-OBJ-run-log" and len(refused) == len(set(refused)) <= 2
    assert server.fake.keys == ["plan", "record:RT-CMP-claude", "record:RT-CMP-claude"]

    # the key fixed: resuming pays for nothing that was answered before the refusal
    server.fail_from = None
    resumed = _run(["draft", "--resume", thread], _env(server, data))
    assert resumed.code == 1, resumed.err[-3000:]  # partial, like the reference
    after = server.fake.keys[3:]
    assert "plan" not in after and "record:RT-CMP-claude" not in after
    assert Counter(server.fake.keys) == Counter(reference.fake.keys)
    assert _comparable(out) == _comparable(reference.out)


def test_bad_retry_base_is_bad_input(sample, data, server, tmp_path) -> None:
    env = {**_env(server, data), "DRAFTER_RETRY_BASE_SECONDS": "soon"}
    child = _run(_draft_args(sample, tmp_path / "d.json"), env)
    assert child.code == 2
    assert "DRAFTER_RETRY_BASE_SECONDS" in child.err and "Traceback" not in child.err
    assert server.received == 0


def test_estimate_prints_and_exits_without_a_call(
    sample, data, server, tmp_path, capsys, monkeypatch
) -> None:
    # in process (main() as the console script calls it): nothing here needs a child
    for k, v in _env(server, data).items():
        monkeypatch.setenv(k, v)
    code = main([*_draft_args(sample, tmp_path / "d.json"), "--estimate"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert re.search(r"estimate for 20–40 records with \S+: [\d.]+–[\d.]+ M tokens", out)
    assert server.received == 0 and not (tmp_path / "d.json").exists()


def test_connection_refused_fails_fast_naming_the_url(
    sample, data, server, tmp_path, capsys, monkeypatch
) -> None:
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    for k, v in _env(server, data).items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("DRAFTER_RETRY_BASE_SECONDS", "5")
    t0 = time.monotonic()
    code = main([*_draft_args(sample, tmp_path / "d.json"), "--no-index"])
    assert time.monotonic() - t0 < 20  # one attempt, not six with 5 s backoffs
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert code == 1, err
    assert f"cannot reach the model at http://127.0.0.1:{port}" in err
    assert "--offline" in err and "Traceback" not in err
    assert server.received == 0


def test_investigation_over_http(data, tmp_path) -> None:
    """The scripted investigator of test_claude_investigator, as users run it."""
    from claude_investigation import RIGHT, make_repo, script_investigation, tool_results

    repo = tmp_path / "looper" / "repo"
    sha = make_repo(repo)
    fake = FakeAPI()
    script_investigation(fake)
    srv = ClaudeServer(fake)
    try:
        out = tmp_path / "draft.json"
        args = ["draft", str(repo), "--rev", sha, "--out", str(out), "--concurrency", "1"]
        child = _run([*args, "--no-index"], _env(srv, data))
    finally:
        srv.close()
    assert child.code == 1, child.err[-3000:]  # the stubborn record is missing
    assert "RT-CMP-stubborn" in child.out and "never called submit_record" in child.out
    calls = fake.calls("record:RT-RTE-loop")
    assert "[cut at line 400 of" in tool_results(calls[1])[0]["content"]
    assert tool_results(calls[5])[0]["content"].startswith("refused: '../../etc/passwd'")
    assert tool_results(calls[6])[0]["content"].startswith("0 of 1 verified")
    report = Report.from_json(out.read_text())
    assert report.system == "looper"
    assert report.record("RT-RTE-loop").witnesses[0].quote == RIGHT
    assert all(w.verified for w in report.record("RT-RTE-loop").witnesses)
