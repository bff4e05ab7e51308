"""One runner whatever answers: an offline draft, a draft over the Anthropic transport
(a scripted Messages API on loopback) and one over the OpenAI-compatible transport (a
scripted Chat Completions server) of the same repository, each by ``drafter draft`` in a
child process.  Each is then continued by ``drafter draft --resume THREAD`` alone: the
thread finds its run, its workflow and its settings the same way for every transport,
and the finished run writes the same draft again without asking the model anything.

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
from claude_server import ClaudeServer
from local_endpoint import MODEL, WINDOW, LocalAPI, make_repo, script_local
from openai_endpoint import OpenAIServer, script_openai

from drafter.model import Report

DRAFTER = Path(sys.executable).with_name("drafter")


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    path = tmp_path_factory.mktemp("bigagent") / "repo"
    return path, make_repo(path)


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
    fake = LocalAPI()
    script_local(fake)
    srv = ClaudeServer(fake)
    env = {"ANTHROPIC_BASE_URL": srv.url, "ANTHROPIC_API_KEY": "local"}
    return (
        ["--model", MODEL, "--context-window", str(WINDOW)],
        env,
        lambda: len(fake.log),
        srv.close,
    )


def _openai() -> tuple[list[str], dict[str, str], Callable[[], int], Callable[[], None]]:
    srv = OpenAIServer()
    script_openai(srv)
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
    repo: tuple[Path, str], transport: tuple[str, Any], tmp_path: Path
) -> None:
    name, (more, extra, sent, _close) = transport
    env = _env(tmp_path / "data", **extra)
    out = tmp_path / "draft.json"
    path, sha = repo
    first = _run(["draft", str(path), "--rev", sha, "--out", str(out), "--no-index",
                  "--concurrency", "1", "--repair-rounds", "1", *more], env)  # fmt: skip
    assert first.returncode in (0, 1), first.stdout[-2000:] + first.stderr[-2000:]
    assert "Traceback" not in first.stderr
    report = Report.from_json(out.read_text(encoding="utf-8"))
    assert report.records and all(w.verified for w in report.witnesses)
    assert report.meta is not None
    assert report.meta.generator.startswith(
        "offline" if name == "offline" else ("claude", "openai")
    )
    thread = re.search(r"--resume (draft-[0-9a-f]+)", first.stdout)
    assert thread, first.stdout[-2000:]
    asked = sent()
    again = _run(["draft", "--resume", thread.group(1)], env)
    assert again.returncode == first.returncode, again.stdout[-2000:] + again.stderr[-2000:]
    assert sent() == asked  # a finished run asks nothing more of its transport
    assert Report.from_json(out.read_text(encoding="utf-8")).model_dump(
        exclude={"meta"}
    ) == report.model_dump(exclude={"meta"})
