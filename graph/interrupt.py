"""Ctrl-C during a run: said at once, and the process gone within seconds.

Why not Python's default: a KeyboardInterrupt in the main thread leaves LangGraph's
executor waiting for every record node of the step, running and queued, before the
exception reaches the command (seconds on end, with nothing said).  Nothing is gained by
waiting: each finished step is already on disk (the runner checkpoints with
``durability="sync"``), a run stopped anywhere resumes as after ``kill -9``, and a node
that had not finished is drafted again on resume.  The exception is a model call that
is being paid for: its answer is journaled when it arrives, so it is waited for (and
said) rather than paid twice.

So the first Ctrl-C sets :data:`_stop` (a node that has not started stops at once, see
:func:`check_stop`), prints "stopping after the current step…", and lets the main
thread unwind; a watchdog ends the process after :data:`GRACE` seconds, or once the
last paid call in flight has its answer.  A second Ctrl-C ends it at once.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

#: Seconds the main thread gets to unwind after Ctrl-C before the process ends.
GRACE = 1.5
EXIT_CODE = 130

_stop = threading.Event()
_lock = threading.Lock()
_paid_in_flight = 0


class Stopped(KeyboardInterrupt):
    """Raised in a node that would start after Ctrl-C (an interrupt, not an error: no
    retry policy catches it and the command ends as interrupted, exit 130)."""


def check_stop() -> None:
    """Raise :class:`Stopped` once Ctrl-C was pressed (called before a node's work)."""
    if _stop.is_set():
        raise Stopped("stopped by Ctrl-C")


@contextmanager
def paid_call() -> Iterator[None]:
    """Mark a model call being paid for, which Ctrl-C waits for."""
    global _paid_in_flight
    with _lock:
        _paid_in_flight += 1
    try:
        yield
    finally:
        with _lock:
            _paid_in_flight -= 1


def paid_in_flight() -> int:
    with _lock:
        return _paid_in_flight


def _leave(say: Callable[[str], None], last: str) -> None:
    say(last)
    if sys.stdout.isatty():
        sys.stdout.write("\x1b[?25h")  # a progress bar hid the cursor
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(EXIT_CODE)


def _watchdog(say: Callable[[str], None], last: str) -> None:
    deadline = time.monotonic() + GRACE
    while time.monotonic() < deadline or paid_in_flight():
        time.sleep(0.05)
    _leave(say, last)


@contextmanager
def ctrl_c_stops(say: Callable[[str], None], last: str) -> Iterator[None]:
    """Within the block, Ctrl-C stops the run as the module docstring says; ``say``
    prints a line (to stderr), ``last`` is the line printed when the process ends."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_sigint(_signum: int, _frame: FrameType | None) -> None:
        if _stop.is_set():
            _leave(say, last)
        _stop.set()
        say("drafter: stopping after the current step…")
        n = paid_in_flight()
        if n:
            say(
                f"drafter: {n} paid model call(s) in flight: waiting for the answer, which "
                "the run keeps (Ctrl-C again to leave now and pay for it again on resume)"
            )
        threading.Thread(target=_watchdog, args=(say, last), daemon=True).start()
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        _stop.clear()
