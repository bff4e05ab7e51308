"""Build small git repositories for tests, with fixed identities and dates.

One helper for every test module, so each builds repositories the same way and the
commit SHAs they produce are reproducible across machines.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from retrieval.survey import Survey

DATE = "2024-01-01T00:00:00+0000"

#: A 13-line script (``app.py``) whose line numbers the planning and record-range tests
#: count on: ``run`` at 4-5, ``main`` at 8-9, the main guard at 12-13.
APP = (
    "import subprocess\n"  # 1
    "\n"  # 2
    "\n"  # 3
    "def run(cmd):\n"  # 4
    "    return subprocess.run(cmd, check=True)\n"  # 5
    "\n"  # 6
    "\n"  # 7
    "def main():\n"  # 8
    "    run(['make', 'all'])\n"  # 9
    "\n"  # 10
    "\n"  # 11
    'if __name__ == "__main__":\n'  # 12
    "    main()\n"  # 13
)
_ENV = {
    **os.environ,
    "GIT_AUTHOR_DATE": DATE,
    "GIT_COMMITTER_DATE": DATE,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo`` with a fixed identity; returns stripped stdout."""
    r = subprocess.run(
        [
            "git",
            "-c", "user.name=t",
            "-c", "user.email=t@t",
            "-c", "init.defaultBranch=main",
            "-c", "commit.gpgsign=false",
            *args,
        ],
        cwd=repo, env=_ENV, capture_output=True, check=True,
    )  # fmt: skip
    return r.stdout.decode().strip()


def commit(repo: Path, files: Mapping[str, str | bytes | None], msg: str = "c") -> str:
    """Write files (None deletes one), commit them, return the new SHA.

    The repository is initialised on first use.
    """
    repo.mkdir(parents=True, exist_ok=True)
    if not (repo / ".git").exists():
        git(repo, "init", "-q")
    for name, content in files.items():
        p = repo / name
        if content is None:
            p.unlink()
            continue
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content, encoding="utf-8")
    git(repo, "add", "-A", "--", *files)
    git(repo, "commit", "-q", "--allow-empty", "-m", msg)
    return git(repo, "rev-parse", "HEAD")


def make_repo(root: Path, files: dict[str, str]) -> Path:
    """A one-commit repository of ``files`` at ``root``; returns ``root``."""
    commit(root, files, "init")
    return root


def survey_of(path: Path, files: dict[str, str]) -> Survey:
    """The survey of a one-commit repository of ``files`` built at ``path``."""
    from drafter.snapshot import Snapshot
    from retrieval.survey import run_survey

    with Snapshot(make_repo(path, files), "HEAD") as snap:
        return run_survey(snap)
