"""Summarise .shellwright/transcript.jsonl: turns per session and how each one stopped."""

import json
import sys
from collections import Counter
from pathlib import Path


def main(path: str = ".shellwright/transcript.jsonl") -> int:
    stops = Counter()
    for line in Path(path).read_text().splitlines():
        entry = json.loads(line)
        stops[entry.get("stop")] += 1
    for stop, n in stops.most_common():
        print(f"{n:5d}  {stop}")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
