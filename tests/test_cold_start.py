"""Nothing waits for the dense index: records are requested while it is still being
built, search answers from what is ready and says so, and a draft stops the build
instead of waiting for it.  Order of events is asserted, never times."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import httpx as httpx2
import pytest
from claude_scenario import script_sample
from fakes import FakeAPI
from gitrepo import commit

from graph import resources as resources_module
from graph.proposers.agent.tools import SnapshotTools
from graph.resources import Resources
from retrieval.index import Index

#: A build that is not let through is released after this many seconds, so that the
#: old behaviour (a record waiting for the whole index) fails instead of hanging.
RELEASE_AFTER = 60


def _gate_store(
    monkeypatch: pytest.MonkeyPatch, gate: threading.Event, events: list[str]
) -> threading.Event:
    """Every batch the index stores waits for ``gate``; the end of a build is an event.
    Returns an event set when a batch is first held at the gate."""
    held = threading.Event()
    real_store = Index._store_batch
    real_ensure = Index.ensure

    def store(self: Index, *args: Any) -> None:
        held.set()
        gate.wait(RELEASE_AFTER)
        real_store(self, *args)

    def ensure(self: Index, *args: Any, **kw: Any) -> Any:
        stats = real_ensure(self, *args, **kw)
        events.append("index stopped" if getattr(stats, "stopped", False) else "index complete")
        return stats

    monkeypatch.setattr(Index, "_store_batch", store)
    monkeypatch.setattr(Index, "ensure", ensure)
    return held


def test_claude_draft_requests_records_before_the_index_is_complete(
    sample: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []
    first_record = threading.Event()
    _gate_store(monkeypatch, first_record, events)
    fake = FakeAPI()
    script_sample(fake)
    real_handler = fake.handler

    def handler(request: httpx2.Request) -> httpx2.Response:
        key = FakeAPI.key_of(json.loads(request.content))
        if key.startswith("record:"):
            events.append("record request")
            first_record.set()
        return real_handler(request)

    fake.handler = handler  # type: ignore[method-assign]
    result = fake.draft(sample.path, sample.sha, tmp_path / "data", system="tinkerbot")
    assert result.report is not None
    assert "record request" in events
    first = events.index("record request")
    built = [i for i, e in enumerate(events) if e.startswith("index")]
    # the index had not completed when the first record was asked for
    assert all(i > first for i in built), events
    notes = result.report.meta.notes if result.report.meta else []
    assert any(n.startswith("index coverage:") for n in notes)


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "repo"
    sha = commit(
        path,
        {
            "agent/loop.py": (
                "def run_agent(task):\n"
                "    plan = make_plan(task)\n"
                "    return execute_plan(plan)\n\n\n"
                "def execute_plan(plan):\n"
                "    return [step() for step in plan]\n"
            ),
            "README.md": "# Agent\n\nThe agent plans, then executes the plan.\n",
            "data/tasks.json": json.dumps([{"task": f"plan number {i}"} for i in range(50)]),
        },
    )
    return path, sha


def test_search_answers_from_words_at_once_and_says_dense_is_not_ready(
    repo: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []
    gate = threading.Event()
    _gate_store(monkeypatch, gate, events)
    res = Resources(repo=str(repo[0]), rev=repo[1], data_dir=tmp_path / "data")
    try:
        res.start_index()
        hits, note = res.search_answer("execute the plan", 3)
        assert events == []  # the build is held: this answer came from words alone
        assert hits and hits[0]["path"] == "agent/loop.py"
        assert "dense results not yet available" in note
        answer, is_error = SnapshotTools(res).run("search", {"query": "execute the plan"})
        assert not is_error and "dense results not yet available" in answer
        gate.set()
        assert res._index_thread is not None
        res._index_thread.join(RELEASE_AFTER)
        assert events == ["index complete"]
        hits, note = res.search_answer("execute the plan", 3)
        assert note == "" and hits[0]["path"] == "agent/loop.py"
    finally:
        gate.set()
        res.close()


def test_a_draft_stops_the_build_instead_of_waiting_for_it(
    repo: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []
    gate = threading.Event()
    held = _gate_store(monkeypatch, gate, events)
    monkeypatch.setattr(resources_module, "BUILD_BATCH", 2)  # several batches to stop between
    res = Resources(repo=str(repo[0]), rev=repo[1], data_dir=tmp_path / "data")
    res.start_index()
    assert held.wait(RELEASE_AFTER)  # the first batch is embedded and about to be stored

    closing = threading.Thread(target=res.close)
    closing.start()
    # close asks the build to stop; the held batch is then let through and the build
    # ends there, not after embedding everything
    while not res._stop.is_set():
        closing.join(0.01)
    gate.set()
    closing.join(RELEASE_AFTER)
    assert not closing.is_alive()
    assert events == ["index stopped"]
    # the next run continues where this one stopped and completes
    events.clear()
    again = Resources(repo=str(repo[0]), rev=repo[1], data_dir=tmp_path / "data")
    again.finish_index = True
    again.start_index()
    again.close()
    assert events == ["index complete"]
    assert again.index_stats.already_present > 0
