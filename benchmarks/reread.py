"""The labels as corrected on a blind re-reading of the judge's disagreements.

Why: where the judge and a label differ, either may be wrong.  ``adjudicate.py`` writes
each such cell as a blind item (both records, one neutral question, no side named) and
a key; a third reader answers the items without the key.  This module keeps those
answers (``tests/data/eval_labels/reread.json``: every cell read, with the reader's
answer and one-line reason) and applies them: a cell whose re-read answer links where
the label did not, or does not where it did, is corrected.  The agreement tables then
show the judge against the labels as written and against the labels as re-read, side by
side, so a reader sees how much of the gap is the labels' own.

    .venv/bin/python benchmarks/reread.py collect ANSWERS.md KEY.json [--into FILE]

adds the answered items to FILE (cells already there keep their first answer).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np

#: Where the re-read cells live, beside the label files they correct.
DEFAULT = Path(__file__).resolve().parents[1] / "tests" / "data" / "eval_labels" / "reread.json"

_ANSWER = re.compile(r"^(A\d+):\s*(best|also|none)\b\s*[—-]*\s*(.*)$")


def parse_answers(text: str) -> dict[str, tuple[str, str]]:
    """Item ID -> (answer, why) from the reader's answer lines ``A001: also — why``."""
    out: dict[str, tuple[str, str]] = {}
    for line in text.splitlines():
        m = _ANSWER.match(line.strip())
        if m:
            out[m.group(1)] = (m.group(2), m.group(3).strip())
    return out


def collect(answers: dict[str, tuple[str, str]], key: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per answered item: the cell, what the label said, the re-read answer."""
    rows = []
    for iid, (answer, why) in sorted(answers.items()):
        k = key.get(iid)
        if k is None:
            raise SystemExit(f"{iid}: not in the key")
        rows.append(
            {
                "pair": k["pair"],
                "gold": k["gold"],
                "draft": k["draft"],
                "label": k["label"],
                "reread": answer,
                "why": why,
            }
        )
    return rows


def merged(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``old`` plus the cells of ``new`` it does not hold (a cell is read once)."""
    seen = {(r["pair"], r["gold"], r["draft"]) for r in old}
    return old + [r for r in new if (r["pair"], r["gold"], r["draft"]) not in seen]


def load(path: Path) -> list[dict[str, Any]]:
    """The re-read cells of ``path`` (none when it does not exist)."""
    if not path.is_file():
        return []
    data = json.loads(path.read_text(encoding="utf-8"))
    return list(data.get("cells", []))


def read_cells(rows: list[dict[str, Any]], pair: str) -> set[tuple[str, str]]:
    """The (gold, draft) cells of ``pair`` a reader has answered already."""
    return {(r["gold"], r["draft"]) for r in rows if r["pair"] == pair}


def corrected(
    acc: np.ndarray,
    gold_ids: list[str],
    draft_ids: list[str],
    rows: list[dict[str, Any]],
    pair: str,
) -> tuple[np.ndarray, int, int]:
    """``acc`` (the label links) with the re-read answers of ``pair`` applied, and how
    many links were added and removed."""
    out = acc.copy()
    gi = {g: i for i, g in enumerate(gold_ids)}
    dj = {d: j for j, d in enumerate(draft_ids)}
    added = removed = 0
    for r in rows:
        if r["pair"] != pair or r["gold"] not in gi or r["draft"] not in dj:
            continue
        i, j = gi[r["gold"]], dj[r["draft"]]
        link = r["reread"] != "none"
        if link and not out[i, j]:
            added += 1
        elif not link and out[i, j]:
            removed += 1
        out[i, j] = link
    return out, added, removed


def _save(path: Path, rows: list[dict[str, Any]]) -> None:
    doc = {
        "about": (
            "Cells where the judge and a label differed, answered blind by a third reader "
            "from both records and the code (benchmarks/adjudicate.py, benchmarks/reread.py); "
            "'label' is the label's role, 'reread' the reader's answer."
        ),
        "cells": rows,
    }
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="benchmarks/reread.py")
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect", help="add a reader's answers to the re-read cells")
    c.add_argument("answers", type=Path)
    c.add_argument("key", type=Path)
    c.add_argument("--into", type=Path, default=DEFAULT)
    a = ap.parse_args(argv)
    key = json.loads(a.key.read_text(encoding="utf-8"))
    new = collect(parse_answers(a.answers.read_text(encoding="utf-8")), key)
    if len(new) < len(key):
        print(f"{len(key) - len(new)} item(s) of the key have no answer", file=sys.stderr)
    old = load(a.into)
    rows = merged(old, new)
    _save(a.into, rows)
    flips = sum((r["reread"] != "none") != (r["label"] != "none") for r in rows)
    print(f"{len(rows) - len(old)} cell(s) added, {len(rows)} in all, {flips} correct a label")
    return 0


if __name__ == "__main__":
    sys.exit(main())
