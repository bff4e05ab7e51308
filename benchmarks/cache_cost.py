"""What a run's saved requests cost with prompt caching as the requests mark it.

Why: the relay prices a run as if nothing were cached (an upper bound), while every
request drafter sends marks cache breakpoints (tool definitions, the shared system
block, the newest turn, the last folded turn).  This script replays the requests in
order and applies the API's rule: the longest prefix ending at a breakpoint an earlier
request already wrote is read from the cache (0.1x the input price), the rest up to
this request's last breakpoint is written (1.25x), what follows the last breakpoint is
plain input; output is priced from the answers' usage when they have it.  Sizes are
bytes turned into tokens at 3.5 bytes per token (as ``graph.estimate`` counts); the API
counts tokens and looks back at most 20 blocks, so this is an estimate, the same one
for every run.  Prices are USD per million tokens, Claude Sonnet by default.

    python benchmarks/cache_cost.py RELAY_DIR|transcript.jsonl [--records N]
        [--price-in 3] [--price-out 15]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import hashlib  # noqa: E402
import json  # noqa: E402

from plan_requests import CHARS_PER_TOKEN, _blocks  # noqa: E402
from relay_stats import exchanges, kind  # noqa: E402

READ = 0.1
WRITE = 1.25
#: Blocks before a breakpoint the API checks for an earlier cache entry.
LOOKBACK = 20


def cache_figures(log: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """(bytes read from the cache, bytes written to it) per request, in order: a read
    is the longest prefix an earlier request marked that ends at most
    :data:`LOOKBACK` blocks before one of this request's breakpoints."""
    marked: set[str] = set()
    out = []
    for body in log:
        h = hashlib.sha256()
        prefix: list[tuple[str, int, bool]] = []  # (hash, bytes so far, breakpoint)
        size = 0
        for text, mark in _blocks(body):
            h.update(text.encode())
            size += len(text.encode())
            prefix.append((h.hexdigest(), size, mark))
        points = [i for i, (_, _, m) in enumerate(prefix) if m]
        read = max(
            (
                s
                for i, (d, s, _) in enumerate(prefix)
                if d in marked and any(j - LOOKBACK <= i <= j for j in points)
            ),
            default=0,
        )
        last = max((s for _, s, m in prefix if m), default=0)
        out.append((read, max(0, last - read)))
        marked |= {d for d, _, m in prefix if m}
    return out


def price(
    rows: list[tuple[dict[str, Any], dict[str, Any]]], p_in: float, p_out: float
) -> dict[str, Any]:
    """Cached and uncached input cost, output cost, and byte figures of ``rows``."""
    bodies = [req for req, _ in rows]
    figures = cache_figures(bodies)
    read = written = plain = 0
    largest: dict[str, int] = {}
    for body, (r, w) in zip(bodies, figures, strict=True):
        size = len(json.dumps(body, ensure_ascii=False).encode())
        read += r
        written += w
        plain += max(0, size - r - w)
        k = kind(body)
        largest[k] = max(largest.get(k, 0), size)
    out_tokens = sum((ans.get("usage") or {}).get("output_tokens") or 0 for _, ans in rows)
    tok = 1 / CHARS_PER_TOKEN / 1e6
    uncached = (read + written + plain) * tok * p_in
    cached = (read * READ + written * WRITE + plain) * tok * p_in
    return {
        "requests": len(rows),
        "read": read,
        "written": written,
        "plain": plain,
        "uncached": uncached,
        "cached": cached,
        "output": out_tokens / 1e6 * p_out,
        "largest": largest,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src", type=Path, help="a RELAY_DIR or a saved transcript.jsonl")
    ap.add_argument("--records", type=int, default=None, help="records drafted (default: count)")
    ap.add_argument("--price-in", type=float, default=3.0)
    ap.add_argument("--price-out", type=float, default=15.0)
    args = ap.parse_args()
    rows = list(exchanges(args.src))
    if not rows:
        print(f"{args.src}: no requests", file=sys.stderr)
        raise SystemExit(2)
    f = price(rows, args.price_in, args.price_out)
    records = args.records or sum(
        1 for req, _ in rows if kind(req) == "submit_record" and len(req["messages"]) == 1
    )
    total = f["read"] + f["written"] + f["plain"]
    print(
        f"requests {f['requests']}, input {total:,} bytes (~{total / CHARS_PER_TOKEN:,.0f} tokens)"
    )
    print(
        f"cache reads {f['read']:,} B, writes {f['written']:,} B "
        f"({f['written'] / max(1, total):.0%} of input), plain {f['plain']:,} B"
    )
    print(
        "largest request per kind: "
        + ", ".join(f"{k} {v:,} B" for k, v in sorted(f["largest"].items()))
    )
    cached = f["cached"] + f["output"]
    uncached = f["uncached"] + f["output"]
    print(f"cost: cached ${cached:.2f}, uncached ${uncached:.2f} (output ${f['output']:.2f})")
    if records:
        scale = 15 / records
        print(
            f"per 15 records ({records} drafted): cached ${cached * scale:.2f}, "
            f"uncached ${uncached * scale:.2f}"
        )


if __name__ == "__main__":
    main()
