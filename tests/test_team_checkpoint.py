"""A draft on the shared Postgres checkpointer: SIGKILLed mid-run on one machine (data
dir), resumed from another, and no paid call is made twice (the journal of paid calls
lives in the same database).  Real PostgreSQL ($DRAFTER_TEST_PG_URL), the real CLI in a
child process, the scripted Messages API over HTTP."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest
from test_cli_claude_e2e import DRAFTER, _draft_args, _env, _run, _scripted, _thread

from drafter.cli import main

pytestmark = pytest.mark.postgres


def _journal_count(url: str, thread: str) -> int:
    import psycopg

    with psycopg.connect(url) as c:
        row = c.execute(
            "SELECT COUNT(*) FROM drafter_journal_calls WHERE thread=%s", (thread,)
        ).fetchone()
    return int(row[0]) if row else 0


def test_sigkill_then_resume_from_another_data_dir(sample, pg_url: str, tmp_path: Path) -> None:
    server = _scripted()
    server.hang_at = 7  # the route's second tool turn: the kill lands inside a tool loop
    one, two = tmp_path / "machine-1", tmp_path / "machine-2"
    out = tmp_path / "draft.json"
    env = {**_env(server, one), "DRAFTER_CHECKPOINT": pg_url}
    log = (tmp_path / "stdout.txt").open("w")
    child = subprocess.Popen(
        [str(DRAFTER), *_draft_args(sample, out)], env=env, stdout=log, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 120
        while not server.hanging.wait(0.1):
            assert child.poll() is None, child.stderr.read().decode()[-3000:]  # type: ignore[union-attr]
            assert time.monotonic() < deadline, "the child never reached the 7th request"
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        log.close()
        server.release()
    try:
        assert child.returncode == -signal.SIGKILL
        thread = _thread((tmp_path / "stdout.txt").read_text())
        before = list(server.fake.keys)
        paid = _journal_count(pg_url, thread)
        # every answered call is in the database's journal: the plan, two records and the
        # route's first turn (the scripted 529 and 429 before two of them were no answer)
        assert paid == 4 and len(before) == 6
        assert not list((one / "runs").glob(f"{thread}*"))  # nothing of the run on disk
        server.hang_at = None
        resumed = _run(
            ["draft", "--resume", thread], {**_env(server, two), "DRAFTER_CHECKPOINT": pg_url}
        )
        assert resumed.code in (0, 1), resumed.err[-3000:]
        assert f"resuming thread: {thread}" in resumed.out
        after = server.fake.keys[len(before) :]
        # no call answered before the kill was asked again
        done = {k for k, n in Counter(before).items() if k != "record:RT-RTE-run-task"}
        assert not done & set(after), f"asked again: {done & set(after)}"
        # in total exactly what an uninterrupted run asks, each call once
        ref = _scripted()
        try:
            whole = _run(_draft_args(sample, tmp_path / "ref.json"), _env(ref, tmp_path / "ref"))
            assert whole.code == resumed.code, whole.err[-3000:]
            assert Counter(server.fake.keys) == Counter(ref.fake.keys)
        finally:
            ref.close()
        total = _journal_count(pg_url, thread)
        assert total > paid
        print(f"journal: {paid} calls paid before the kill, {total} after the resume")
        assert out.exists()
    finally:
        server.close()


def test_an_unknown_run_and_an_unreachable_checkpointer_are_one_line(
    pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["draft", "--resume", "draft-00000000", "--checkpoint", pg_url]) == 2
    assert "no run 'draft-00000000' to resume" in capsys.readouterr().err
    bad = "postgresql://ann:s3cret@127.0.0.1:1/db"
    assert main(["draft", "--resume", "draft-00000000", "--checkpoint", bad]) == 2
    err = capsys.readouterr().err
    assert "unreachable" in err and "s3cret" not in err and len(err.strip().splitlines()) == 1
