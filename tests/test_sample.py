"""The shipped sample: deterministic commits, and a gold report whose witnesses verify."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from drafter.errors import BadInput
from drafter.sample import (
    EXECUTABLE,
    SAMPLE_IDENTITY,
    SAMPLE_SHA,
    SAMPLE_V2_SHA,
    materialize,
    materialize_v2,
    sample_files,
)
from drafter.snapshot import Snapshot


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout.strip()


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return materialize(tmp_path_factory.mktemp("sample") / "repo").path


def test_sha_is_identical_in_two_fresh_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = materialize(tmp_path / "a")
    # A hostile environment must not change the commit: user identity, dates, autocrlf.
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Someone Else")
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2030-01-01T00:00:00+00:00")
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'core.autocrlf'='true'")
    b = materialize(tmp_path / "b")
    assert a.sha == b.sha == SAMPLE_SHA
    assert _git(a.path, "rev-parse", "HEAD") == SAMPLE_SHA
    assert _git(a.path, "status", "--porcelain") == ""


def test_tree_matches_the_shipped_files(sample: Path) -> None:
    files = sample_files()
    assert 10 <= len(files) <= 16
    with Snapshot(sample, SAMPLE_SHA) as snap:
        assert snap.files() == sorted(files)
        assert snap.identity == SAMPLE_IDENTITY
        for path, data in files.items():
            assert snap.read_bytes(path) == data
        modes = {e.path: e.mode for e in snap.entries()}
    assert {p for p, m in modes.items() if m == "100755"} == set(EXECUTABLE)


def test_materialize_is_idempotent(sample: Path) -> None:
    again = materialize(sample)
    assert again.sha == SAMPLE_SHA
    assert _git(sample, "rev-list", "--count", "--all") == "1"


def test_refuses_a_folder_with_other_content(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine")
    with pytest.raises(BadInput):
        materialize(tmp_path)
    assert (tmp_path / "keep.txt").read_text() == "mine"


def test_refuses_a_repository_with_other_history(tmp_path: Path) -> None:
    repo = tmp_path / "other"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "f").write_text("x")
    _git(repo, "add", "f")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x")
    with pytest.raises(BadInput):
        materialize(repo)


def test_v2_changes_two_files_and_keeps_v1(tmp_path: Path) -> None:
    v2 = materialize_v2(tmp_path / "r")
    assert v2.sha == SAMPLE_V2_SHA
    assert _git(v2.path, "rev-parse", "HEAD~1") == SAMPLE_SHA
    changed = _git(v2.path, "diff", "--name-only", SAMPLE_SHA, SAMPLE_V2_SHA).split()
    assert changed == ["README.md", "tinkerbot/tools.py"]
    quote = "if not str(target).startswith(str(root)):"
    with Snapshot(v2.path, SAMPLE_SHA) as old, Snapshot(v2.path, SAMPLE_V2_SHA) as new:
        assert quote in old.read_text("tinkerbot/tools.py").text
        assert quote not in new.read_text("tinkerbot/tools.py").text
    # idempotent, and materialize() on a v2 folder reuses v1 without moving HEAD
    assert materialize_v2(v2.path).sha == SAMPLE_V2_SHA
    assert materialize(v2.path).sha == SAMPLE_SHA
    assert _git(v2.path, "rev-parse", "HEAD") == SAMPLE_V2_SHA
