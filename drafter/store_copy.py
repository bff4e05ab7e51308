"""Move a review store between backends: SQLite ↔ Postgres, losing nothing.

Why rows are copied as they are and not re-decided: a decision's analyst, time, uid
and undone mark are the review's history; replaying decisions through the store would
stamp them with the copier's name and the time of the copy.  Sequence numbers are the
one thing not kept (a Postgres database numbers the rows of all its stores together);
the order is.  The destination must be empty, so a copy never merges two histories.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from drafter.errors import BadInput
from drafter.review_fold import DecisionRow
from drafter.review_log import DecisionLog
from drafter.review_store import open_log
from drafter.store_locator import is_server, split_server


@dataclass(frozen=True, slots=True)
class CopyResult:
    decisions: int
    sessions: int
    settings: int


def comparable(rows: list[DecisionRow]) -> list[DecisionRow]:
    """Rows without their backend's sequence numbers: what a copy must keep equal."""
    return [dataclasses.replace(r, seq=0) for r in rows]


def destination(src: str, dst: str) -> str:
    """A server DST without ``#NAME`` takes the store name from SRC (its file's stem,
    which is the draft's review identity, or SRC's own ``#NAME``)."""
    if not is_server(dst) or split_server(dst)[1] is not None:
        return dst
    name = split_server(src)[1] if is_server(src) else Path(src).stem
    return f"{dst}#{name}"


def copy_store(src: str, dst: str) -> CopyResult:
    """Copy every decision, session and view setting of SRC into the empty DST."""
    if not is_server(src) and not Path(src).is_file():
        raise BadInput("no such review store", where=src)
    source = open_log(src)
    try:
        target = open_log(destination(src, dst))
        try:
            return _copy(source, target)
        finally:
            target.close()
    finally:
        source.close()


def _copy(source: DecisionLog, target: DecisionLog) -> CopyResult:
    have = target.read()
    if have:
        raise BadInput(
            f"the destination already holds {len(have)} decisions; copy into an empty store",
            where=target.where,
        )
    rows = source.read()
    sessions = source.sessions()
    settings = source.settings()
    with target.transaction():
        for row in rows:
            target.append(row)
        for analyst, started, last_seen in sessions:
            target.add_session(analyst, started, last_seen)
        for key, value in settings.items():
            target.set_setting(key, value)
    if comparable(target.read()) != comparable(rows):
        raise BadInput("the copy does not read back equal to its source", where=target.where)
    return CopyResult(len(rows), len(sessions), len(settings))
