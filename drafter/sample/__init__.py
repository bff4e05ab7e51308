"""The shipped sample: a small agentic system ("tinkerbot") and a gold report about it.

Why a sample at all: the demo, the tests of every stage and the README's first command
need a repository that exists on every machine without network access, whose revision
is the same everywhere, so that a gold report's witnesses and a draft's line numbers
mean the same thing for everyone.

Why build commits from git plumbing (``hash-object`` / ``update-index`` / ``write-tree``
/ ``commit-tree``) and not ``git add`` + ``git commit``: plumbing ignores the user's
configuration that would change the bytes or the commit — autocrlf, clean filters,
``.gitattributes``, hooks, signing, templates — so the SHA depends only on the files
shipped here, the fixed modes, and the fixed author, committer and dates below.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from drafter.errors import BadInput

SAMPLE_NAME = "tinkerbot"
#: Stable repository identity; also written as ``remote.origin.url`` so that
#: ``Snapshot.identity`` reports the same name whatever folder the sample lives in.
SAMPLE_IDENTITY = "sample://drafter/tinkerbot"

#: The commit every machine gets from :func:`materialize`.  A test asserts it, so any
#: change to the shipped files (or to how they are committed) is noticed at once.
SAMPLE_SHA = "ec202d75fd4eb366129bf5e309bf393ba20ae28e"
#: The second revision from :func:`materialize_v2` (child of SAMPLE_SHA).
SAMPLE_V2_SHA = "629da43a4c658cb56005696825b258a6138d6c6f"

#: The sample's load-bearing facts, as (path, 1-based line) at SAMPLE_SHA, by category.
#: The gold report cites every one of them (a test checks it), and the offline drafter
#: is tested against the same list, so the contract between them is written down once.
SAMPLE_FACTS: dict[str, tuple[tuple[str, int], ...]] = {
    "entry_point": (
        ("pyproject.toml", 13),  # console script tinkerbot = "tinkerbot.cli:main"
        ("tinkerbot/cli.py", 13),  # argparse.ArgumentParser
        ("tinkerbot/cli.py", 36),  # if __name__ == "__main__":
        ("scripts/nightly.sh", 5),  # python -m tinkerbot.cli improve
    ),
    "model_call": (
        ("tinkerbot/agent.py", 23),  # client.messages.create with tools
        ("tinkerbot/improve.py", 18),  # client.messages.create, the prompt rewriter
    ),
    "subprocess": (
        ("tinkerbot/tools.py", 14),  # run_shell: subprocess.run(shell=True)
        ("tinkerbot/scoring.py", 19),  # check: subprocess.run(task["check"], shell=True)
        ("tinkerbot/improve.py", 43),  # git commit -am
    ),
    "persistence": (
        ("tinkerbot/store.py", 16),  # open(RUNS_FILE, "a") JSONL append
        ("tinkerbot/store.py", 29),  # sqlite INSERT INTO scores
        ("tinkerbot/improve.py", 36),  # candidate written to prompts/system.md
        ("tinkerbot/improve.py", 42),  # admitted candidate written
        ("tinkerbot/improve.py", 43),  # git commit of the admitted prompt
        ("tinkerbot/improve.py", 46),  # current prompt restored
    ),
}

#: Files committed with the executable bit; everything else is 100644.  Decided here,
#: not from the file system, because installed package data may lose its modes.
EXECUTABLE = frozenset({"scripts/nightly.sh"})

_AUTHOR = ("Sample Author", "sample@drafter.invalid")
_DATE_V1 = "2025-01-15T12:00:00+00:00"
_DATE_V2 = "2025-02-01T12:00:00+00:00"
_MESSAGE_V1 = "tinkerbot 0.3.0: agent loop, tools, plugins, self-improving prompt\n"
_MESSAGE_V2 = "read_file: check containment with is_relative_to; document the shell tool\n"

_GIT = [
    "git",
    "-c",
    "core.autocrlf=false",
    "-c",
    "core.safecrlf=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "commit.gpgsign=false",
    "-c",
    "init.defaultBranch=main",
    "-c",
    "advice.detachedHead=false",
]


@dataclass(frozen=True, slots=True)
class SampleRepo:
    """Where the sample was materialised and at which commit."""

    path: Path
    sha: str
    identity: str = SAMPLE_IDENTITY


# -- the shipped files ------------------------------------------------------------------


def _files_root(folder: str = "files") -> Path:
    root = resources.files(__name__) / folder
    return Path(str(root))


def gold_path() -> Path:
    """The sample gold runtime report shipped with the package."""
    return Path(str(resources.files(__name__) / "gold.runtime.txt"))


def epistemic_gold_path() -> Path:
    """The sample gold epistemic report; it cites the records of :func:`gold_path`."""
    return Path(str(resources.files(__name__) / "gold.epistemic.txt"))


def _skip(rel: str) -> bool:
    parts = rel.split("/")
    return "__pycache__" in parts or rel.endswith((".pyc", ".pyo"))


def sample_files(root: Path | None = None) -> dict[str, bytes]:
    """The sample's tree as {posix path: bytes}, sorted, caches excluded."""
    root = root or _files_root()
    out: dict[str, bytes] = {}
    for p in sorted(root.rglob("*")):
        if not p.is_file():
            continue
        rel = p.relative_to(root).as_posix()
        if _skip(rel):
            continue
        # A checkout of drafter made with autocrlf would otherwise change every SHA.
        out[rel] = p.read_bytes().replace(b"\r\n", b"\n")
    return dict(sorted(out.items()))


def _v2_changes(files: dict[str, bytes]) -> dict[str, bytes]:
    """The second revision: the containment check is fixed and the README amended.

    Kept as edits of v1's text (not a second copy of the tree) so the two revisions
    cannot drift apart by accident; a missing anchor fails loudly.
    """
    tools = files["tinkerbot/tools.py"].decode()
    old = "    if not str(target).startswith(str(root)):\n"
    new = "    if not target.is_relative_to(root):\n"
    if old not in tools:
        raise RuntimeError("sample v2: anchor missing in tinkerbot/tools.py")
    readme = files["README.md"].decode()
    anchor = "- The shell tool runs commands in a sandbox with **no internet access**.\n"
    if anchor not in readme:
        raise RuntimeError("sample v2: anchor missing in README.md")
    readme = readme.replace(
        anchor,
        "- The shell tool runs commands in the workspace with a 60 second timeout.\n",
    )
    return {
        **files,
        "tinkerbot/tools.py": tools.replace(old, new).encode(),
        "README.md": readme.encode(),
    }


# -- git plumbing -----------------------------------------------------------------------


def _env(date: str | None = None) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k in ("GIT_EXEC_PATH",)
    }
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_TERMINAL_PROMPT="0",
        LC_ALL="C",
        TZ="UTC",
    )
    if date:
        env.update(
            GIT_AUTHOR_NAME=_AUTHOR[0],
            GIT_AUTHOR_EMAIL=_AUTHOR[1],
            GIT_AUTHOR_DATE=date,
            GIT_COMMITTER_NAME=_AUTHOR[0],
            GIT_COMMITTER_EMAIL=_AUTHOR[1],
            GIT_COMMITTER_DATE=date,
        )
    return env


def _git(
    repo: Path,
    *args: str,
    input: bytes | None = None,
    env: dict[str, str] | None = None,
    check: bool = True,
) -> str:
    r = subprocess.run(
        [*_GIT, "-C", str(repo), *args],
        input=input,
        capture_output=True,
        env=env or _env(),
    )
    if check and r.returncode != 0:
        msg = r.stderr.decode(errors="replace").strip().splitlines()
        raise BadInput(f"git {args[0]} failed in {repo}: {msg[-1] if msg else r.returncode}")
    return r.stdout.decode().strip()


def _has_commit(repo: Path, sha: str) -> bool:
    if not (repo / ".git").exists():
        return False
    r = subprocess.run(
        [*_GIT, "-C", str(repo), "cat-file", "-e", f"{sha}^{{commit}}"],
        capture_output=True,
        env=_env(),
    )
    return r.returncode == 0


def _commit_tree(
    repo: Path,
    files: dict[str, bytes],
    parent: str | None,
    date: str,
    message: str,
    executable: frozenset[str] = EXECUTABLE,
) -> str:
    """Write blobs and a tree through a private index, then a commit; return its SHA."""
    index = repo / ".git" / "drafter-sample.index"
    env = {**_env(date), "GIT_INDEX_FILE": str(index)}
    try:
        index.unlink(missing_ok=True)
        lines = []
        for rel, data in files.items():
            oid = _git(repo, "hash-object", "-w", "--no-filters", "--stdin", input=data, env=env)
            mode = "100755" if rel in executable else "100644"
            lines.append(f"{mode} {oid}\t{rel}")
        listing = ("\n".join(lines) + "\n").encode()
        _git(repo, "update-index", "--add", "--index-info", input=listing, env=env)
        tree = _git(repo, "write-tree", env=env)
        parent_args = ["-p", parent] if parent else []
        return _git(repo, "commit-tree", tree, *parent_args, input=message.encode(), env=env)
    finally:
        index.unlink(missing_ok=True)


def _check_out(repo: Path, sha: str) -> None:
    """Point main at sha and lay the work tree out to match (no hooks run)."""
    _git(repo, "update-ref", "refs/heads/main", sha)
    _git(repo, "symbolic-ref", "HEAD", "refs/heads/main")
    _git(repo, "reset", "-q", "--hard", sha)


def _init(dest: Path, identity: str = SAMPLE_IDENTITY) -> None:
    if dest.exists() and not dest.is_dir():
        raise BadInput(f"{dest} exists and is not a folder")
    if dest.exists() and any(dest.iterdir()) and not (dest / ".git").is_dir():
        raise BadInput(f"{dest} is not empty and holds no git repository; choose an empty folder")
    if (dest / ".git").is_dir() and _git(dest, "rev-parse", "--verify", "-q", "HEAD", check=False):
        # Never reset somebody's work: only an empty repository may receive the sample.
        raise BadInput(f"{dest} holds a git repository without the sample commit")
    dest.mkdir(parents=True, exist_ok=True)
    if not (dest / ".git").is_dir():
        _git(dest, "init", "-q", "--template=", ".")
        _git(dest, "config", "remote.origin.url", identity)


def _verify(sha: str, expected: str) -> None:
    # A placeholder expected SHA (all zeros) means "not pinned yet"; tests pin it.
    if expected.strip("0") and sha != expected:
        raise RuntimeError(
            f"sample commit is {sha}, expected {expected}: were the sample files changed?"
        )


# -- public API -------------------------------------------------------------------------


def materialize(dest: Path) -> SampleRepo:
    """Write the sample into a git repository at ``dest`` and return its commit.

    Idempotent: when ``dest`` already holds the sample commit it is reused as is (its
    HEAD is left alone, so a v2 checkout stays v2).  ``dest`` must be empty, missing,
    or a git repository (then the sample commit is added and checked out).
    """
    dest = Path(dest)
    if _has_commit(dest, SAMPLE_SHA):
        return SampleRepo(dest, SAMPLE_SHA)
    _init(dest)
    sha = _commit_tree(dest, sample_files(), None, _DATE_V1, _MESSAGE_V1)
    _verify(sha, SAMPLE_SHA)
    _check_out(dest, sha)
    return SampleRepo(dest, sha)


def materialize_v2(dest: Path) -> SampleRepo:
    """Materialise the sample plus a second commit changing two files; check it out.

    The second revision fixes the ``read_file`` containment check in
    ``tinkerbot/tools.py`` and rewrites the README's shell-tool sentence, so tests
    have quotes present in only one of the two revisions and an incremental change.
    """
    v1 = materialize(dest)
    dest = Path(dest)
    if _has_commit(dest, SAMPLE_V2_SHA):
        return SampleRepo(dest, SAMPLE_V2_SHA)
    sha = _commit_tree(dest, _v2_changes(sample_files()), v1.sha, _DATE_V2, _MESSAGE_V2)
    _verify(sha, SAMPLE_V2_SHA)
    _check_out(dest, sha)
    return SampleRepo(dest, sha)


__all__ = [
    "SAMPLE_FACTS",
    "SAMPLE_IDENTITY",
    "SAMPLE_NAME",
    "SAMPLE_SHA",
    "SAMPLE_V2_SHA",
    "SampleRepo",
    "gold_path",
    "materialize",
    "materialize_v2",
    "sample_files",
]
