"""Copies: files of one revision that are near-identical copies of each other, and
where a line of one sits in the other.

Why: a system that repeats one pattern in several folders (one ``search.py`` per
benchmark, one prompt module per benchmark) can be witnessed from any copy.  A gold
report quotes one copy, a draft the same lines of another, and every part of the
score that compares places -- lines of one file, the function a quote sits in, the
call path around it -- saw two unrelated files.  With a :class:`LineMap` between two
copies a quote in one is also a quote at the matching lines of the other, so nearby
lines, the enclosing function and its callers are found across the copy too.

Copies are found by content, never by name or folder: two files are copies when at
least :data:`COPY_SHARE` of the smaller one's long lines (16+ characters with
whitespace collapsed, as quote fingerprints count them) also occur in the other.
Copies are not always named alike (a prompt module named after its folder), and files
named alike are not always copies.

A map holds line numbers only (matching blocks of the two files), so it is saved
beside a labelled pair in the code map (evals.structure) without copying code.
"""

from __future__ import annotations

import bisect
import difflib
import itertools
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evals.witnesses import MIN_TEXT_LINE

#: Share of the smaller file's long lines that must also be in the other file.
#: Copies adapted per benchmark share 0.5-0.9 of their lines; files that merely share
#: a header, imports or a few prompt sentences share far less.
COPY_SHARE = 0.5
#: Files with fewer long lines than this are too small to call copies.
MIN_COPY_LINES = 8
#: A long line found in more files than this (a licence header, a common import) says
#: nothing about which files are copies; it is not counted.
MAX_LINE_FILES = 50
#: Files longer than this are not compared (the line alignment is quadratic).
MAX_COPY_FILE_LINES = 20_000


def normalise(line: str) -> str:
    """A line with its whitespace collapsed (what fingerprints and matching use)."""
    return " ".join(line.split())


@dataclass(frozen=True, slots=True)
class LineMap:
    """Matching lines of file ``a`` and file ``b``.

    ``blocks`` are ``(line in a, line in b, length)``, 1-based, in increasing order;
    ``a_lines`` and ``b_lines`` are the files' lengths.  Lines between two blocks map
    proportionally into the gap between them on the other side.
    """

    a: str
    b: str
    a_lines: int
    b_lines: int
    blocks: tuple[tuple[int, int, int], ...]

    def reversed(self) -> LineMap:
        """The same map read from ``b`` to ``a``."""
        return LineMap(
            self.b, self.a, self.b_lines, self.a_lines, tuple((y, x, n) for x, y, n in self.blocks)
        )

    def _block_before(self, line: int) -> int:
        """Index of the last matching block starting at or before ``line`` (-1: none)."""
        return bisect.bisect_right([x for x, _, _ in self.blocks], line) - 1

    def project(self, line: int) -> int:
        """The line of ``b`` that line ``line`` of ``a`` corresponds to."""
        exact = self.project_exact(line)
        if exact is not None:
            return exact
        k = self._block_before(line)
        if k >= 0:
            x, y, n = self.blocks[k]
            lo_a, lo_b = x + n - 1, y + n - 1  # last matching line before the gap
        else:
            lo_a, lo_b = 0, 0
        if k + 1 < len(self.blocks):
            hi_a, hi_b, _ = self.blocks[k + 1]
        else:
            hi_a, hi_b = self.a_lines + 1, self.b_lines + 1
        if hi_a - lo_a <= 0:
            out = lo_b
        else:
            out = lo_b + round((line - lo_a) * (hi_b - lo_b) / (hi_a - lo_a))
        return min(max(out, 1), max(self.b_lines, 1))

    def project_exact(self, line: int) -> int | None:
        """The line of ``b`` holding the same text as line ``line`` of ``a``; None when
        that line is not in a matching block (the copies differ there)."""
        k = self._block_before(line)
        if k >= 0:
            x, y, n = self.blocks[k]
            if line < x + n:
                return y + (line - x)
        return None

    def to_json(self) -> list[object]:
        return [self.a, self.b, self.a_lines, self.b_lines, [list(b) for b in self.blocks]]

    @classmethod
    def from_json(cls, row: Any) -> LineMap:
        """A map saved by :meth:`to_json`; TypeError or ValueError when it is not one."""
        if not isinstance(row, list) or len(row) != 5 or not isinstance(row[4], list):
            raise TypeError(f"not a saved line map: {str(row)[:80]}")
        a, b, na, nb, blocks = row
        return cls(
            str(a),
            str(b),
            int(na),
            int(nb),
            tuple((int(x), int(y), int(n)) for x, y, n in blocks),
        )


def line_map(a: str, a_text: str, b: str, b_text: str) -> LineMap:
    """The matching blocks of two files' normalised lines (blank lines match too)."""
    la = [normalise(x) for x in a_text.splitlines()]
    lb = [normalise(x) for x in b_text.splitlines()]
    matcher = difflib.SequenceMatcher(None, la, lb, autojunk=False)
    blocks = tuple((x + 1, y + 1, n) for x, y, n in matcher.get_matching_blocks() if n)
    return LineMap(a, b, len(la), len(lb), blocks)


def find_copies(texts: Mapping[str, str]) -> list[LineMap]:
    """Every pair of files of ``texts`` (path -> text) that are copies (see the module
    text), each once (``a`` < ``b``), with its line map."""
    long_lines: dict[str, set[str]] = {}
    for path, text in texts.items():
        lines = text.splitlines()
        if len(lines) > MAX_COPY_FILE_LINES:
            continue
        kept = {n for n in map(normalise, lines) if len(n) >= MIN_TEXT_LINE}
        if len(kept) >= MIN_COPY_LINES:
            long_lines[path] = kept
    holders: dict[str, list[str]] = defaultdict(list)
    for path in sorted(long_lines):
        for line in long_lines[path]:
            holders[line].append(path)
    shared: dict[tuple[str, str], int] = defaultdict(int)
    for paths in holders.values():
        if len(paths) > MAX_LINE_FILES:
            continue
        for a, b in itertools.combinations(paths, 2):
            shared[(a, b)] += 1
    out: list[LineMap] = []
    for (a, b), n in sorted(shared.items()):
        if n >= COPY_SHARE * min(len(long_lines[a]), len(long_lines[b])):
            out.append(line_map(a, texts[a], b, texts[b]))
    return out
