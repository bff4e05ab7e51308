"""Shared fixtures.  An autouse fixture keeps every test out of the user's real
folders and away from any real API key; ``sample`` and ``tiny_repo`` are the
repositories several modules draft, review or score.  Fakes and hand-built drafts are
in ``fakes.py``, repository builders in ``gitrepo.py``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from eval_material import build_tiny_repo

from drafter.sample import SampleRepo, materialize


def _shared() -> Path:
    """../shared beside the checkout: /work/main/tests -> /work/shared, and from a
    worktree /work/wt/NAME/tests the nearest parent that holds shared/gold."""
    here = Path(__file__).resolve()
    for parent in here.parents[1:]:
        if (parent / "shared" / "gold").is_dir():
            return parent / "shared"
    return here.parents[2] / "shared"


SHARED = _shared()
GOLD_DIR = SHARED / "gold"


@pytest.fixture(autouse=True)
def _isolated_env(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("DRAFTER_DATA_DIR", str(home / "data"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "xdg"))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    monkeypatch.delenv("DRAFTER_MODEL", raising=False)
    # server-mode tests opt in explicitly; ordinary tests use the embedded client
    if "DRAFTER_TEST_CHROMA_URL" in os.environ:
        monkeypatch.delenv("DRAFTER_CHROMA_URL", raising=False)


#: Set by .ci/run: there the shared gold reports must be present, and a test that needs
#: them fails rather than skips.
REQUIRE_SHARED = os.environ.get("DRAFTER_REQUIRE_SHARED") == "1"


@pytest.fixture(scope="session")
def gold_dir() -> Path:
    """The shared gold reports (every test that reads ../shared asks for this fixture):
    skipped with that reason on a fresh clone that has no ../shared beside it."""
    if not GOLD_DIR.is_dir():
        why = f"shared gold reports missing at {GOLD_DIR} (../shared is not beside the checkout)"
        if REQUIRE_SHARED:
            pytest.fail(why)
        pytest.skip(why)
    return GOLD_DIR


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> SampleRepo:
    """The shipped sample repository, materialised once per module: modules that run
    the workflow on it share its index and runs within the module, never across."""
    return materialize(tmp_path_factory.mktemp("sample") / "repo")


@pytest.fixture(scope="module")
def tiny_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """The evaluation tests' two-commit repository: (path, revision 1, revision 2)."""
    return build_tiny_repo(tmp_path_factory.mktemp("tiny"))


# -- retrieval (helper D): a real Chroma server for the server-mode index/search tests --


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _chroma_alive(url: str) -> bool:
    import urllib.request

    try:
        with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=1):
            return True
    except OSError:
        return False


@pytest.fixture(scope="session")
def chroma_server_url(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """$DRAFTER_TEST_CHROMA_URL if CI started a server, else a `chroma run` of our own on
    a free localhost port, stopped when the session ends."""
    import subprocess
    import sys
    import time

    given = os.environ.get("DRAFTER_TEST_CHROMA_URL")
    if given:
        yield given.rstrip("/")
        return
    chroma = Path(sys.executable).parent / "chroma"
    if not chroma.exists():
        pytest.fail(f"no chroma CLI next to {sys.executable}")
    path = tmp_path_factory.mktemp("chroma-server")
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log = open(path / "server.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [
            str(chroma),
            "run",
            "--path",
            str(path / "db"),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while not _chroma_alive(url):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"chroma server did not start; see {path / 'server.log'}")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
