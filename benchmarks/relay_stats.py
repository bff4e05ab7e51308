"""Figures of a model-path run answered through ../shared/tools/relay: calls by kind,
request sizes, tokens, and the size of each record conversation's first request.

Why: the relay is how the model path is measured here (a reasoner plays the model), and
its RELAY_DIR keeps every request and answer; these are the figures issue notes compare
before and after a change to what the model is sent.

    python benchmarks/relay_stats.py RELAY_DIR            # done/*.json + answers/*.json
    python benchmarks/relay_stats.py transcript.jsonl     # a saved transcript
"""

from __future__ import annotations

import json
import statistics
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def exchanges(src: Path) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """(request body, answer) pairs in order of arrival."""
    if src.is_file():
        for line in src.open(encoding="utf-8"):
            row = json.loads(line)
            yield row["request"], row.get("answer") or {}
        return
    done = [json.loads(p.read_text(encoding="utf-8")) for p in (src / "done").glob("*.json")]
    for rec in sorted(done, key=lambda r: r.get("t", 0)):
        ans = src / "answers" / f"{rec['key']}.json"
        yield rec["body"], json.loads(ans.read_text(encoding="utf-8")) if ans.exists() else {}


def kind(request: dict[str, Any]) -> str:
    """The conversation a request belongs to, by the submit tool it offers."""
    names = [t.get("name", "") for t in request.get("tools", [])]
    return next((n for n in names if n.startswith("submit_")), "other")


def first_text(request: dict[str, Any]) -> str:
    content = request["messages"][0]["content"]
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content if b.get("type") == "text")


def main(src: Path) -> None:
    rows = list(exchanges(src))
    if not rows:
        raise SystemExit(f"{src}: no requests")
    by_kind: Counter[str] = Counter()
    sizes: list[int] = []
    first: list[int] = []
    tokens_in = tokens_out = 0
    for req, ans in rows:
        k = kind(req)
        by_kind[k] += 1
        sizes.append(len(json.dumps(req, ensure_ascii=False).encode()))
        usage = ans.get("usage") or {}
        tokens_in += sum(
            usage.get(f) or 0
            for f in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
        )
        tokens_out += usage.get("output_tokens") or 0
        if k == "submit_record" and len(req["messages"]) == 1:
            first.append(len(first_text(req).encode()))
    print(f"calls {len(rows)}  by kind {dict(by_kind)}")
    print(
        f"request bytes median {statistics.median(sizes):,.0f}  max {max(sizes):,}  "
        f"total {sum(sizes):,}"
    )
    print(f"tokens in {tokens_in:,} out {tokens_out:,}")
    if first:
        print(
            f"record first-request text: n={len(first)} median "
            f"{statistics.median(first):,.0f} B  max {max(first):,} B; "
            f"record calls per record {by_kind['submit_record'] / len(first):.1f}"
        )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: relay_stats.py RELAY_DIR | transcript.jsonl")
    main(Path(sys.argv[1]))
