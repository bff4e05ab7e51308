"""Kill a Claude-drafted run mid-way, resume it, and prove nothing paid for is asked again."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from claude_scenario import script_sample
from fakes import FakeAPI, Killed

from graph.journal import request_key


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory):
    """One data dir (index, run checkpoints) for the module; runs differ by thread ID."""
    return tmp_path_factory.mktemp("data")


def _run(sample, data_dir, fake: FakeAPI, thread_id: str, resume: bool = False):
    return fake.draft(
        sample.path, sample.sha, data_dir, thread_id=thread_id, resume=resume, system="tinkerbot"
    )


def _comparable(report) -> dict:
    """The draft minus what legitimately differs between two runs."""
    d = json.loads(report.to_json())
    d["meta"]["created"] = None
    d["meta"]["extra"]["thread_id"] = None
    # how far the background index had got when the draft was written is timing
    d["meta"]["extra"].pop("index", None)
    # (and so is whether it was complete when a run started: word-only search then)
    d["meta"]["notes"] = [
        n for n in d["meta"]["notes"] if not n.startswith(("dense index:", "search: word"))
    ]
    return d


def test_kill_and_resume_repeats_no_completed_call(sample, data) -> None:
    # reference: an uninterrupted run
    ref_fake = FakeAPI()
    script_sample(ref_fake)
    ref = _run(sample, data, ref_fake, "reference")
    ref_keys = Counter(ref_fake.keys)

    # the same run, killed at the 7th request: records 1-2 done, the route's tool loop
    # in flight (its first turn answered and its tool run, the second turn lost)
    fake = FakeAPI()
    script_sample(fake)
    fake.kill_at = 7
    with pytest.raises(Killed):
        _run(sample, data, fake, "killed")
    before = list(fake.keys)
    assert before[:1] == ["plan"] and len(before) == 6
    done_before = {k for k in before if k.startswith("record:")}
    assert done_before == {
        "record:RT-CMP-claude",
        "record:RT-OBJ-run-log",
        "record:RT-RTE-run-task",
    }
    assert before.count("record:RT-RTE-run-task") == 1  # one turn of three

    fake.kill_at = None
    resumed = _run(sample, data, fake, "killed", resume=True)
    after = fake.keys[len(before) :]
    # nothing that completed before the kill is asked again
    assert "plan" not in after
    finished = done_before - {"record:RT-RTE-run-task"}
    assert not finished & set(after), f"repeated: {finished & set(after)}"
    # the interrupted loop went on where it stopped: no request was sent twice
    sent_before = {request_key(b) for b in fake.log[: len(before)]}
    assert not sent_before & {request_key(b) for b in fake.log[len(before) :]}
    # the rest of its loop: the grep turn, the submission and its one fix-up
    assert after.count("record:RT-RTE-run-task") == 3
    # and in total the run asked exactly what the uninterrupted run asked
    assert Counter(fake.keys) == ref_keys
    assert resumed.resumed and resumed.report is not None
    assert _comparable(resumed.report) == _comparable(ref.report)


def test_resuming_a_finished_run_asks_nothing(sample, data) -> None:
    fake = FakeAPI()
    script_sample(fake)
    first = _run(sample, data, fake, "done")
    n = len(fake.log)
    again = _run(sample, data, fake, "done", resume=True)
    assert len(fake.log) == n
    assert _comparable(again.report) == _comparable(first.report)


CHILD = r"""
import json, sys, time
sys.path.insert(0, {tests!r})
from fakes import FakeAPI
from claude_scenario import script_sample
from graph.configuration import Configuration
from graph.journal import request_key
from graph.runner import run_draft

log = open({log!r}, "a")
fake = FakeAPI()
script_sample(fake)
inner = fake.handler

def handler(request):
    key = FakeAPI.key_of(json.loads(request.content))
    if len(fake.log) + 1 >= 7:  # the 7th request hangs until the parent kills us
        log.write("HANG " + key + "\n"); log.flush()
        time.sleep(600)
    log.write(key + "\n"); log.flush()
    with open({log!r} + ".bodies", "a") as bodies:
        bodies.write(request.content.decode() + "\n")
    return inner(request)

fake.handler = handler
prop = fake.proposer("claude-sonnet-5-5")
cfg = Configuration(model="claude-sonnet-5-5", generator="claude", concurrency=1)
run_draft({repo!r}, {sha!r}, cfg, lambda c, r: prop, thread_id="sigkill", system="tinkerbot")
"""


def test_sigkill_mid_run_then_resume(sample, data, tmp_path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    log = tmp_path / "child.log"
    code = CHILD.format(
        tests=str(Path(__file__).parent), log=str(log), repo=str(sample.path), sha=sample.sha
    )
    env = {**os.environ, "DRAFTER_DATA_DIR": str(data)}
    child = subprocess.Popen([sys.executable, "-c", code], env=env, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and "HANG" not in (log.read_text() if log.exists() else ""):
        assert child.poll() is None, child.stderr.read().decode()[-2000:]
        time.sleep(0.1)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    done_in_child = [k for k in log.read_text().splitlines() if not k.startswith("HANG")]
    assert done_in_child[0] == "plan" and len(done_in_child) == 6

    fake = FakeAPI()
    script_sample(fake)
    # the same scripted model: the child already got the route's first turn
    fake.scripts["record:RT-RTE-run-task"].pop(0)
    resumed = _run(sample, data, fake, "sigkill", resume=True)
    finished = {"plan", "record:RT-CMP-claude", "record:RT-OBJ-run-log"}
    assert finished <= set(done_in_child)
    assert not finished & set(fake.keys), f"repeated after SIGKILL: {finished & set(fake.keys)}"
    # killed inside the route's tool loop: its first turn is not paid again
    assert done_in_child.count("record:RT-RTE-run-task") == 1
    # and no request the child had answered was sent again, byte for byte
    answered = [json.loads(x) for x in Path(f"{log}.bodies").read_text().splitlines()]
    assert not {request_key(b) for b in answered} & {request_key(b) for b in fake.log}
    # its grep turn, its submission with a miss and the one fix-up resubmission
    assert fake.keys.count("record:RT-RTE-run-task") == 3
    assert resumed.report is not None
    # LangGraph saves finished tasks' writes from its worker pool; with one worker they
    # usually die with the process (typically all three record tasks re-run), and the
    # re-run tasks are answered from the call journal instead of being paid again
    assert resumed.replayed <= 3, resumed.replayed
    assert [r.id for r in resumed.report.records][:3] == [
        "RT-CMP-claude",
        "RT-OBJ-run-log",
        "RT-RTE-run-task",
    ]
    assert all(w.verified for w in resumed.report.witnesses)
