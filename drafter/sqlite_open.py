"""Opening an SQLite file that other processes may be creating at the same moment.

Why this exists: SQLite's busy handler (``timeout=`` / ``PRAGMA busy_timeout``) is not
called for every lock conflict.  ``PRAGMA journal_mode=WAL`` on a file that is not yet
in WAL mode reads the header in a read transaction and then upgrades it to write the
new mode; an upgrade from a read transaction fails at once with SQLITE_BUSY ("database
is locked") when another connection already holds the write lock, because waiting
there could deadlock.  Two processes opening the same fresh store at once therefore
saw "locked" after waiting nothing at all (the flaky concurrent-batches test).

:func:`first_open` runs a store's opening steps (the WAL switch, its schema
transaction) and, on SQLITE_BUSY, retries them with a growing, jittered pause until
the store's own wait budget is spent; the busy handler's timeout is shrunk to what is
left of that budget before each attempt, so the whole open never waits longer than the
budget.  A store that is really held for longer still fails, after the full wait.
"""

from __future__ import annotations

import random
import sqlite3
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: first pause between attempts, and the longest one (seconds)
FIRST_PAUSE = 0.005
MAX_PAUSE = 0.2


def is_busy(exc: sqlite3.Error) -> bool:
    """Is ``exc`` a lock conflict (SQLITE_BUSY or SQLITE_LOCKED, any extended code)?"""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    msg = str(exc)
    return "locked" in msg or "busy" in msg


def first_open(
    conn: sqlite3.Connection,
    setup: Callable[[], T],
    *,
    wait: float,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Run ``setup`` (the opening steps on ``conn``), retrying lock conflicts for at
    most ``wait`` seconds in all; any other error, or a conflict once the budget is
    spent, is raised as it came.  ``setup`` must leave no transaction open when it
    fails (a ``BEGIN``/``COMMIT`` it runs must roll back on error), so it can run
    again.  The connection's busy timeout is ``wait`` again afterwards."""
    deadline = clock() + wait
    pause = FIRST_PAUSE
    try:
        while True:
            left = max(0.0, deadline - clock())
            conn.execute(f"PRAGMA busy_timeout={int(left * 1000)}")
            try:
                return setup()
            except sqlite3.OperationalError as exc:
                left = deadline - clock()
                if not is_busy(exc) or left <= 0:
                    raise
            # jitter, so processes that collided once do not collide again in step;
            # the last attempt is made when the budget ends
            sleep(min(left, pause * random.uniform(0.5, 1.0)))
            pause = min(pause * 2, MAX_PAUSE)
    finally:
        conn.execute(f"PRAGMA busy_timeout={int(wait * 1000)}")
