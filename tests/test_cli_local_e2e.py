"""``drafter draft`` against a local Anthropic-compatible server, as an analyst runs it:
the console script in a child process, the real anthropic SDK finding the endpoint
through ``$ANTHROPIC_BASE_URL`` with any key, and ``local_endpoint.LocalAPI`` served
over HTTP on 127.0.0.1 (no cache fields, ``tool_choice`` ignored on some turns, the
route submitted as fenced JSON, a 32k window that refuses what overflows).

Exit codes as documented: 0 a complete draft; 1 a partial draft or a model that stayed
unavailable (the run is saved); 2 bad input, one line, nothing sent.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from claude_server import ClaudeServer
from local_endpoint import MODEL, RIGHT, WINDOW, LocalAPI, make_repo, script_local

from drafter.model import Report

DRAFTER = Path(sys.executable).with_name("drafter")


@dataclass
class Child:
    code: int
    out: str
    err: str


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    path = tmp_path_factory.mktemp("bigagent") / "repo"
    return path, make_repo(path)


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("data")


def serve(delay: float = 0.0) -> ClaudeServer:
    fake = LocalAPI(delay=delay)
    script_local(fake)
    return ClaudeServer(fake)


@pytest.fixture
def server() -> Iterator[ClaudeServer]:
    srv = serve()
    yield srv
    srv.close()


def env_for(server: ClaudeServer, data: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DRAFTER_", "ANTHROPIC_")) and "proxy" not in k.lower()
    }
    env.update(
        ANTHROPIC_BASE_URL=server.url,
        ANTHROPIC_API_KEY="ollama",  # required by the client, ignored by the server
        DRAFTER_DATA_DIR=str(data),
        DRAFTER_RETRY_BASE_SECONDS="0.001",
        COLUMNS="160",
        NO_PROXY="127.0.0.1,localhost",
        **extra,
    )
    return env


def draft_args(repo: tuple[Path, str], out: Path, *more: str) -> list[str]:
    path, sha = repo
    return [
        "draft", str(path), "--rev", sha, "--out", str(out), "--model", MODEL,
        "--no-index", "--concurrency", "1", "--repair-rounds", "1", *more,
    ]  # fmt: skip


def run(args: list[str], env: dict[str, str], timeout: float = 120) -> Child:
    assert DRAFTER.exists(), f"console script missing at {DRAFTER}"
    p = subprocess.run(
        [str(DRAFTER), *args], env=env, capture_output=True, text=True, timeout=timeout
    )
    return Child(p.returncode, p.stdout, p.stderr)


def test_local_model_drafts_through_the_cli(repo, data, tmp_path) -> None:
    srv = serve(delay=0.2)  # a slow first token, well inside the timeout
    try:
        out = tmp_path / "draft.json"
        env = env_for(srv, data, DRAFTER_REQUEST_TIMEOUT="30", DRAFTER_RETRIES="1")
        child = run(draft_args(repo, out, "--context-window", str(WINDOW)), env)
        fake = srv.fake
    finally:
        srv.close()
    assert child.code == 0, child.out[-3000:] + child.err[-3000:]
    assert "drafting offline" not in child.err and "Traceback" not in child.err
    # the estimate: tokens, no dollar figure, no default cost cap
    line = next(x for x in child.out.splitlines() if x.startswith("estimate for"))
    assert "M tokens" in line and "$" not in line and "no known price" in line
    assert "--max-cost" not in line
    # usage: the server's figures, "—" for cache and cost, never an invented 0
    usage = child.out[child.out.index("Model usage by node") :]
    total = next(x for x in usage.splitlines() if re.search(r"│ total\s", x))
    assert total.count("—") == 3, total
    served_in = sum(u["input_tokens"] for u in fake.usages)
    assert str(served_in) in total
    assert isinstance(fake, LocalAPI) and fake.too_long == [] and fake.ignored_tool_choice == 5
    assert set(srv.paths) == {"/v1/messages"}
    assert all(b["model"] == MODEL for b in fake.log)
    report = Report.from_json(out.read_text())
    assert report.meta.model == MODEL
    assert {r.id for r in report.records} == {"RT-RTE-loop", "RT-CMP-store", "RT-OBJ-state"}
    assert report.witnesses and all(w.verified for w in report.witnesses)
    assert RIGHT in [w.quote for w in report.record("RT-RTE-loop").witnesses]
    assert all(u.cache_read_input_tokens is None and u.cost_usd is None for u in report.meta.usage)
    assert any("cut to fit the 32,768-token context window" in n for n in report.meta.notes)
    assert f"draft written to {out}" in child.out


def test_max_cost_without_a_price_is_one_line_and_nothing_is_sent(repo, data, server, tmp_path):
    out = tmp_path / "d.json"
    child = run(draft_args(repo, out, "--max-cost", "5"), env_for(server, data))
    assert child.code == 2, child.err
    lines = child.err.strip().splitlines()
    assert len(lines) == 1 and "--max-cost needs a price" in lines[0]
    assert "--price-in" in lines[0] and "--max-tokens-total" in lines[0]
    assert server.received == 0 and not out.exists()
    priced = run(
        draft_args(
            repo, out, "--max-cost", "5", "--price-in", "0.2", "--price-out", "0.6", "--estimate"
        ),
        env_for(server, data),
    )
    assert priced.code == 0, priced.err
    assert re.search(r"M tokens .*\$[\d.]+–\$[\d.]+; stops at --max-cost \$5\.00", priced.out)
    assert server.received == 0


def test_token_cap_gives_a_partial_draft_and_exit_1(repo, data, server, tmp_path) -> None:
    out = tmp_path / "d.json"
    args = draft_args(repo, out, "--context-window", str(WINDOW), "--max-tokens-total", "20000")
    child = run(args, env_for(server, data))
    assert child.code == 1, child.err[-3000:]
    assert "stops at --max-tokens-total 20,000" in child.out
    assert "partial draft" in child.out and "token budget of 20,000 spent" in child.out
    report = Report.from_json(out.read_text())
    assert any("token budget of 20,000 spent" in m for m in report.meta.missing)


@pytest.mark.parametrize(
    ("extra_env", "extra_args", "needle"),
    [
        ({"DRAFTER_REQUEST_TIMEOUT": "soon"}, [], "DRAFTER_REQUEST_TIMEOUT"),
        ({"DRAFTER_RETRIES": "-1"}, [], "DRAFTER_RETRIES"),
        ({}, ["--context-window", "4096"], "--context-window 4096 is too small"),
        ({}, ["--price-in", "0.5"], "give both --price-in and --price-out"),
        ({}, ["--type", "epistemic", "--context-window", "32768"], "for runtime drafts only"),
    ],
)
def test_bad_settings_are_bad_input(repo, data, server, tmp_path, extra_env, extra_args, needle):
    child = run(
        draft_args(repo, tmp_path / "d.json", *extra_args), env_for(server, data, **extra_env)
    )
    assert child.code == 2, child.err
    lines = child.err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in child.err
    assert server.received == 0


def test_a_server_slower_than_the_timeout_is_retried_as_set_then_exit_1(repo, data, tmp_path):
    srv = serve(delay=2.0)
    try:
        env = env_for(srv, data, DRAFTER_REQUEST_TIMEOUT="0.5", DRAFTER_RETRIES="1")
        child = run(draft_args(repo, tmp_path / "d.json", "--context-window", str(WINDOW)), env)
        received = srv.received
    finally:
        srv.close()
    assert child.code == 1, child.err[-3000:]
    last = child.err.strip().splitlines()[-1]
    assert "model unavailable after 2 attempts" in last and "--resume" in last
    assert received == 2  # the plan request, sent once and retried once
