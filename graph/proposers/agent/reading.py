"""Whether the planner received the lines a reading note names.

Why: a planner's note may name lines it never read (it guessed where a function was, or
took the range from a grep hit or a docstring); shown to the record's drafter as "what
the planner read", such a note reads as evidence.  Only lines a ``read_file`` answer
(or the plan request's own README page) gave the planner count as read; a note's other
lines are marked "mentioned, not read".
"""

from __future__ import annotations

from graph.proposer import ReadingNote, ReadRange


def read_lines(note: ReadingNote, reads: list[ReadRange]) -> list[tuple[int, int]]:
    """The parts of ``note``'s range that some read covers, merged, in order."""
    first, last = note.start_line, max(note.start_line, note.end_line)
    parts = sorted(
        (max(first, r.start_line), min(last, r.end_line))
        for r in reads
        if r.path == note.path and r.start_line <= last and first <= r.end_line
    )
    out: list[tuple[int, int]] = []
    for a, b in parts:
        if out and a <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def reading_mark(note: ReadingNote, reads: list[ReadRange]) -> str:
    """ "" when the planner read every line the note names; else what it read of them."""
    got = read_lines(note, reads)
    first, last = note.start_line, max(note.start_line, note.end_line)
    if got == [(first, last)]:
        return ""
    if not got:
        return " (mentioned, not read)"
    spans = ", ".join(f"{a}–{b}" for a, b in got)
    return f" (read: lines {spans}; the rest mentioned, not read)"


def note_row(note: ReadingNote, reads: list[ReadRange]) -> str:
    """One note as a record request lists it, marked by what the planner read of it."""
    where = f"{note.path} lines {note.start_line}–{note.end_line}"
    return f"{where}{reading_mark(note, reads)}: {note.showed}"


def unread_count(notes: list[ReadingNote], reads: list[ReadRange]) -> int:
    return sum(1 for n in notes if reading_mark(n, reads))
