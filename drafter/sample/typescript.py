"""The second shipped sample: a small TypeScript coding agent ("shellwright").

Why a second sample: the Python sample cannot show whether drafter reads a system
written in another language, and the demo, the offline drafter and the verifier need
one such system that exists on every machine without network access.  It is a
TypeScript CLI agent with a Python side script, so it is also a small mixed repository.

It is committed with the same git plumbing as the Python sample (see the package
docstring), under its own identity and date, so its SHA depends only on the files in
``files_ts/``.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from drafter.sample import (
    SampleRepo,
    _check_out,
    _commit_tree,
    _files_root,
    _has_commit,
    _init,
    _verify,
    sample_files,
)

TS_SAMPLE_NAME = "shellwright"
TS_SAMPLE_IDENTITY = "sample://drafter/shellwright"
#: The commit every machine gets from :func:`materialize_typescript`; a test asserts it.
TS_SAMPLE_SHA = "b0f578b061f7843bec571dc7e6f8ea52c1d581ce"

#: The sample's load-bearing facts, as (path, 1-based line) at TS_SAMPLE_SHA, by
#: category: the gold report cites every one of them (a test checks it).
TS_SAMPLE_FACTS: dict[str, tuple[tuple[str, int], ...]] = {
    "entry_point": (
        ("package.json", 7),  # "bin": shellwright -> dist/cli.js
        ("src/cli.ts", 1),  # #!/usr/bin/env node
        ("src/cli.ts", 7),  # new Command("shellwright")
        ("scripts/transcript_stats.py", 19),  # if __name__ == "__main__":
    ),
    "model_call": (("src/agent.ts", 18),),  # client.messages.create with tools
    "subprocess": (("src/tools/shell.ts", 10),),  # spawn("bash", ["-lc", command])
    "persistence": (
        ("src/memory.ts", 27),  # writeFileSync(MEMORY_FILE, ...)
        ("src/memory.ts", 17),  # JSON.parse(readFileSync(MEMORY_FILE ...)) read back
        ("src/memory.ts", 32),  # appendFileSync(TRANSCRIPT_FILE, ...)
        ("src/tools/files.ts", 32),  # writeFile(target, content)
    ),
}

EXECUTABLE_TS: frozenset[str] = frozenset()

_DATE = "2025-03-03T12:00:00+00:00"
_MESSAGE = "shellwright 0.2.0: agent loop, zod tool registry, approval gate, memory\n"


def ts_sample_files() -> dict[str, bytes]:
    """The TypeScript sample's tree as {posix path: bytes}, sorted."""
    return sample_files(_files_root("files_ts"))


def ts_gold_path() -> Path:
    """The TypeScript sample's gold runtime report."""
    return Path(str(resources.files("drafter.sample") / "gold.typescript.runtime.txt"))


def materialize_typescript(dest: Path) -> SampleRepo:
    """Write the TypeScript sample into a git repository at ``dest``; return its commit.

    Idempotent like :func:`drafter.sample.materialize`, with the same rules for ``dest``.
    """
    dest = Path(dest)
    if _has_commit(dest, TS_SAMPLE_SHA):
        return SampleRepo(dest, TS_SAMPLE_SHA, TS_SAMPLE_IDENTITY)
    _init(dest, TS_SAMPLE_IDENTITY)
    sha = _commit_tree(dest, ts_sample_files(), None, _DATE, _MESSAGE, EXECUTABLE_TS)
    _verify(sha, TS_SAMPLE_SHA)
    _check_out(dest, sha)
    return SampleRepo(dest, sha, TS_SAMPLE_IDENTITY)


__all__ = [
    "TS_SAMPLE_FACTS",
    "TS_SAMPLE_IDENTITY",
    "TS_SAMPLE_NAME",
    "TS_SAMPLE_SHA",
    "materialize_typescript",
    "ts_gold_path",
    "ts_sample_files",
]
