"""What a report calls a repository, apart from the key it is stored under.

A bare mirror laid out as ``…/owner+name/repo`` has no origin URL, so its identity (the
key of the survey cache and the index collections) is the folder's name, "repo".  The
shown name comes from the parent folder instead; the key must not move.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest

from drafter.repo_name import shown_name
from drafter.snapshot import Snapshot
from retrieval.survey.cache import cache_path, cached_survey
from tests.gitrepo import git, make_repo


def _mirror(tmp_path: Path, where: str) -> Path:
    work = make_repo(tmp_path / "work", {"agent.py": "print('hi')\n"})
    mirror = tmp_path / where
    mirror.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(mirror)], check=True)
    git(mirror, "remote", "remove", "origin")
    return mirror


@pytest.mark.parametrize(
    ("where", "identity", "name"),
    [
        ("m/acme+rocket/repo", "repo", "acme/rocket"),
        ("m/rocket/repo", "repo", "rocket"),
        ("m/rocket.git", "rocket", "rocket"),
        ("m/looper/.git", "looper", "looper"),
    ],
)
def test_the_shown_name_of_a_bare_mirror(
    tmp_path: Path, where: str, identity: str, name: str
) -> None:
    mirror = _mirror(tmp_path, where)
    with Snapshot(mirror) as snap:
        assert (snap.identity, snap.name) == (identity, name)


def test_an_origin_url_is_both_key_and_name(tmp_path: Path) -> None:
    mirror = _mirror(tmp_path, "m/acme+rocket/repo")
    git(mirror, "remote", "add", "origin", "https://github.com/acme/rocket.git")
    with Snapshot(mirror) as snap:
        assert snap.identity == snap.name == "github:acme/rocket"


def test_a_name_that_is_not_generic_is_kept(tmp_path: Path) -> None:
    assert shown_name("github:acme/repo", tmp_path / "x" / "repo") == "github:acme/repo"


def test_the_survey_cache_stays_keyed_on_the_identity(tmp_path: Path) -> None:
    """The survey says the shown name; its cache file is named from the unchanged key, and
    a cached survey read from a mirror moved elsewhere names the new folder."""
    mirror = _mirror(tmp_path, "m/acme+rocket/repo")
    cache = tmp_path / "cache"
    with Snapshot(mirror) as snap:
        key = hashlib.sha256(b"repo").hexdigest()[:12]
        assert f"-{key}-" in cache_path(snap, cache).name
        assert cached_survey(snap, cache).repository == "acme/rocket"
    moved = tmp_path / "n" / "other+bot" / "repo"
    moved.parent.mkdir(parents=True)
    mirror.rename(moved)
    with Snapshot(moved) as snap:
        assert cache_path(snap, cache).exists()  # the same cache file serves it
        assert cached_survey(snap, cache).repository == "other/bot"
