"""The client's retry policy and call journal, through the real SDK and ``FakeAPI``."""

from __future__ import annotations

import pytest
from fakes import FakeAPI, error, tool

from graph.costs import Budget, metered
from graph.proposer import PlanContext
from graph.proposers.providers.retry import ModelUnavailable, RetryPolicy


def _plan_ctx() -> PlanContext:
    return PlanContext(system="s", repository="r", revision="0" * 40, files=["a.py"], survey=None)


PLAN = {
    "system": "s",
    "items": [{"id": "RT-CMP-model", "kind": "CMP", "label": "Model", "files": ["a.py"]}],
}


def test_overloaded_529_is_retried_with_backoff() -> None:
    fake = FakeAPI()
    fake.script("plan", error(529), error(529), tool(PLAN))
    prop = fake.proposer()
    with metered("plan", Budget()) as meter:
        plan = prop.plan(_plan_ctx())
    assert [i.id for i in plan.items] == ["RT-CMP-model"]
    assert len(fake.log) == 3
    assert len(prop.retry.waits) == 2 and all(0 < w <= 0.01 for w in prop.retry.waits)
    assert len(meter.calls) == 1  # errors carry no usage and are not charged


def test_429_waits_what_retry_after_says() -> None:
    fake = FakeAPI()
    fake.script("plan", error(429, **{"retry-after": "0.02"}), tool(PLAN))
    prop = fake.proposer()
    prop.plan(_plan_ctx())
    assert prop.retry.waits == [0.02]


def test_retry_after_ms_wins_and_is_capped() -> None:
    fake = FakeAPI()
    fake.script(
        "plan",
        error(429, **{"retry-after-ms": "5", "retry-after": "9"}),
        error(429, **{"retry-after": "999"}),
        tool(PLAN),
    )
    prop = fake.proposer(retry=RetryPolicy(base_delay=0.001, max_retry_after=0.003))
    prop.plan(_plan_ctx())
    assert prop.retry.waits == [0.003, 0.003]  # 5 ms and 999 s, both capped at 3 ms


def test_gives_up_after_max_attempts() -> None:
    fake = FakeAPI()
    fake.script("plan", *[error(503)] * 3)
    prop = fake.proposer(retry=RetryPolicy(max_attempts=3, base_delay=0.001))
    with pytest.raises(ModelUnavailable, match="after 3 attempts"):
        prop.plan(_plan_ctx())
    assert len(fake.log) == 3


def test_non_retryable_error_is_not_retried() -> None:
    fake = FakeAPI()
    fake.script("plan", error(400))
    prop = fake.proposer()
    with pytest.raises(ModelUnavailable, match="HTTP 400"):
        prop.plan(_plan_ctx())
    assert len(fake.log) == 1


def test_journal_answers_a_repeated_request_without_a_call(tmp_path) -> None:
    from graph.journal import CallJournal

    fake = FakeAPI()
    fake.script("plan", tool(PLAN))
    journal = CallJournal(tmp_path / "calls.sqlite")
    first = fake.proposer()
    first.attach_journal(journal)
    with metered("plan", Budget()) as m1:
        p1 = first.plan(_plan_ctx())
    journal.close()
    # a new process: new proposer, same journal file, nothing scripted any more
    again = fake.proposer()
    journal2 = CallJournal(tmp_path / "calls.sqlite")
    again.attach_journal(journal2)
    with metered("plan", Budget()) as m2:
        p2 = again.plan(_plan_ctx())
    assert p2 == p1 and len(fake.log) == 1 and journal2.replayed == 1
    assert [c.input_tokens for c in m2.calls] == [c.input_tokens for c in m1.calls]
