"""The index against the raw embedding loop, on the same chunks in the same run.

For one revision it chunks the files as the index does, then times, in turn: the raw
loop (the same tokenizer and ONNX session fed every chunk's text at once, sorted by
length: the best this model does on these inputs), drafter's cold index of the revision
into an empty data dir (chunking, cache, model and Chroma writes: the whole ``ensure``),
and the raw loop again.  Printed: chunks per wall second and per CPU second of each,
the naive loop (file order, 16 per call) for scale, and the index's rate as a share of
the mean raw rate.  On a shared machine the wall rate drifts between the steps; the CPU
ratio is the steadier one.

    .venv/bin/python benchmarks/bench_index_ratio.py [REPO [REV]]
"""

from __future__ import annotations

import argparse
import tempfile
import time

from drafter.snapshot import Snapshot
from retrieval.embeddings import _model, embed
from retrieval.index import embed_input, open_index

DGM = "/work/.mirror/jennyzzt+dgm/repo"


def _raw(inputs: list[str]) -> tuple[float, float]:
    """Chunks per wall second and per CPU second (every thread of this process) of
    :func:`embed` given every text at once."""
    t, c = time.perf_counter(), time.process_time()
    embed(inputs)
    return len(inputs) / (time.perf_counter() - t), len(inputs) / (time.process_time() - c)


def _naive(inputs: list[str], n: int = 256) -> float:
    """Chunks/s of the first ``n`` texts in file order, 16 per call (no sorting)."""
    model = _model()
    part = inputs[:n]
    t = time.perf_counter()
    for i in range(0, len(part), 16):
        model.run(model.encode(part[i : i + 16]))
    return len(part) / (time.perf_counter() - t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo", nargs="?", default=DGM)
    ap.add_argument("rev", nargs="?", default="d88fdd6")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp, Snapshot(args.repo, args.rev) as snap:
        index = open_index(tmp)
        chunks = index.plan(snap).chunks
        inputs = [embed_input(c) for c in chunks]
        embed(inputs[:4])  # load the model and session before any clock starts
        raw1 = _raw(inputs)
        cpu0 = time.process_time()
        stats = index.ensure(snap, progress=False)
        index_cpu = time.process_time() - cpu0
        raw2 = _raw(inputs)
        naive = _naive(inputs)
        index.close()
    rate = stats.chunks / stats.seconds
    embed_rate = stats.embedded / stats.t_embed if stats.t_embed else 0.0
    raw = (raw1[0] + raw2[0]) / 2
    raw_cpu = (raw1[1] + raw2[1]) / 2
    print(f"repository {snap.name} at {snap.sha[:12]}: {len(inputs)} chunks")
    print(
        f"raw loop, all texts sorted by length: {raw1[0]:.1f} then {raw2[0]:.1f} chunks/s; "
        f"{raw1[1]:.1f} then {raw2[1]:.1f} chunks per CPU second"
    )
    print(f"naive loop, file order, 16 per call: {naive:.1f} chunks/s")
    print(
        f"index cold, whole ensure: {stats.seconds:.1f} s = {rate:.1f} chunks/s "
        f"(chunk {stats.t_chunk:.1f} s, embed {stats.t_embed:.1f} s, store {stats.t_store:.1f} s)"
    )
    print(f"index / raw, wall: {rate / raw:.2f} (embedding step alone: {embed_rate / raw:.2f})")
    index_per_cpu = stats.chunks / index_cpu
    print(
        f"index / raw, CPU: {index_per_cpu / raw_cpu:.2f} ({index_per_cpu:.1f} against "
        f"{raw_cpu:.1f} chunks per CPU second; the steadier figure on a shared machine)"
    )


if __name__ == "__main__":
    main()
