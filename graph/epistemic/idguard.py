"""Keep model output from citing a record that does not exist.

Why a separate guard: the epistemic draft's worth rests on citing the runtime report
by its real record IDs.  A model may misremember or make one up; the cell checker
(:mod:`drafter.cellcheck`) flags such IDs in tables, but prose and ``part_of`` are not
tables.  Every ``RT-``/``EPI-`` ID the model writes is therefore checked against the
runtime input and the draft's own records; an unknown one is removed from the text
(replaced by a visible marker) and reported, never kept silently.
"""

from __future__ import annotations

import re

from drafter.cellcheck import CELL_ID_RE
from drafter.model import Bullet, Flag, FlagKind, Paragraph, Record

MARK = "[unknown record ID removed]"


def scrub(text: str, known: set[str]) -> tuple[str, list[str]]:
    """The text with unknown record IDs replaced by :data:`MARK`, and those IDs."""
    bad: list[str] = []

    def sub(m: re.Match[str]) -> str:
        rid = m.group(0)
        if rid in known:
            return rid
        bad.append(rid)
        return MARK

    return CELL_ID_RE.sub(sub, text), bad


def guard_record(record: Record, runtime_ids: set[str], known: set[str]) -> Record:
    """Drop a ``part_of`` that is not a runtime record; scrub unknown IDs from prose."""
    flags = list(record.flags)
    part_of = record.part_of
    if part_of is not None and part_of not in runtime_ids:
        flags.append(
            Flag(
                kind=FlagKind.part_of_removed,
                text=f"part-of {part_of} is not a runtime record of the input; removed",
            )
        )
        part_of = None
    blocks = []
    removed: list[str] = []
    for b in record.blocks:
        if isinstance(b, Paragraph):
            text, bad = scrub(b.text, known)
            b = b.model_copy(update={"text": text}) if bad else b
        elif isinstance(b, Bullet):
            text, bad = scrub(b.value, known)
            b = b.model_copy(update={"value": text}) if bad else b
        else:
            bad = []
        removed += bad
        blocks.append(b)
    if removed:
        flags.append(
            Flag(
                kind=FlagKind.ids_scrubbed,
                text="invented record ID(s) removed from the text: "
                + ", ".join(sorted(set(removed))),
            )
        )
    return record.model_copy(update={"part_of": part_of, "blocks": blocks, "flags": flags})
