"""kill -9 loses nothing already decided.

A child process drives the real review app headless (Pilot) over a draft of the
shipped sample and prints each record ID once the key that decided it has been
handled.  The parent SIGKILLs it mid-stream, reopens the store and checks that every
printed decision is there.  A second child hammers the store directly, to kill it
at arbitrary points between and during commits.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from review_material import sample_draft

from drafter.model import Report
from drafter.review_store import Mark, ReviewStore

ROOT = Path(__file__).resolve().parents[1]

_APP_CHILD = textwrap.dedent(
    """
    import asyncio, sys
    from tui.app import make_app

    draft, repo, store = sys.argv[1:4]

    async def main():
        app = make_app(draft, repo, store=store, live_clock=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            n = 0
            while True:
                rid = app.main.current_id
                key = "a" if n % 3 else "r"
                await pilot.press(key)
                if key == "r":
                    app.screen.query_one("Input").value = f"reason {n}"
                    await pilot.press("enter")
                    await pilot.pause()
                print(("accepted" if key == "a" else "rejected"), rid, flush=True)
                n += 1
                if app.session.next_pending(None) is None:
                    await pilot.press("u")  # keep going forever: undo, then decide again
                    print("undo", flush=True)
                    n += 1

    asyncio.run(main())
    """
)

_STORE_CHILD = textwrap.dedent(
    """
    import sys
    from drafter.model import Report
    from drafter.review_store import ReviewStore

    draft, store = sys.argv[1:3]
    report = Report.from_json(open(draft).read())
    s = ReviewStore(store)
    i = 0
    while True:
        r = report.records[i % len(report.records)]
        s.annotate(r, f"note {i}")
        print(i, flush=True)
        i += 1
    """
)


def _child(code: str, *args: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", code, *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )


def _kill(proc: subprocess.Popen[str]) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL


def test_sigkill_during_app_review_loses_no_decision(tmp_path: Path) -> None:
    draft, repo, _ = sample_draft(tmp_path)
    store = tmp_path / "review.sqlite"
    proc = _child(_APP_CHILD, draft, repo, store)
    assert proc.stdout is not None
    said: list[str] = []
    try:
        for line in proc.stdout:
            said.append(line.strip())
            if len(said) == 12:
                break
    finally:
        _kill(proc)
    assert len(said) == 12, proc.stderr.read() if proc.stderr else ""
    report = Report.from_json(draft.read_text())
    with ReviewStore(store) as s:
        states = s.states(report.records)
    for line in said:
        verb, rid = line.split(" ", 1)
        want = Mark.accepted if verb == "accepted" else Mark.rejected
        assert states[rid].mark == want, line
    assert sum(st.mark == Mark.rejected for st in states.values()) >= 4
    assert all(
        states[ln.split(" ", 1)[1]].reason == f"reason {i}"
        for i, ln in enumerate(said)
        if ln.startswith("rejected")
    )


@pytest.mark.parametrize("after", [1, 40, 150])
def test_sigkill_while_writing_to_the_store(tmp_path: Path, after: int) -> None:
    draft, _, _ = sample_draft(tmp_path)
    store = tmp_path / "review.sqlite"
    proc = _child(_STORE_CHILD, draft, store)
    assert proc.stdout is not None
    last = -1
    try:
        for line in proc.stdout:
            last = int(line)
            if last + 1 >= after:
                break
    finally:
        _kill(proc)
    assert last + 1 >= after
    # The child kept writing until the signal landed; what it printed after the line we
    # stopped at is still in the pipe.  Every note it acknowledged counts.
    for line in proc.stdout:
        last = int(line)
    with ReviewStore(store) as s:
        notes = [r.text for r in s.rows()]
    # every acknowledged note is there, in order; at most one more was in flight
    assert notes[: last + 1] == [f"note {i}" for i in range(last + 1)]
    assert len(notes) <= last + 2
