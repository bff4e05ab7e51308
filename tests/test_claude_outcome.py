"""System name, the cost estimate and the outcome rules of a Claude draft."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitrepo import commit, git

from drafter.model import (
    KIND_SECTION,
    DraftMeta,
    Flag,
    FlagKind,
    Paragraph,
    Record,
    RecordSection,
    Report,
    ReportType,
    Source,
    Verification,
    VerifyStatus,
    Witness,
    WitnessBlock,
)
from drafter.sample import SampleRepo
from graph.estimate import estimate
from graph.outcome import problems, witness_counts
from graph.proposers.claude import ToolBudgets
from graph.system_name import name_from_folder, system_name


@pytest.mark.parametrize(
    ("folder", "name"),
    [
        ("x/owner+HyperAgents/repo", "HyperAgents"),
        ("x/tinkerbot.git", "tinkerbot"),
        ("x/mybot", "mybot"),
        ("x/looper/repository", "looper"),
        ("x/looper/.git", "looper"),
    ],
)
def test_system_name_from_folders(tmp_path: Path, folder: str, name: str) -> None:
    assert name_from_folder(tmp_path / folder) == name


def test_system_name_prefers_the_origin_url(tmp_path: Path) -> None:
    repo = tmp_path / "deep" / "repo"
    commit(repo, {"a": "1"})
    assert system_name(str(repo / ".git")) == "deep"
    git(repo, "remote", "add", "origin", "https://github.com/acme/rocket-agent.git")
    assert system_name(str(repo / ".git")) == "rocket-agent"


def test_estimate_grows_with_budgets_and_records() -> None:
    small = estimate("claude-sonnet-5-5", 100_000, 10, ToolBudgets(record=4))
    big = estimate("claude-sonnet-5-5", 100_000, 40, ToolBudgets())
    assert small.records == (5, 10) and big.records == (20, 40)
    assert small.usd[0] < small.usd[1] < big.usd[1] and big.usd[0] < big.usd[1]
    assert big.high.cache_read > big.high.cache_write > big.high.output  # cached loops
    opus = estimate("claude-opus-4-5", 100_000, 40, ToolBudgets())
    assert opus.usd[1] > big.usd[1]
    assert "$" in big.line(15.0) and "--max-cost $15.00" in big.line(15.0)


def _w(quote: str, ok: bool) -> WitnessBlock:
    status = VerifyStatus.verified if ok else VerifyStatus.not_found
    v = Verification(status=status, revision="0" * 40)
    return WitnessBlock(witness=Witness(quote=quote, path="a.py", verification=v))


def _with_records(records: list[Record], missing: list[str]) -> Report:
    sections = [RecordSection(title=KIND_SECTION["CMP"], records=records)]
    return Report(
        system="s",
        type=ReportType.runtime,
        source=Source(repository="r", revision="0" * 40),
        sections=sections,
        meta=DraftMeta(generator="claude", model="claude-sonnet-4-5", missing=missing),
    )


def test_outcome_counts_and_exit_rule() -> None:
    good = Record(id="RT-CMP-a", label="a", blocks=[Paragraph(text="x"), _w("q", True)])
    bare = Record(
        id="RT-CMP-b",
        label="b",
        blocks=[Paragraph(text="y")],
        flags=[
            Flag(
                kind=FlagKind.witness_dropped,
                text="witness dropped (not_found after 2 repair round(s)): 'z' --- a.py",
            )
        ],
    )
    assert problems(_with_records([good], [])) == []
    report = _with_records([good, bare], ["RT-CMP-c (c): dropped, never called submit_record"])
    rows = dict((s, (p, k, d)) for s, p, k, d in witness_counts(report))
    assert rows["Components"] == (2, 1, 1)
    gaps = problems(report)
    assert "RT-CMP-b kept no verified witness" in gaps and any("RT-CMP-c" in g for g in gaps)
    assert problems(_with_records([], [])) == ["the plan drafted no record"]


def test_draft_estimate_prices_the_shared_block_that_is_sent(sample: SampleRepo) -> None:
    """The CLI's estimate measures the very block a run caches (the survey map), so a
    smaller block shows at once in the printed range."""
    from graph.cli import draft_estimate
    from graph.configuration import Configuration
    from graph.proposers.agent.prompts import shared_context
    from graph.resources import Resources

    config = Configuration(generator="claude")
    res = Resources(repo=str(sample.path), rev=sample.sha, use_index=False)
    try:
        snap = res.snapshot()
        text = shared_context("tinkerbot", snap.identity, snap.sha, snap.files(), res.survey())
        got = draft_estimate(config, res, "tinkerbot")
    finally:
        res.close()
    budgets = ToolBudgets(
        plan=config.plan_tool_calls,
        record=config.record_tool_calls,
        repair=config.repair_tool_calls,
        account=config.account_tool_calls,
    )
    want = estimate(config.model, len(text), config.max_records, budgets, config.repair_rounds)
    assert got.usd == want.usd
    bigger = estimate(config.model, len(text) + 100_000, config.max_records, budgets)
    assert bigger.usd[0] > got.usd[0]
