"""``python -m drafter.sample DEST [--v2 | --typescript]``: materialise a sample and say
where it is.

For scripts and analysts who want the sample repository without running the demo, e.g.
to check the sample gold by hand with ``drafter verify``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from drafter.errors import BadInput
from drafter.sample import gold_path, materialize, materialize_v2
from drafter.sample.typescript import materialize_typescript, ts_gold_path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m drafter.sample", description=__doc__)
    parser.add_argument("dest", type=Path, help="empty or missing folder for the repository")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--v2", action="store_true", help="also add the second revision")
    which.add_argument(
        "--typescript", action="store_true", help="the TypeScript sample (shellwright) instead"
    )
    args = parser.parse_args(argv)
    make = materialize_typescript if args.typescript else materialize_v2 if args.v2 else materialize
    try:
        repo = make(args.dest)
    except BadInput as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"repository {repo.path}")
    print(f"revision   {repo.sha}")
    print(f"gold       {ts_gold_path() if args.typescript else gold_path()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
