"""Word pieces the embedding model is fed per real word piece, by how chunks are batched.

Deterministic (token counts only, no model run), so it reads the same on a loaded machine:
for a repository's index plan it prints, for the old scheme (chunks in file order, 16 texts
per model call, sorted only within the call) and for today's (each 256-chunk stored batch
sorted by length, passes of 16 under the padded-token cap), the padded word pieces the
model computes over divided by the real ones.  ONNX time grows with what it is fed.

    .venv/bin/python benchmarks/bench_padding.py REPO [--rev REV]
"""

from __future__ import annotations

import argparse

from drafter.snapshot import Snapshot
from retrieval.embeddings import _BATCH_TOKENS, _passes, count_tokens
from retrieval.index import BATCH, EMBED_STEP, embed_input, make_plan


def fed(lengths: list[int], window: int, step: int) -> int:
    """Padded word pieces over all passes when ``window`` chunks at a time are sorted."""
    total = 0
    for lo in range(0, len(lengths), window):
        part = lengths[lo : lo + window]
        for idx in _passes([[0] * n for n in part], step):
            total += len(idx) * max(part[i] for i in idx)
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo")
    ap.add_argument("--rev", default="HEAD")
    args = ap.parse_args()
    with Snapshot(args.repo, args.rev) as snap:
        plan = make_plan(snap)
    lengths = count_tokens([embed_input(c) for c in plan.chunks])
    real = sum(lengths)
    print(f"{len(lengths)} chunks, {real} word pieces (cap per pass {_BATCH_TOKENS})")
    for name, window, step in (
        ("file order, 16 per call", EMBED_STEP, EMBED_STEP),
        ("sorted within 64", 64, EMBED_STEP),
        (f"sorted within {BATCH} (today)", BATCH, EMBED_STEP),
        ("sorted over all", len(lengths), EMBED_STEP),
    ):
        print(f"{name:32} {fed(lengths, window, step) / real:.2f}x")


if __name__ == "__main__":
    main()
