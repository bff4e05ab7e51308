"""The epistemic draft: CLI, runtime input, cited IDs, cell checks and the sample floor."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from drafter.cellcheck import CELL_ID_RE, check_report_tables, cited_ids, path_tokens
from drafter.cli import main
from drafter.model import AccountSection, Report, ReportType, Table
from drafter.review_export import reviewed_report
from drafter.review_store import ReviewStore
from drafter.sample import epistemic_gold_path, gold_path
from drafter.snapshot import Snapshot
from drafter.textformat import parse_report
from evals.epistemic import table_scores
from evals.evaluate import evaluate
from graph.epistemic.runtime_input import load_runtime
from graph.epistemic.tables import LEDGER_HEADER
from graph.epistemic.workflow import run_epistemic

SECTIONS = [
    "Source-and-claim boundary",
    "Coverage",
    "Epistemic-object inventory",
    "Authority-route ledger",
    "System-claim versus route comparison",
    "Bounded conclusion",
]


@pytest.fixture(scope="module")
def drafted(sample, tmp_path_factory: pytest.TempPathFactory):
    """The offline epistemic draft of the sample, built on the sample's gold runtime text."""
    data = tmp_path_factory.mktemp("data")
    return run_epistemic(str(sample.path), sample.sha, gold_path(), data_dir=data)


def test_draft_has_every_section_in_order_and_the_ledger_columns(drafted) -> None:
    report = drafted.report
    assert report.type == ReportType.epistemic
    assert [a.title for a in report.account] == SECTIONS
    ledger = report.account[3].tables[0]
    assert ledger.header == LEDGER_HEADER
    assert all(len(row) == len(LEDGER_HEADER) for row in ledger.rows)
    assert [s.title for s in report.sections] == ["Operative objects", "Routes"]
    assert report.records_of_kind("OBJ") and report.records_of_kind("RTE")
    assert all(w.verified for w in report.witnesses)
    assert drafted.problems == []


def test_draft_cites_only_runtime_records_that_exist(drafted) -> None:
    runtime_ids = {r.id for r in parse_report(gold_path().read_text()).report.records}
    own = {r.id for r in drafted.report.records}
    cited = cited_ids(drafted.report)
    assert {c for c in cited if c.startswith("RT-")}, "the draft should lean on runtime records"
    assert cited <= runtime_ids | own
    for r in drafted.report.records:
        assert r.part_of is None or r.part_of in runtime_ids


def test_accepted_records_only_with_a_review_store(sample, tmp_path: Path) -> None:
    runtime = parse_report(gold_path().read_text()).report
    accepted = [r for r in runtime.records if r.kind in ("RTE", "OBJ")][:3]
    store = tmp_path / "rt.review.sqlite"
    with ReviewStore(store) as rs:
        for r in accepted:
            rs.accept(r)
        rs.reject(runtime.record("RT-RTE-task-scoring"), "not this one")
    loaded = load_runtime(gold_path(), store)
    assert loaded.ids == {r.id for r in accepted}
    result = run_epistemic(
        str(sample.path), sample.sha, gold_path(), store=store, data_dir=tmp_path / "d"
    )
    cited = {c for c in cited_ids(result.report) if c.startswith("RT-")}
    assert cited <= loaded.ids
    assert "RT-RTE-task-scoring" not in cited


def test_cell_with_a_path_absent_at_the_revision_is_flagged(sample) -> None:
    table = Table(
        header=["Entry point or operation", "Source path", "Coverage and records", "Limit"],
        rows=[
            ["Scoring", "tinkerbot/scoring.py, tinkerbot/nowhere.py", "Supplied RT-RTE-x", "-"],
            ["Prose only", "CSV/report persistence", "Direct; EPI-RTE-ghost", "-"],
        ],
    )
    report = Report(
        system="s",
        type=ReportType.epistemic,
        account=[AccountSection(title="Coverage", blocks=[table])],
    )
    with Snapshot(sample.path, sample.sha) as snap:
        problems = check_report_tables(report, snap.exists, {"RT-RTE-x"})
    assert [(p.kind, p.value, p.row) for p in problems] == [
        ("path", "tinkerbot/nowhere.py", 1),
        ("record", "EPI-RTE-ghost", 2),
    ]
    assert "path absent at the revision" in str(problems[0])


def test_path_tokens_skip_sources_and_evidence_layers() -> None:
    assert path_tokens("SRC-1, a/b.py, c.md; doctrine/design") == ["a/b.py", "c.md"]
    assert path_tokens("see record") == []
    assert CELL_ID_RE.findall("see RT-BAP-a-b and EPI-OBJ-c") == ["RT-BAP-a-b", "EPI-OBJ-c"]


def test_sample_epistemic_gold_is_complete_and_verifies(sample) -> None:
    text = epistemic_gold_path().read_text()
    gold = parse_report(text).report
    assert gold.type == ReportType.epistemic
    assert len(gold.records_of_kind("OBJ")) >= 4 and len(gold.records_of_kind("RTE")) >= 4
    assert [a.title for a in gold.account] == SECTIONS
    assert len(gold.tables) == 4
    from drafter.textformat import render_text
    from drafter.verify import report_summary, verify_report

    assert render_text(gold) == text
    with Snapshot(sample.path, sample.sha) as snap:
        s = report_summary(verify_report(gold, snap))
        runtime_ids = {r.id for r in parse_report(gold_path().read_text()).report.records}
        assert check_report_tables(gold, snap.exists, runtime_ids) == []
    assert s.total >= 16 and s.verified == s.total


def test_sample_floor_for_the_epistemic_draft(sample, drafted) -> None:
    gold = parse_report(epistemic_gold_path().read_text()).report
    with Snapshot(sample.path, sample.sha) as snap:
        card = evaluate(gold, drafted.report, snap, similarity="lexical")
    kinds = card.kinds
    # floors under today's figures (OBJ R 0.75, RTE R 1.00 with embeddings)
    assert kinds["EPI-RTE"].recall >= 0.8
    assert kinds["EPI-OBJ"].recall >= 0.5
    assert card.overall.line_recall >= 0.3
    tables = {t.name: t for t in table_scores(gold, drafted.report, card.alignment)}
    assert tables["coverage paths"].recall >= 0.6
    assert tables["ledger rows"].recall >= 0.5
    assert tables["inventory rows"].recall >= 0.5


def test_cli_epistemic_draft_and_bad_inputs(sample, tmp_path: Path, capsys) -> None:
    out = tmp_path / "epi.json"
    args = ["draft", str(sample.path), "--rev", sample.sha, "--type", "epistemic"]
    code = main([*args, "--runtime", str(gold_path()), "--out", str(out)])
    cap = capsys.readouterr()
    assert code == 0, cap.err + cap.out
    report = Report.from_json(out.read_text())
    assert report.meta and report.meta.generator == "offline-epistemic"
    assert main([*args, "--out", str(out)]) == 2
    assert "--runtime" in capsys.readouterr().err
    # an epistemic report is not a runtime input
    assert main([*args, "--runtime", str(epistemic_gold_path()), "--out", str(out)]) == 2
    assert re.search(r"needs a runtime report", capsys.readouterr().err)


def test_review_export_keeps_the_tables_and_accepted_records(drafted, tmp_path: Path) -> None:
    report = drafted.report
    first = report.records[0]
    with ReviewStore(tmp_path / "epi.review.sqlite") as rs:
        rs.accept(first)
        accepted = reviewed_report(rs, report)
    assert [r.id for r in accepted.records] == [first.id]
    assert [t.header for t in accepted.tables] == [t.header for t in report.tables]
    from drafter.textformat import render_text

    again = parse_report(render_text(accepted)).report
    assert len(again.tables) == 4 and again.record(first.id) is not None
