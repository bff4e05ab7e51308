"""Line references in a report's prose ("The route starts at prepare.py:178"), carried
to a new revision with the witnesses they point at.

Why: ``drafter reverify`` re-anchors every witness, but prose that names a line by
number kept the old number, so a carried draft said "prepare.py:178" where the quote
now sits at line 448.  A reference follows its witness: the witness in the same record
(else anywhere in the report) whose quote covered that line at the old revision.  When
that witness moved, the reference moves by the same offset.  A reference no witness
covers, or whose witness went stale, is followed by the text of the lines it names: the
same text at the same lines is unchanged; found exactly once elsewhere (and at least
:data:`MIN_TEXT` characters long, so that a bare ``return x`` is not taken for the
same line) it moved; otherwise the reference is stale and its record is flagged.  A
``name.ext:N`` whose file does not exist at the old revision is not a line reference
(``example.com:80``) and is left alone.

Only prose is read and rewritten: paragraphs, bullets, numbered items, headings and
table cells, never witness quotes (repository text) or the annotations.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from drafter.model import Bullet, Heading, LineRange, NumberedItem, Paragraph, Report, Table
from drafter.snapshot import Snapshot

#: ``path:LINE`` or ``path:START-END`` in prose; the path has a file suffix.
REF_RE = re.compile(
    r"(?<![\w/.:+-])(?P<path>(?:[\w.+-]+/)*[\w+-][\w.+-]*\.[A-Za-z][A-Za-z0-9]{0,7})"
    r":(?P<start>\d{1,7})(?:-(?P<end>\d{1,7}))?(?![\w:]|-\d)"
)


#: Fewest non-blank characters a referenced line must have to be recognised by its text.
MIN_TEXT = 12


class RefCase(StrEnum):
    unchanged = "unchanged"
    moved = "moved"
    stale = "stale"


@dataclass(frozen=True, slots=True)
class WitnessMove:
    """Where one witness's quote was at the old revision and is at the new one."""

    where: str
    path: str
    old: LineRange | None
    new: LineRange | None  # None when stale


@dataclass(frozen=True, slots=True)
class ProseRef:
    """One line reference in prose and what became of it."""

    where: str
    old: str  # as written, e.g. "prepare.py:178"
    new: str  # as rewritten (the same when unchanged or stale)
    case: RefCase


def _render(path: str, lines: LineRange, ranged: bool) -> str:
    return f"{path}:{lines.start}-{lines.end}" if ranged else f"{path}:{lines.start}"


def _same_file(ref_path: str, path: str) -> bool:
    return path == ref_path or path.endswith("/" + ref_path)


class _Carrier:
    def __init__(self, moves: list[WitnessMove], old: Snapshot, new: Snapshot) -> None:
        self.moves = moves
        self.old, self.new = old, new
        self.files = old.files()
        self._lines: dict[tuple[str, str], list[str] | None] = {}
        self.found: list[ProseRef] = []

    def _text(self, snap: Snapshot, path: str) -> list[str] | None:
        key = (snap.sha, path)
        if key not in self._lines:
            try:
                self._lines[key] = snap.read_str(path).splitlines()
            except Exception:  # noqa: BLE001 - absent, binary or not a file: cannot follow
                self._lines[key] = None
        return self._lines[key]

    def _repo_path(self, ref_path: str) -> str | None:
        """The file at the old revision a prose path names (exact, else a unique suffix)."""
        if ref_path in self.files:
            return ref_path
        hits = [f for f in self.files if f.endswith("/" + ref_path)]
        return hits[0] if len(hits) == 1 else None

    def _witness(self, where: str, path: str, span: LineRange) -> WitnessMove | None:
        covering = [
            m
            for m in self.moves
            if m.old is not None
            and _same_file(path, m.path)
            and m.old.start <= span.start
            and span.end <= m.old.end
        ]
        own = [m for m in covering if m.where == where]
        best = own or covering
        return best[0] if best else None

    def _by_text(self, path: str, span: LineRange) -> LineRange | None:
        """The span's text followed to the new revision: its span there (``span`` itself
        when unchanged), None when it is gone or no longer in one place."""
        before, after = self._text(self.old, path), self._text(self.new, path)
        if before is None or span.end > len(before):
            return None
        if after is None:
            return None
        chunk = before[span.start - 1 : span.end]
        if after[span.start - 1 : span.end] == chunk:
            return span
        if len("".join(chunk).replace(" ", "")) < MIN_TEXT:
            return None  # too little text to recognise the lines by
        n = len(chunk)
        starts = [i for i in range(len(after) - n + 1) if after[i : i + n] == chunk]
        if len(starts) != 1:
            return None
        return LineRange(start=starts[0] + 1, end=starts[0] + n)

    def carry(self, where: str, m: re.Match[str]) -> str:
        text = m.group(0)
        ref_path = m.group("path")
        start = int(m.group("start"))
        end = int(m.group("end") or start)
        path = self._repo_path(ref_path)
        if path is None or end < start or start < 1:
            return text  # not a line of a file at the old revision: not a reference
        span = LineRange(start=start, end=end)
        ranged = m.group("end") is not None
        w = self._witness(where, path, span)
        new_span: LineRange | None = None
        if w is not None and w.old is not None and w.new is not None:
            shift = w.new.start - w.old.start
            new_span = LineRange(start=start + shift, end=end + shift)
        else:  # no witness covers it, or its witness went stale: follow the lines' text
            new_span = self._by_text(path, span)
        if new_span is None:
            self._say(ProseRef(where, text, text, RefCase.stale))
            return text
        if new_span == span:
            self._say(ProseRef(where, text, text, RefCase.unchanged))
            return text
        moved = _render(ref_path, new_span, ranged)
        self._say(ProseRef(where, text, moved, RefCase.moved))
        return moved

    def _say(self, ref: ProseRef) -> None:
        if ref not in self.found:  # a sentence may name the same line twice
            self.found.append(ref)


def rewrite_prose(blocks: list[object], fix: Callable[[str], str]) -> None:
    """Apply ``fix`` to the prose of ``blocks`` in place (never to witness quotes)."""
    for b in blocks:
        if isinstance(b, Paragraph | Heading | NumberedItem):
            b.text = fix(b.text)
        elif isinstance(b, Bullet):
            b.value = fix(b.value)
        elif isinstance(b, Table):
            b.rows = [[fix(c) for c in row] for row in b.rows]


def carry_prose_refs(
    report: Report, moves: list[WitnessMove], old: Snapshot, new: Snapshot
) -> list[ProseRef]:
    """Rewrite, in place, the line references in ``report``'s prose that moved; return
    every reference found with its case (stale ones are left as written)."""
    carrier = _Carrier(moves, old, new)

    def fixer(where: str) -> Callable[[str], str]:
        def fix(text: str) -> str:
            if ":" not in text:
                return text
            return REF_RE.sub(lambda m: carrier.carry(where, m), text)

        return fix

    for a in report.account:
        rewrite_prose(list(a.blocks), fixer(a.title))
    for r in report.records:
        rewrite_prose(list(r.blocks), fixer(r.id))
    return carrier.found


def mask_refs(text: str) -> str:
    """``text`` with every line number of a line reference hidden: two records that
    differ only in where their references point compare equal."""
    return REF_RE.sub(lambda m: f"{m.group('path')}:#", text)
