"""A whole draft of the shipped sample through the graph with the real anthropic SDK
over a mock transport serving scripted Messages API answers."""

from __future__ import annotations

from pathlib import Path

import pytest
from claude_scenario import BAD_RUN_TASK_1, GOOD_RUN_TASK, NEVER, SANDBOX, script_sample
from fakes import MODEL, FakeAPI

from drafter.model import FlagKind, VerifyStatus
from graph.costs import price_for
from graph.proposers.agent.tools import TOOL_NAMES
from graph.runner import RunResult


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One data dir for the module, so the sample is indexed once."""
    return tmp_path_factory.mktemp("data")


def run_claude(sample, data_dir: Path, fake: FakeAPI, **cfg) -> RunResult:
    result = fake.draft(
        sample.path, sample.sha, data_dir, {"concurrency": 3, **cfg}, system="tinkerbot"
    )
    result.proposer = fake.last_proposer  # type: ignore[attr-defined]
    return result


@pytest.fixture(scope="module")
def full_run(sample, index_dir):
    fake = FakeAPI()
    script_sample(fake)
    return fake, run_claude(sample, index_dir, fake)


def test_every_kept_witness_verifies(full_run) -> None:
    _, result = full_run
    report = result.report
    assert report is not None
    assert report.witnesses, "the draft has witnesses"
    assert all(
        w.verification and w.verification.status == VerifyStatus.verified for w in report.witnesses
    )
    assert report.source.revision == result.state["sha"]
    assert [r.id for r in report.records] == [
        "RT-CMP-claude",
        "RT-OBJ-run-log",
        "RT-RTE-run-task",
        "RT-CLM-sandbox",
        "RT-BAP-system-prompt",
    ]


def test_wrong_quote_repaired_in_second_round(full_run) -> None:
    fake, result = full_run
    rec = result.report.record("RT-RTE-run-task")
    quotes = [w.quote for w in rec.witnesses]
    assert GOOD_RUN_TASK in quotes and BAD_RUN_TASK_1 not in quotes
    assert len(fake.calls("repair:RT-RTE-run-task")) == 2
    # the second repair request carried the verifier's nearest real passage
    second = fake.calls("repair:RT-RTE-run-task")[1]
    texts = " ".join(b["text"] for b in second["messages"][0]["content"])
    assert "Nearest real passages" in texts and GOOD_RUN_TASK in texts
    assert not rec.flags


def test_unrepairable_quote_dropped_and_record_flagged(full_run) -> None:
    fake, result = full_run
    rec = result.report.record("RT-CLM-sandbox")
    assert [w.quote for w in rec.witnesses] == [SANDBOX]
    assert any(NEVER in f.text for f in rec.flags_of(FlagKind.witness_dropped))
    assert len(fake.calls("repair:RT-CLM-sandbox")) == 2  # at most N=2 rounds


def test_schema_invalid_gets_one_corrective_retry(full_run) -> None:
    fake, result = full_run
    retry = fake.calls("record:RT-BAP-system-prompt+retry")
    assert len(retry) == 1
    turn = retry[0]["messages"][2]["content"][0]
    assert turn["type"] == "tool_result" and turn["is_error"] is True and "path" in turn["content"]
    assert result.report.record("RT-BAP-system-prompt").witnesses
    # twice invalid: dropped with the reason
    assert result.report.record("RT-CMP-mystery") is None
    assert len(fake.calls("record:RT-CMP-mystery+retry")) == 1
    missing = result.report.meta.missing
    assert any(m.startswith("RT-CMP-mystery") and "schema-invalid" in m for m in missing)
    assert "../../etc/passwd" in " ".join(result.report.meta.notes)


def test_overloaded_and_rate_limited_calls_were_retried(full_run) -> None:
    fake, result = full_run
    assert len(fake.calls("record:RT-CMP-claude")) == 2  # 529, then success
    assert len(fake.calls("record:RT-OBJ-run-log")) == 2  # 429, then success
    assert 0.01 in result.proposer.retry.waits  # retry-after honoured
    assert result.report.record("RT-CMP-claude").witnesses[0].verified


def test_account_references_records_and_drops_false_quote(full_run) -> None:
    _, result = full_run
    acc = result.report.account[0]
    assert [w.quote for w in acc.witnesses] == ["MAX_TURNS = 8"]
    assert any("MAX_TURNS = 800" in n for n in result.report.meta.notes)


def test_cache_control_on_shared_blocks(full_run) -> None:
    fake, _ = full_run
    by_kind = {
        (b["tools"][-1]["name"] == "submit_record", b["system"][1]["text"]) for b in fake.log
    }
    # the planner and the account share one map, every record conversation a shorter one
    assert len(by_kind) == 2 and {r for r, _ in by_kind} == {True, False}
    shared = {t for r, t in by_kind if not r}
    (brief,) = {t for r, t in by_kind if r}
    assert len(brief) < len(next(iter(shared)))
    for body in fake.log:
        assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
        # the model may investigate: every tool is offered, the conversation's own
        # submit tool last, and it must call one of them
        names = [t["name"] for t in body["tools"]]
        assert names[:7] == list(TOOL_NAMES) and names[-1].startswith("submit_")
        assert body["tool_choice"] == {"type": "any"}
        assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
        assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
        assert "$ref" not in str([t["input_schema"] for t in body["tools"]])
    text = shared.pop()  # the cached map: survey summary and the pointer to the survey tool
    assert "survey_summary" in text and "`survey(category=...)`" in text


def test_cost_totals_equal_canned_usage(full_run) -> None:
    fake, result = full_run
    meta = result.report.meta
    assert meta.generator == "claude" and meta.model == MODEL
    served = fake.served
    assert sum(u.calls for u in meta.usage) == len(served)
    for field in (
        "input_tokens",
        "output_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
    ):
        assert sum(getattr(u, field) for u in meta.usage) == sum(s.get(field, 0) for s in served)
    p = price_for(MODEL)
    expected = sum(
        (
            s["input_tokens"] * p.input
            + s["output_tokens"] * p.output
            + s.get("cache_creation_input_tokens", 0) * p.cache_write
            + s.get("cache_read_input_tokens", 0) * p.cache_read
        )
        / 1e6
        for s in served
    )
    assert sum(u.cost_usd for u in meta.usage) == pytest.approx(expected)
    assert {u.node for u in meta.usage} == {"plan", "draft_record", "repair", "account"}
    repair = next(u for u in meta.usage if u.node == "repair")
    assert repair.calls == 4


def test_max_cost_stops_with_partial_draft(sample, index_dir) -> None:
    fake = FakeAPI()
    script_sample(fake)
    result = run_claude(sample, index_dir, fake, max_cost=0.0001, concurrency=1)
    report = result.report
    assert report is not None
    assert len(fake.log) == 1  # the plan spent the budget; nothing else was asked
    assert report.records == []
    missing = " ".join(report.meta.missing)
    assert "RT-CMP-claude" in missing and "budget" in missing and "runtime account" in missing
