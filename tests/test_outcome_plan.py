"""A failed plan is told by a typed count, never by the wording of a message."""

from __future__ import annotations

import json

from drafter.model import DraftCounts, DraftMeta, Report, ReportType
from graph.outcome import problems


def _empty(meta: DraftMeta) -> Report:
    return Report(system="s", type=ReportType.runtime, meta=meta)


def test_a_failed_plan_is_its_reason_alone() -> None:
    failed = DraftMeta(
        model="m", missing=["plan: budget spent"], counts=DraftCounts(plan_failed=True)
    )
    assert problems(_empty(failed)) == ["plan: budget spent"]


def test_a_message_that_looks_like_a_plan_failure_is_not_one() -> None:
    worded = DraftMeta(model="m", missing=["plan: of the account"])
    assert problems(_empty(worded)) == ["the plan drafted no record", "plan: of the account"]


def test_the_count_is_written_only_when_the_plan_failed() -> None:
    assert "counts" not in json.loads(_empty(DraftMeta()).to_json())["meta"]
    some = DraftMeta(counts=DraftCounts(account_witnesses_dropped=2))
    assert json.loads(_empty(some).to_json())["meta"]["counts"] == {"account_witnesses_dropped": 2}
    failed = DraftMeta(counts=DraftCounts(plan_failed=True))
    back = Report.from_json(_empty(failed).to_json())
    assert back.meta is not None and back.meta.counts.plan_failed
