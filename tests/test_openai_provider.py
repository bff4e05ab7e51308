"""``drafter draft --provider openai``: the same runner and tool loop through an
OpenAI-compatible transport, against a scripted Chat Completions server on loopback
(``openai_endpoint.OpenAIServer``), the real ``openai`` SDK in a child process.

The tests name the transport and its server; what the workflow does inside is the
runner's, as for the offline and the Anthropic drafts."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from local_endpoint import RIGHT, make_repo
from openai_endpoint import CACHED, MODEL, OpenAIServer, script_openai

from drafter.model import Report

DRAFTER = Path(sys.executable).with_name("drafter")


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    path = tmp_path_factory.mktemp("bigagent") / "repo"
    return path, make_repo(path)


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    srv = OpenAIServer()
    script_openai(srv)
    yield srv
    srv.close()


def _env(data: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DRAFTER_", "ANTHROPIC_", "OPENAI_")) and "proxy" not in k.lower()
    }
    env.update(
        DRAFTER_DATA_DIR=str(data),
        DRAFTER_RETRY_BASE_SECONDS="0.001",
        COLUMNS="160",
        NO_PROXY="127.0.0.1,localhost",
        **extra,
    )
    return env


def _draft(
    repo: tuple[Path, str], out: Path, env: dict[str, str], *more: str
) -> subprocess.CompletedProcess[str]:
    path, sha = repo
    args = [str(DRAFTER), "draft", str(path), "--rev", sha, "--out", str(out),
            "--no-index", "--concurrency", "1", "--repair-rounds", "1", *more]  # fmt: skip
    return subprocess.run(args, env=env, capture_output=True, text=True, timeout=180)


def test_an_openai_compatible_server_drafts_through_the_cli(
    repo: tuple[Path, str], server: OpenAIServer, tmp_path: Path
) -> None:
    out = tmp_path / "draft.json"
    env = _env(tmp_path / "data", OPENAI_API_KEY="local")
    child = _draft(repo, out, env, "--provider", "openai", "--base-url", server.url,
                   "--model", MODEL)  # fmt: skip
    assert child.returncode == 0, child.stdout[-3000:] + child.stderr[-3000:]
    assert "drafting offline" not in child.stderr and "Traceback" not in child.stderr
    assert set(server.paths) == {"/v1/chat/completions"}
    report = Report.from_json(out.read_text())
    assert report.meta is not None and report.meta.generator.startswith("openai")
    assert report.meta.model == MODEL
    assert {r.id for r in report.records} == {"RT-RTE-loop", "RT-CMP-store", "RT-OBJ-state"}
    assert report.witnesses and all(w.verified for w in report.witnesses)
    # the route came as fenced JSON in the answer's text: parsed and validated as a call
    route = report.record("RT-RTE-loop")
    assert route is not None and RIGHT in [w.quote for w in route.witnesses]
    assert any("read from the answer's text" in n for n in report.meta.notes)
    # the server's cached prompt tokens are the draft's cache reads; no price, no cost
    assert all(u.cache_read_input_tokens == CACHED * u.calls for u in report.meta.usage)
    assert sum(u.calls for u in report.meta.usage) == len(server.requests)
    assert all(u.cost_usd is None for u in report.meta.usage)


def test_requests_are_chat_completions_with_tools(
    repo: tuple[Path, str], server: OpenAIServer, tmp_path: Path
) -> None:
    env = _env(tmp_path / "data", OPENAI_API_KEY="local")
    child = _draft(repo, tmp_path / "d.json", env, "--provider", "openai",
                   "--base-url", server.url, "--model", MODEL)  # fmt: skip
    assert child.returncode == 0, child.stderr[-3000:]
    first, second = server.of("plan")[:2]
    assert first["messages"][0]["role"] == "system"
    assert first["tool_choice"] == "required"
    assert all(t["type"] == "function" and "parameters" in t["function"] for t in first["tools"])
    assert first["tools"][-1]["function"]["name"] == "submit_plan"
    # the planner's read_file call went back as a tool message answering that call
    calls = [m for m in second["messages"] if m.get("tool_calls")]
    answers = [m for m in second["messages"] if m["role"] == "tool"]
    assert calls and answers and answers[0]["tool_call_id"] == calls[0]["tool_calls"][0]["id"]
    assert "README.md" in answers[0]["content"]
    assert not any("cache_control" in str(b) for b in server.requests)


def test_without_a_price_max_cost_is_refused_and_nothing_is_sent(
    repo: tuple[Path, str], server: OpenAIServer, tmp_path: Path
) -> None:
    env = _env(tmp_path / "data", OPENAI_API_KEY="local")
    child = _draft(repo, tmp_path / "d.json", env, "--provider", "openai",
                   "--base-url", server.url, "--model", MODEL, "--max-cost", "1")  # fmt: skip
    assert child.returncode == 2, child.stderr
    assert "--max-cost needs a price" in child.stderr and child.stderr.count("\n") == 1
    assert server.requests == []


def test_the_key_is_the_providers_and_a_model_must_be_named(
    repo: tuple[Path, str], server: OpenAIServer, tmp_path: Path
) -> None:
    env = _env(tmp_path / "data", ANTHROPIC_API_KEY="not-this-one")
    no_model = _draft(repo, tmp_path / "d.json", env, "--provider", "openai")
    assert no_model.returncode == 2 and "needs --model" in no_model.stderr
    keyless = _draft(repo, tmp_path / "d.json", env, "--provider", "openai",
                     "--base-url", server.url, "--model", MODEL)  # fmt: skip
    assert "no OPENAI_API_KEY set; drafting offline" in keyless.stderr
    assert server.requests == []


def test_settings_checkpointed_before_providers_were_named_are_an_anthropic_run() -> None:
    from graph.configuration import Configuration

    # the settings channel of a run checkpointed by drafter at f13a5d0, as stored
    old = {"model": "claude-sonnet-5-5", "generator": "claude", "max_records": 40,
           "repair_rounds": 2, "max_cost": 15.0, "concurrency": 4, "retrieval_k": 6,
           "max_file_chars": 12000, "plan_tool_calls": 15, "record_tool_calls": 12,
           "repair_tool_calls": 6, "account_tool_calls": 10, "thorough": False,
           "price_in": None, "price_out": None, "max_tokens_total": None,
           "context_window": None, "record_context_bytes": 16384}  # fmt: skip
    config = Configuration.from_dict(old)
    assert (config.provider, config.base_url) == ("anthropic", None)
    assert Configuration.from_dict(config.to_dict()) == config
