"""Size of the block every Claude call of a run shares (and re-reads from cache).

No key and no network: builds the block exactly as a run does (file list and survey
map, :func:`graph.proposers.agent.prompts.shared_context`) and prints its characters,
its tokens as the estimate counts them (characters / ``CHARS_PER_TOKEN``) and as
characters / 4.  With ``--sample`` it measures the shipped sample as well; with
``--out DIR`` it writes each block to ``DIR/<name>.txt`` for reading.

    .venv/bin/python benchmarks/shared_block.py REPO[@REV] ... [--sample] [--out DIR]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from drafter.sample import materialize
from graph.estimate import CHARS_PER_TOKEN
from graph.proposers.agent.prompts import shared_context
from graph.resources import Resources
from graph.system_name import system_name


def measure(repo: str, rev: str, out: Path | None) -> str:
    res = Resources(repo=repo, rev=rev, use_index=False)
    try:
        snap = res.snapshot()
        name = system_name(snap.git_dir)
        text = shared_context(name, snap.identity, snap.sha, snap.files(), res.survey())
        again = shared_context(name, snap.identity, snap.sha, snap.files(), res.survey())
        findings = len(res.survey().findings)
        files = len(snap.files())
    finally:
        res.close()
    if out is not None:
        (out / f"{name}.txt").write_text(text)
    same = "same bytes twice" if text == again else "DIFFERENT BYTES ON A SECOND BUILD"
    return (
        f"{name} @ {rev[:12]}: {files} files, {findings} findings -> {len(text)} chars, "
        f"{int(len(text) / CHARS_PER_TOKEN)} tokens (chars/{CHARS_PER_TOKEN}), "
        f"{len(text) // 4} tokens (chars/4); {same}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repos", nargs="*", help="REPO or REPO@REV (default rev HEAD)")
    ap.add_argument("--sample", action="store_true", help="also measure the shipped sample")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    for spec in args.repos:
        repo, _, rev = spec.partition("@")
        print(measure(repo, rev or "HEAD", args.out))
    if args.sample:
        with tempfile.TemporaryDirectory() as tmp:
            s = materialize(Path(tmp) / "sample")
            print(measure(str(s.path), s.sha, args.out))


if __name__ == "__main__":
    main()
