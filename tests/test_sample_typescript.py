"""The shipped TypeScript sample: a pinned commit, and a gold report whose witnesses
verify at it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from drafter.model import LEAD_LABELS, NINE_ROUTE_FIELDS, Report
from drafter.sample import SampleRepo
from drafter.sample.typescript import (
    TS_SAMPLE_FACTS,
    TS_SAMPLE_IDENTITY,
    TS_SAMPLE_SHA,
    materialize_typescript,
    ts_gold_path,
    ts_sample_files,
)
from drafter.snapshot import Snapshot
from drafter.textformat.parser import parse_report
from drafter.verify import report_summary, verify_report

EXPECTED_KINDS = {"CMP": 3, "OBJ": 4, "RTE": 5, "CLM": 4, "BAP": 3}
EXPECTED_WITNESSES = 40


@pytest.fixture(scope="module")
def ts_sample(tmp_path_factory: pytest.TempPathFactory) -> SampleRepo:
    return materialize_typescript(tmp_path_factory.mktemp("ts") / "repo")


@pytest.fixture(scope="module")
def gold() -> Report:
    result = parse_report(ts_gold_path().read_text(encoding="utf-8"), where="gold")
    assert result.warnings == []
    return result.report


def test_commit_is_pinned_and_reused(ts_sample: SampleRepo, tmp_path: Path) -> None:
    assert ts_sample.sha == TS_SAMPLE_SHA
    assert materialize_typescript(ts_sample.path).sha == TS_SAMPLE_SHA
    assert materialize_typescript(tmp_path / "again").sha == TS_SAMPLE_SHA
    with Snapshot(ts_sample.path, TS_SAMPLE_SHA) as snap:
        assert snap.identity == TS_SAMPLE_IDENTITY


def test_sample_is_typescript_with_a_python_side_script() -> None:
    files = ts_sample_files()
    ts = [p for p in files if p.endswith(".ts")]
    assert 10 <= len(files) <= 20 and len(ts) >= 9
    assert [p for p in files if p.endswith(".py")] == ["scripts/transcript_stats.py"]
    assert json.loads(files["package.json"])["bin"] == {"shellwright": "dist/cli.js"}
    assert any(p.endswith(".test.ts") for p in files)


def test_gold_counts(gold: Report) -> None:
    assert gold.system == "shellwright"
    assert gold.source is not None
    assert (gold.source.repository, gold.source.revision) == (TS_SAMPLE_IDENTITY, TS_SAMPLE_SHA)
    assert {k: len(gold.records_of_kind(k)) for k in EXPECTED_KINDS} == EXPECTED_KINDS
    assert len(gold.witnesses) == EXPECTED_WITNESSES


def test_every_gold_witness_verifies(gold: Report, ts_sample: SampleRepo) -> None:
    with Snapshot(ts_sample.path, TS_SAMPLE_SHA) as snap:
        checked = verify_report(gold, snap)
    misses = [(w.path, w.quote) for w in checked.witnesses if not w.verified]
    assert misses == []
    assert report_summary(checked).total == EXPECTED_WITNESSES
    spans: dict[str, list[tuple[int, int]]] = {}
    for w in checked.witnesses:
        lr = w.verification.lines
        spans.setdefault(w.path, []).append((lr.start, lr.end))
    for category, facts in TS_SAMPLE_FACTS.items():
        for path, line in facts:
            assert any(a <= line <= b for a, b in spans.get(path, [])), (category, path, line)


def test_fact_lines_hold_what_they_claim() -> None:
    files = {p: d.decode().splitlines() for p, d in ts_sample_files().items()}
    needles = {
        "entry_point": ("dist/cli.js", "#!/usr/bin/env node", "new Command", "__main__"),
        "model_call": ("messages.create",),
        "subprocess": ("spawn(",),
        "persistence": ("writeFileSync", "readFileSync", "appendFileSync", "writeFile("),
    }
    for category, facts in TS_SAMPLE_FACTS.items():
        for path, line in facts:
            text = files[path][line - 1]
            assert any(n in text for n in needles[category]), (category, path, line, text)


def test_records_carry_their_kind_fields(gold: Report) -> None:
    for rec in gold.records:
        if rec.kind in ("CMP", "OBJ", "BAP"):
            assert set(rec.lead) == set(LEAD_LABELS[rec.kind]), rec.id
        elif rec.kind == "RTE":
            assert all(rec.route_fields_present[f] for f in NINE_ROUTE_FIELDS), rec.id
        else:
            assert "Claimed operation" in rec.lead, rec.id
        assert rec.witnesses, rec.id


def test_drafter_verify_accepts_the_gold(
    ts_sample: SampleRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    from drafter.cli import main

    args = ["verify", str(ts_gold_path()), "--repo", str(ts_sample.path), "--rev", "HEAD"]
    assert main([*args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["revision"] == TS_SAMPLE_SHA and out["summary"]["ok"] is True


def test_module_entry_materialises_the_typescript_sample(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from drafter.sample.__main__ import main

    assert main([str(tmp_path / "m"), "--typescript"]) == 0
    out = capsys.readouterr().out
    assert TS_SAMPLE_SHA in out and str(ts_gold_path()) in out
