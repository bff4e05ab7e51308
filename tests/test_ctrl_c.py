"""Ctrl-C during a draft says "stopping after the current step…" at once and the
process is gone within seconds, unless a paid model call is in flight (then it says so
and waits for the answer).  Real processes, real SIGINT."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from drafter.sample import SampleRepo

#: ``drafter draft`` whose offline record nodes each take 4 s (a slow machine, a big file).
_SLOW = """
import signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal
from graph.proposers.offline import OfflineProposer
real = OfflineProposer.draft_record
def slow(self, ctx):
    time.sleep(4)
    return real(self, ctx)
OfflineProposer.draft_record = slow
from drafter.cli import main
sys.exit(main(sys.argv[1:]))
"""

#: A paid call in flight for 3 s when Ctrl-C comes.
_PAID = """
import signal, sys, threading, time
signal.signal(signal.SIGINT, signal.default_int_handler)
from graph.interrupt import ctrl_c_stops, paid_call
def call():
    with paid_call():
        time.sleep(3)
    print("answer kept", flush=True)
say = lambda s: print(s, file=sys.stderr, flush=True)
try:
    with ctrl_c_stops(say, "drafter: stopped"):
        threading.Thread(target=call, daemon=True).start()
        print("ready", flush=True)
        time.sleep(60)
except KeyboardInterrupt:  # as drafter.cli.main does
    time.sleep(60)  # the command's own cleanup, slow: the watchdog ends the process
"""


def _start(code: str, *args: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip


def _wait_for(p: subprocess.Popen[str], needle: str) -> None:
    assert p.stdout is not None
    for line in p.stdout:
        if needle in line:
            return
    raise AssertionError(f"{needle!r} never printed; stderr: {p.stderr.read() if p.stderr else ''}")


def test_ctrl_c_during_the_records_stops_within_seconds(sample: SampleRepo, tmp_path: Path) -> None:
    env = {**os.environ, "DRAFTER_DATA_DIR": str(tmp_path / "data"), "COLUMNS": "200"}
    args = ["draft", str(sample.path), "--rev", sample.sha, "--offline", "--no-index",
            "--out", str(tmp_path / "d.json")]  # fmt: skip
    p = _start(_SLOW, *args, env=env)
    _wait_for(p, "drafting records")
    time.sleep(0.5)
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    took = time.monotonic() - t0
    assert p.returncode == 130, err
    assert "stopping after the current step" in err.splitlines()[0]
    assert "--resume draft-" in err
    # before: every queued record node (24 of them, 4 s each) ran first
    assert took < 8, f"{took:.1f} s"


def test_a_paid_call_in_flight_is_said_and_waited_for(tmp_path: Path) -> None:
    p = _start(_PAID, env=dict(os.environ))
    _wait_for(p, "ready")
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    took = time.monotonic() - t0
    assert p.returncode == 130
    assert "1 paid model call(s) in flight" in err and "stopping after the current step" in err
    assert "answer kept" in out and took >= 2.5
