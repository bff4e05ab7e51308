"""Batches and concurrency: a review batch never half-applies and never doubles.

``review --decisions`` stores the whole file in one transaction, and a decision line
already stored is skipped, so a batch killed half-way leaves nothing and a rerun
leaves each decision exactly once.  Two ``--accept-verified`` at once serialise; a
store held by another process is waited for a bounded time, then one line, exit 2.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from review_material import tiny_draft

from drafter.cli import main
from drafter.model import Report
from drafter.review_identity import identity_store_path
from drafter.review_store import ReviewStore

DRAFTER = str(Path(sys.executable).parent / "drafter")


@pytest.fixture()
def draft(tmp_path: Path) -> tuple[Path, Path, Report]:
    d, repo = tiny_draft(tmp_path)
    return d, repo, Report.from_json(d.read_text())


def _notes(path: Path, report: Report, n: int) -> None:
    ids = [r.id for r in report.records]
    lines = [
        json.dumps({"record": ids[i % len(ids)], "action": "annotate", "text": f"note {i}"})
        for i in range(n)
    ]
    path.write_text("\n".join(lines) + "\n")


def _store(draft_path: Path) -> Path:
    """The store `drafter review` opens for this draft (keyed by the draft's identity)."""
    return identity_store_path(draft_path, Report.from_json(draft_path.read_text()))


def _rows(draft_path: Path) -> int:
    with sqlite3.connect(_store(draft_path)) as db:
        return int(db.execute("SELECT COUNT(*) FROM decisions").fetchone()[0])


def _review(draft_path: Path, repo: Path, *extra: str) -> int:
    return main(["review", str(draft_path), "--repo", str(repo), *extra])


def test_rerunning_a_decisions_file_never_duplicates(draft, tmp_path: Path) -> None:
    d, repo, report = draft
    dec = tmp_path / "dec.jsonl"
    _notes(dec, report, 30)
    for _ in range(3):
        assert _review(d, repo, "--decisions", str(dec)) == 0
        assert _rows(d) == 30


def test_identical_lines_in_one_file_are_two_decisions(draft, tmp_path: Path) -> None:
    d, repo, report = draft
    line = json.dumps({"record": report.records[0].id, "action": "annotate", "text": "same"})
    dec = tmp_path / "dec.jsonl"
    dec.write_text(f"{line}\n{line}\n")
    assert _review(d, repo, "--decisions", str(dec)) == 0
    assert _review(d, repo, "--decisions", str(dec)) == 0
    assert _rows(d) == 2


def test_an_extended_file_applies_only_the_new_lines(draft, tmp_path: Path) -> None:
    d, repo, report = draft
    dec = tmp_path / "dec.jsonl"
    _notes(dec, report, 5)
    assert _review(d, repo, "--decisions", str(dec)) == 0
    rid = report.records[0].id
    with dec.open("a") as f:
        f.write(json.dumps({"record": rid, "action": "accept"}) + "\n")
    assert _review(d, repo, "--decisions", str(dec)) == 0
    assert _rows(d) == 6


def test_a_bad_line_leaves_nothing_applied(draft, tmp_path: Path, capsys) -> None:
    d, repo, report = draft
    dec = tmp_path / "dec.jsonl"
    _notes(dec, report, 10)
    with dec.open("a") as f:
        f.write('{"record": "RT-CLM-nope", "action": "accept"}\n')
    assert _review(d, repo, "--decisions", str(dec)) == 2
    assert "dec.jsonl:11:" in capsys.readouterr().err
    store = _store(d)
    assert not store.exists() or _rows(d) == 0


def test_a_failure_mid_batch_rolls_the_whole_batch_back(draft, tmp_path: Path) -> None:
    from tui.batch import apply_decisions_file

    d, _, report = draft
    dec = tmp_path / "dec.jsonl"
    _notes(dec, report, 20)
    store = ReviewStore(_store(d))
    calls = {"n": 0}
    real = store._append

    def failing(*a, **k):  # noqa: ANN002, ANN003 - pass-through
        calls["n"] += 1
        if calls["n"] == 11:
            raise OSError("disk went away")
        return real(*a, **k)

    store._append = failing  # type: ignore[method-assign]
    with pytest.raises(OSError):
        apply_decisions_file(store, report, dec)
    assert store.rows() == []
    store.close()


_KILL_CHILD = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from drafter.model import Report
    from drafter.review_store import ReviewStore
    from tui.batch import apply_decisions_file

    draft, dec, store_path, stop_at = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    report = Report.from_json(Path(draft).read_text())
    store = ReviewStore(store_path)
    real, n = store._append, [0]

    def slow(*a, **k):
        n[0] += 1
        if n[0] == stop_at:
            print("half-way", flush=True)
            time.sleep(60)  # the parent kills us here, inside the batch
        return real(*a, **k)

    store._append = slow
    apply_decisions_file(store, report, Path(dec))
    print("done", flush=True)
    """
)


def test_killed_3000_line_batch_rerun_leaves_exactly_3000_rows(draft, tmp_path: Path) -> None:
    d, repo, report = draft
    dec = tmp_path / "dec.jsonl"
    _notes(dec, report, 3000)
    store = _store(d)
    child = subprocess.Popen(
        [sys.executable, "-c", _KILL_CHILD, str(d), str(dec), str(store), "1500"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "half-way"
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    assert _rows(d) == 0  # 1,499 decisions were inside the killed transaction
    assert _review(d, repo, "--decisions", str(dec)) == 0
    assert _rows(d) == 3000
    assert _review(d, repo, "--decisions", str(dec)) == 0
    assert _rows(d) == 3000


def _spawn(cmd: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _accepts(draft_path: Path) -> dict[str, int]:
    with sqlite3.connect(_store(draft_path)) as db:
        rows = db.execute(
            "SELECT record_id, COUNT(*) FROM decisions WHERE action='accept' GROUP BY record_id"
        ).fetchall()
    return dict(rows)


def test_racing_accept_verified_accepts_each_record_once(draft, monkeypatch) -> None:
    """Two writers that both read the states before either writes (forced with a
    barrier that gives up after a moment) still accept each record once."""
    import threading

    from tui.batch import accept_verified
    from tui.session import ReviewSession

    d, repo, _ = draft
    session = ReviewSession(d, repo)  # verifies the draft's witnesses once
    report = session.report
    session.close()
    barrier = threading.Barrier(2, timeout=1.5)
    real_states = ReviewStore.states

    def states(self, records):  # noqa: ANN001, ANN202 - pass-through
        got = real_states(self, records)
        try:
            barrier.wait()  # both readers meet here, unless one holds the write lock
        except threading.BrokenBarrierError:
            pass
        return got

    monkeypatch.setattr(ReviewStore, "states", states)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            with ReviewStore(_store(d)) as store:
                accept_verified(store, report)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors
    accepts = _accepts(d)
    assert accepts and set(accepts.values()) == {1}


def test_concurrent_decision_batches_store_each_line_once(draft, tmp_path: Path) -> None:
    d, repo, report = draft
    dec = tmp_path / "dec.jsonl"
    _notes(dec, report, 200)
    cmd = [DRAFTER, "review", str(d), "--repo", str(repo), "--decisions", str(dec)]
    procs = [_spawn(cmd) for _ in range(2)]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()[-2000:]
    assert _rows(d) == 200


@pytest.mark.parametrize("step", ["--accept-verified", "--decisions"])
def test_locked_store_waits_then_one_line_exit_2(
    draft, tmp_path: Path, capsys, monkeypatch, step: str
) -> None:
    d, repo, report = draft
    ReviewStore(_store(d)).close()  # the store exists, schema made
    holder = sqlite3.connect(_store(d), isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process is writing
    monkeypatch.setenv("DRAFTER_LOCK_WAIT", "0.3")
    dec = tmp_path / "dec.jsonl"
    _notes(dec, report, 3)
    args = [step] if step == "--accept-verified" else [step, str(dec)]
    try:
        assert _review(d, repo, *args) == 2
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "locked" in err
    assert str(_store(d)) in err


def test_undo_after_a_batch_is_not_reapplied_by_a_rerun(draft, tmp_path: Path) -> None:
    d, repo, report = draft
    dec = tmp_path / "dec.jsonl"
    dec.write_text(json.dumps({"record": report.records[0].id, "action": "accept"}) + "\n")
    assert _review(d, repo, "--decisions", str(dec)) == 0
    with ReviewStore(_store(d)) as store:
        assert store.undo() is not None
    assert _review(d, repo, "--decisions", str(dec)) == 0
    with ReviewStore(_store(d)) as store:
        assert store.rows() == []  # the analyst's undo stands
