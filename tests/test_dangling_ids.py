"""A report may not cite a record it does not hold.

A dangling record ID -- a mention of an ID of the report's own shape (``RT-`` in a
runtime report, ``EPI-`` in an epistemic one) that is not one of its records -- is an
error in a draft or an export: ``drafter verify`` exits 1 naming it and ``drafter parse
--strict`` exits 1.  Reading someone else's report (``parse`` without ``--strict``, the
gold of ``drafter eval``) it is a warning.  IDs of the other prefix are cross-report
references (an epistemic report cites the runtime report it builds on): checked when
that report is known (``verify --runtime``, or the runtime IDs an epistemic draft
records), never guessed at otherwise.  Witness quotes and annotations are not
citations.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes import make_record, make_report

from drafter.cli import main
from drafter.model import DraftMeta, FlagKind, ReportType, Source
from drafter.reportio import load_report, save_report
from drafter.sample import SampleRepo, epistemic_gold_path, gold_path
from graph.nodes.assemble import _flag_dangling
from graph.outcome import problems

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")

GOLDS = ["auto-harness.runtime.txt", "hyperagents.epistemic.txt", "dgm.runtime.txt",
         "adas.runtime.txt", "adas.epistemic.txt"]  # fmt: skip


def _report(body: str, **kw: object):
    rec = make_record("RT-BAP-prompt-to-client", "Shipped instructions", body, [("x", "a.py")])
    cmp_ = make_record("RT-CMP-model", "The model", "Source-native identity: m.", [("y", "a.py")])
    return make_report([cmp_, rec], **kw)  # type: ignore[arg-type]


def test_a_cited_record_that_is_not_there_is_dangling() -> None:
    r = _report("Consumer: the model (RT-CMP-client-model). See also RT-CMP-model.")
    assert [str(d) for d in r.dangling()] == [
        "RT-BAP-prompt-to-client: cites RT-CMP-client-model, which is not a record of this report"
    ]
    assert any("RT-CMP-client-model" in w for w in r.warnings())


def test_quotes_annotations_and_punctuation_are_not_citations() -> None:
    r = _report("Consumer: the model; see RT-CMP-model-.")
    r.records[1].blocks.append(
        make_record("RT-CLM-x", "x", witnesses=[("RT-CMP-gone", "a.py")]).blocks[1]
    )
    r.annotations = "RT-CMP-rejected was rejected: wrong file."
    assert r.dangling() == []


def test_a_label_or_part_of_naming_a_missing_record_is_dangling() -> None:
    r = _report("Consumer: x.")
    r.records[1].label = "Shipped instructions to the model of RT-CMP-gone"
    r.records[1].part_of = "RT-RTE-gone"
    assert {d.id for d in r.dangling()} == {"RT-CMP-gone", "RT-RTE-gone"}


def test_cross_report_ids_are_checked_only_against_a_known_runtime() -> None:
    epi = load_report(epistemic_gold_path())
    runtime_ids = {r.id for r in load_report(gold_path()).records}
    assert epi.type == ReportType.epistemic and epi.dangling() == []
    assert epi.dangling(runtime_ids) == []
    short = runtime_ids - {"RT-RTE-agent-loop"}
    found = epi.dangling(short)
    assert found and {d.id for d in found} == {"RT-RTE-agent-loop"} and all(d.cross for d in found)
    # an epistemic draft records the runtime IDs it was built on
    epi.meta = DraftMeta(generator="offline-epistemic", extra={"runtime_ids": sorted(short)})
    assert {d.id for d in epi.dangling()} == {"RT-RTE-agent-loop"}


@pytest.mark.parametrize("name", GOLDS)
def test_shared_golds_cite_no_missing_record(gold_dir: Path, name: str, capsys) -> None:
    assert main(["parse", "--strict", str(gold_dir / name)]) == 0
    assert "cites" not in capsys.readouterr().err


def test_the_two_adas_golds_agree(gold_dir: Path) -> None:
    runtime = {r.id for r in load_report(gold_dir / "adas.runtime.txt").records}
    assert load_report(gold_dir / "adas.epistemic.txt").dangling(runtime) == []


@pytest.fixture()
def dangling_draft(sample: SampleRepo, tmp_path: Path) -> Path:
    report = load_report(gold_path())
    assert report.source is not None
    report.source = Source(repository="tinkerbot", revision=sample.sha, location=str(sample.path))
    bap = report.records_of_kind("BAP")[0]
    bap.blocks.insert(0, make_record(bap.id, "x", "Consumer: RT-CMP-vanished-model.").blocks[0])
    path = tmp_path / "d.json"
    save_report(report, path)
    return path


def test_verify_fails_on_a_dangling_id_and_names_it(dangling_draft: Path, capsys) -> None:
    assert main(["verify", str(dangling_draft)]) == 1
    out = capsys.readouterr()
    assert "cites RT-CMP-vanished-model, which is not a record of this report" in out.out
    assert "vanished" not in out.err  # said once, as the verdict


def test_verify_json_lists_dangling_ids(dangling_draft: Path, capsys) -> None:
    import json

    assert main(["verify", str(dangling_draft), "--json"]) == 1
    got = json.loads(capsys.readouterr().out)["dangling_ids"]
    assert [d["id"] for d in got] == ["RT-CMP-vanished-model"]


def test_parse_warns_and_strict_fails(dangling_draft: Path, tmp_path: Path, capsys) -> None:
    assert main(["parse", str(dangling_draft)]) == 0
    assert "cites RT-CMP-vanished-model" in capsys.readouterr().err
    assert main(["parse", "--strict", str(dangling_draft)]) == 1
    text = tmp_path / "d.txt"
    assert main(["render", str(dangling_draft), "-o", str(text), "-q"]) == 0
    capsys.readouterr()
    assert main(["parse", "--strict", str(text)]) == 1
    err = capsys.readouterr().err
    line = next(i for i, t in enumerate(text.read_text().splitlines(), 1) if "vanished" in t)
    assert f"d.txt:{line}: " in err and "RT-CMP-vanished-model" in err


def test_verify_an_epistemic_report_against_its_runtime(sample: SampleRepo, tmp_path, capsys):
    epi = str(epistemic_gold_path())
    rev = ["--repo", str(sample.path), "--rev", sample.sha]
    assert main(["verify", epi, *rev, "--runtime", str(gold_path())]) == 0
    runtime = load_report(gold_path())
    runtime.sections[2].records = runtime.sections[2].records[1:]  # drop one route
    gone = load_report(gold_path()).sections[2].records[0].id
    short = tmp_path / "rt.json"
    save_report(runtime, short)
    capsys.readouterr()
    assert main(["verify", epi, *rev, "--runtime", str(short)]) == 1
    assert (
        f"cites {gone}, which is not a record of the report it builds on" in capsys.readouterr().out
    )


def test_eval_warns_about_a_gold_that_cites_a_missing_record(
    dangling_draft: Path, sample: SampleRepo, capsys
) -> None:
    code = main(["eval", "--gold", str(dangling_draft), "--draft", str(gold_path()),
                 "--repo", str(sample.path), "--similarity", "lexical", "--no-baselines",
                 "--no-pairs"])  # fmt: skip
    assert code == 0
    assert "warning: " in capsys.readouterr().err


def test_a_draft_flags_and_fails_on_a_record_it_cites_but_does_not_hold() -> None:
    r = _report("Consumer: the model (RT-CMP-client-model).")
    flagged = _flag_dangling(r.records)
    assert [(f.kind, f.text) for f in flagged[1].flags] == [
        (
            FlagKind.dangling_citation,
            "cites RT-CMP-client-model, which is not a record of this draft",
        )
    ]
    assert flagged[0].flags == []
    assert any("RT-CMP-client-model" in p for p in problems(r))
