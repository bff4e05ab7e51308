"""The labels as re-read: answers parsed, cells merged once, corrections applied.

The agreement tables show the judge against the labels as written and as corrected on
a blind re-reading; a wrong correction would move those figures silently, so each step
is checked on a small matrix.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import reread  # noqa: E402

KEY = {
    "A001": {"pair": "p", "gold": "G1", "draft": "D1", "label": "none"},
    "A002": {"pair": "p", "gold": "G1", "draft": "D2", "label": "also"},
    "A003": {"pair": "q", "gold": "G1", "draft": "D1", "label": "best"},
}


def test_answers_parse_with_their_reasons() -> None:
    got = reread.parse_answers(
        "A001: also — split part: the import\nnoise\nA002: none - a neighbour\nA003: best"
    )
    assert got == {
        "A001": ("also", "split part: the import"),
        "A002": ("none", "a neighbour"),
        "A003": ("best", ""),
    }


def test_corrections_apply_to_their_pair_only() -> None:
    answers = {"A001": ("also", "x"), "A002": ("none", "y"), "A003": ("none", "z")}
    rows = reread.collect(answers, KEY)
    acc = np.array([[False, True]])
    fixed, added, removed = reread.corrected(acc, ["G1"], ["D1", "D2"], rows, "p")
    assert fixed.tolist() == [[True, False]] and (added, removed) == (1, 1)
    assert acc.tolist() == [[False, True]]  # the labels as written are kept
    other, a2, r2 = reread.corrected(np.array([[True]]), ["G1"], ["D1"], rows, "q")
    assert other.tolist() == [[False]] and (a2, r2) == (0, 1)


def test_a_cell_is_read_once(tmp_path: Path) -> None:
    first = reread.collect({"A001": ("also", "x")}, KEY)
    again = reread.collect({"A001": ("none", "later"), "A002": ("none", "y")}, KEY)
    rows = reread.merged(first, again)
    assert [(r["draft"], r["reread"]) for r in rows] == [("D1", "also"), ("D2", "none")]
    assert reread.read_cells(rows, "p") == {("G1", "D1"), ("G1", "D2")}
    assert reread.load(tmp_path / "absent.json") == []


def test_the_shipped_cells_name_pairs_the_labels_hold() -> None:
    rows = reread.load(reread.DEFAULT)
    assert rows, "tests/data/eval_labels/reread.json holds the re-read cells"
    assert all(r["reread"] in ("best", "also", "none") and r["why"] for r in rows)
    here = Path(__file__).resolve().parent / "data" / "eval_labels"
    ours = {r["pair"] for r in rows if not r["pair"].startswith("shared/")}
    assert all((here / f"{p}.labels.json").is_file() for p in ours), ours
