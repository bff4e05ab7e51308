"""The text format on the two real gold reports: counts, round trip, exact rendering."""

from __future__ import annotations

from pathlib import Path

import pytest

from drafter.model import Bullet, Heading, NumberedItem, Report, ReportType, Table
from drafter.textformat import parse_report, render_markdown, render_text

RUNTIME = "auto-harness.runtime.txt"
EPISTEMIC = "hyperagents.epistemic.txt"


def _norm(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def runtime_text(gold_dir: Path) -> str:
    return (gold_dir / RUNTIME).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def epistemic_text(gold_dir: Path) -> str:
    return (gold_dir / EPISTEMIC).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def runtime(runtime_text: str) -> Report:
    result = parse_report(runtime_text, where=RUNTIME)
    assert result.warnings == []
    return result.report


@pytest.fixture(scope="module")
def epistemic(epistemic_text: str) -> Report:
    result = parse_report(epistemic_text, where=EPISTEMIC)
    assert result.warnings == []
    return result.report


def test_runtime_gold_counts(runtime: Report) -> None:
    assert runtime.system == "auto-harness"
    assert runtime.type == ReportType.runtime
    assert runtime.type_path == "agentic-system-analyses/types/agentic-system-runtime-report.md"
    per_section = {s.title: len(s.records) for s in runtime.sections}
    assert per_section == {
        "Components": 3,
        "Operative objects": 3,
        "Routes": 7,
        "Claims": 1,
        "Evidenced absences": 0,
        "Behavioral-authority paths": 3,
    }
    assert runtime.section("Evidenced absences").note == "none declared in this member"
    assert len(runtime.witnesses) == 22
    ranged = [w for w in runtime.witnesses if w.lines is not None]
    assert len(ranged) == 1
    assert ranged[0].path == "agent/helpers/bird_interact/bird_adk_runtime.py"
    assert (ranged[0].lines.start, ranged[0].lines.end) == (180, 207)
    assert runtime.annotations is None


def test_runtime_gold_account_structure(runtime: Report) -> None:
    [account] = runtime.account
    assert account.title == "Runtime account"
    headings = [b.text for b in account.blocks if isinstance(b, Heading)]
    assert headings == [
        "Scope and ordinary invocation",
        "Effect boundaries, authority and isolation",
        "Load-bearing guarantees and forcing cases",
    ]
    assert [b.number for b in account.blocks if isinstance(b, NumberedItem)] == [1, 2, 3, 4]
    assert len(account.witnesses) == 5
    # the three guarantees each carry two status bullets
    assert sum(isinstance(b, Bullet) for b in account.blocks) == 6


def test_runtime_gold_records_keep_fields_and_statuses(runtime: Report) -> None:
    for route in runtime.records_of_kind("RTE"):
        assert all(route.route_fields_present.values()), route.id
    rev = runtime.record("RT-RTE-candidate-revision")
    assert rev.status("implementation conclusion status") == "afforded"
    assert rev.status("theory-builder condition 3 conclusion status") == "claimed"
    assert len(rev.statuses) == 6
    instr = runtime.record("RT-OBJ-agent-instructions")
    assert instr.part_of == "RT-OBJ-agent-code"
    # a witness quoting a list item keeps its bullet as written
    assert instr.witnesses[0].quote.startswith("• When you are done")
    cmp_lead = runtime.record("RT-CMP-candidate-model").lead
    assert cmp_lead["Representational form"] == "distributed-parametric."
    bap = runtime.record("RT-BAP-history-gate").lead
    assert set(bap) == {"Consumer", "Channel", "Force", "Horizon"}


def test_epistemic_gold_counts(epistemic: Report) -> None:
    assert epistemic.system == "Hyperagents"
    assert epistemic.type == ReportType.epistemic
    assert [a.title for a in epistemic.account] == [
        "Source-and-claim boundary",
        "Coverage",
        "Epistemic-object inventory",
        "Authority-route ledger",
        "System-claim versus route comparison",
        "Bounded conclusion",
    ]
    assert {s.title: len(s.records) for s in epistemic.sections} == {
        "Operative objects": 4,
        "Routes": 4,
    }
    assert [r.id for r in epistemic.records_of_kind("OBJ")] == [
        "EPI-OBJ-predictions",
        "EPI-OBJ-report",
        "EPI-OBJ-proof-grades",
        "EPI-OBJ-outcome-reports",
    ]
    assert len(epistemic.witnesses) == 18
    assert all(w.lines is None for w in epistemic.witnesses)
    tables = {a.title: a.tables for a in epistemic.account}
    shape = {t: [(len(x.header), len(x.rows)) for x in ts] for t, ts in tables.items() if ts}
    assert shape == {
        "Coverage": [(4, 14)],
        "Epistemic-object inventory": [(5, 10)],
        "Authority-route ledger": [(17, 17)],
        "System-claim versus route comparison": [(9, 2)],
    }
    for t in epistemic.tables:
        assert all(len(row) == len(t.header) for row in t.rows)
    assert epistemic.tables[0].header[0] == "Entry point or operation"
    assert epistemic.annotations is None
    for r in epistemic.records_of_kind("RTE"):
        assert all(r.route_fields_present.values()), r.id
    assert epistemic.record("EPI-OBJ-proof-grades").part_of is None
    assert epistemic.record("EPI-OBJ-report").part_of == "RT-RTE-task-evaluation"


@pytest.mark.parametrize("name", [RUNTIME, EPISTEMIC])
def test_gold_round_trip(gold_dir: Path, name: str) -> None:
    text = (gold_dir / name).read_text(encoding="utf-8")
    first = parse_report(text).report
    rendered = render_text(first)
    assert _norm(rendered) == _norm(text)
    second = parse_report(rendered)
    assert second.warnings == []
    assert second.report == first
    # stronger than the requirement: the renderer reproduces the analysts' layout
    assert rendered == text.rstrip("\n") + "\n"
    # and the JSON form round-trips too
    assert Report.from_json(first.to_json()) == first


@pytest.mark.parametrize("name", [RUNTIME, EPISTEMIC])
def test_gold_markdown(gold_dir: Path, name: str) -> None:
    from markdown_it import MarkdownIt

    report = parse_report((gold_dir / name).read_text(encoding="utf-8")).report
    md = render_markdown(report)
    tokens = MarkdownIt("commonmark").enable("table").parse(md)
    h4 = [
        tokens[i + 1].content
        for i, t in enumerate(tokens)
        if t.type == "heading_open" and t.tag == "h4"
    ]
    assert h4 == [r.id for r in report.records]
    assert sum(t.type == "table_open" for t in tokens) == len(report.tables)
    quotes = sum(t.type == "blockquote_open" for t in tokens)
    assert quotes == len(report.witnesses)
    code = {
        t.content
        for t in tokens
        if t.type == "inline"
        for t in (t.children or [])
        if t.type == "code_inline"
    }
    assert {w.anchor for w in report.witnesses} <= code
    assert all(isinstance(b, Table) for b in report.tables)
