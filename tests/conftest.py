"""Shared fixtures.  An autouse fixture keeps every test out of the user's real
folders and away from any real API key."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
GOLD_DIR = SHARED / "gold"


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("DRAFTER_DATA_DIR", str(home / "data"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "xdg"))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    monkeypatch.delenv("DRAFTER_MODEL", raising=False)
    # server-mode tests opt in explicitly; ordinary tests use the embedded client
    if "DRAFTER_TEST_CHROMA_URL" in os.environ:
        monkeypatch.delenv("DRAFTER_CHROMA_URL", raising=False)


@pytest.fixture(scope="session")
def gold_dir() -> Path:
    if not GOLD_DIR.is_dir():
        pytest.fail(f"shared gold reports missing at {GOLD_DIR}")
    return GOLD_DIR
