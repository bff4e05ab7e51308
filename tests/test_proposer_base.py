"""The proposer contract as declared on RuntimeProposer: a subclass that overrides only the
four calls and the members it differs on runs through the real workflow; the run hands
it its handles once through ``start``; the factory says which proposer runs and why."""

from __future__ import annotations

import pytest

from drafter.ids import slug
from drafter.model import AccountSection, Paragraph, Record, Witness, WitnessBlock
from drafter.sample import SampleRepo
from graph.configuration import Configuration
from graph.proposer import (
    AccountContext,
    Miss,
    Plan,
    PlanContext,
    PlanItem,
    RecordContext,
    RunHandles,
    RuntimeProposer,
)
from graph.proposers.factory import OFFLINE_NOTICE, choose
from graph.resources import Resources
from graph.runner import run_draft
from retrieval.survey import Survey


class EntryPoints(RuntimeProposer):
    """The README's example, completed: one CMP record per entry point, quoting the
    first line of the finding's snippet."""

    name = "entry-points"
    wants_chunks = False

    def __init__(self) -> None:
        self.starts: list[RunHandles] = []
        self.surveys: list[object] = []
        self.chunks: list[int] = []

    def start(self, run: RunHandles) -> None:
        self.starts.append(run)

    def plan(self, ctx: PlanContext) -> Plan:
        self.surveys.append(ctx.survey)
        found = ctx.survey.by_category("entry_point") if ctx.survey else []
        items = [
            PlanItem(
                id=f"RT-CMP-{slug(f.path, f.symbol)}",
                kind="CMP",
                label=f.symbol,
                files=[f.path],
                facts=[f.id],
            )
            for f in found[:3]
        ]
        return Plan(system=ctx.system, items=items)

    def draft_record(self, ctx: RecordContext) -> Record | None:
        self.chunks.append(len(ctx.chunks))
        f = ctx.findings[0]
        quote = f.snippet.splitlines()[0].strip()
        return Record(
            id=ctx.item.id,
            label=ctx.item.label,
            blocks=[
                Paragraph(text=f"Entry point {f.symbol}."),
                WitnessBlock(witness=Witness(path=f.path, quote=quote)),
            ],
        )

    def repair_record(
        self, ctx: RecordContext, record: Record, misses: list[Miss]
    ) -> Record | None:
        return None

    def account(self, ctx: AccountContext) -> list[AccountSection]:
        return []


@pytest.fixture(scope="module")
def entry_run(sample: SampleRepo, tmp_path_factory: pytest.TempPathFactory):
    made: list[EntryPoints] = []

    def factory(config: Configuration, resources: Resources) -> EntryPoints:
        made.append(EntryPoints())
        return made[-1]

    result = run_draft(
        str(sample.path),
        sample.sha,
        Configuration(generator="offline"),
        factory,
        data_dir=tmp_path_factory.mktemp("data"),
        system="tinkerbot",
    )
    return sample, result, made[-1]


def test_start_hook_receives_the_runs_handles_once(entry_run) -> None:
    sample, result, prop = entry_run
    assert len(prop.starts) == 1
    run = prop.starts[0]
    assert isinstance(run.resources, Resources) and run.resources.rev == sample.sha
    assert run.journal is not None  # the runtime workflow always keeps a call journal
    assert run.journal.path == result.checkpoint.with_suffix(".calls.sqlite")


def test_a_minimal_subclass_drafts_verified_records(entry_run) -> None:
    _, result, prop = entry_run
    assert all(isinstance(s, Survey) for s in prop.surveys)  # typed, not an opaque value
    report = result.report
    assert report is not None and report.meta is not None
    assert report.meta.generator == "entry-points"
    assert report.records and all(r.kind == "CMP" for r in report.records)
    assert all(w.verified for w in report.witnesses)
    # wants_chunks = False: no record's context carries search hits
    assert prop.chunks and set(prop.chunks) == {0}


def test_factory_says_why_and_prints_nothing_itself(monkeypatch, capsys) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    got = choose(False)
    assert got.generator == "offline" and got.notice == OFFLINE_NOTICE
    assert choose(True).notice is None and choose(True).why == "--offline"
    assert choose(False, keyless=True).generator == "claude"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    assert choose(False) == choose(False) and choose(False).generator == "claude"
    assert capsys.readouterr().err == ""
