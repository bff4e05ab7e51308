"""Inputs of another system or revision are refused in one line naming both (exit 2),
or warned with --allow-mismatch: eval of a gold and a draft, an epistemic draft on a
runtime draft, and verify --runtime."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from drafter.cli import main
from drafter.model import Paragraph, Report, ReportType
from drafter.provenance import mismatch, revisions
from drafter.sample import SampleRepo

OTHER = "21cb8d2525bcedf1f4b6890b27a74a14fe7451e4"


@pytest.fixture(scope="module")
def drafts(sample: SampleRepo, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The sample's offline draft, and the same draft as if of another system."""
    root = tmp_path_factory.mktemp("mm")
    own = root / "own.json"
    args = ["draft", str(sample.path), "--rev", sample.sha, "--offline", "--no-index"]
    assert main([*args, "--out", str(own)]) == 0
    data = json.loads(own.read_text())
    data["system"], data["source"]["revision"] = "gemini-cli", OTHER
    other = root / "other.json"
    other.write_text(json.dumps(data))
    return own, other


def _one_line_2(code: int, err: str, *names: str) -> None:
    assert code == 2, err
    assert err.count("\n") == 1 and "not the same system and revision" in err
    assert all(n in err for n in names), err


def test_eval_of_a_draft_of_another_system_is_refused(sample: SampleRepo, drafts, capsys) -> None:
    own, other = drafts
    code = main(["eval", "--gold", str(own), "--draft", str(other), "--similarity", "lexical"])
    _one_line_2(code, capsys.readouterr().err, "gemini-cli", OTHER[:12], "tinkerbot")
    code = main(["eval", "--gold", str(own), "--draft", str(other), "--similarity", "lexical",
                 "--allow-mismatch", "--json", "--rev", sample.sha])  # fmt: skip
    captured = capsys.readouterr()
    assert code == 0 and "warning:" in captured.err and "gemini-cli" in captured.err


def test_epistemic_draft_on_a_runtime_of_another_system_is_refused(
    sample: SampleRepo, drafts, tmp_path: Path, capsys
) -> None:
    own, other = drafts
    base = ["draft", str(sample.path), "--rev", sample.sha, "--type", "epistemic", "--no-index"]
    code = main([*base, "--runtime", str(other), "--out", str(tmp_path / "e.json")])
    _one_line_2(code, capsys.readouterr().err, "gemini-cli", OTHER[:12], sample.sha[:12])
    assert not (tmp_path / "e.json").exists()
    assert main([*base, "--runtime", str(own), "--out", str(tmp_path / "e.json")]) == 0
    capsys.readouterr()
    code = main(["verify", str(tmp_path / "e.json"), "--runtime", str(other)])
    _one_line_2(code, capsys.readouterr().err, "gemini-cli", OTHER[:12])
    assert main(["verify", str(tmp_path / "e.json"), "--runtime", str(own)]) == 0


def test_revision_stated_in_an_account_counts_and_unknown_decides_nothing() -> None:
    text = f"All findings use SRC-1, the repository x/y at revision {OTHER}."
    gold = Report(system="Y", type=ReportType.runtime)
    assert revisions(gold) == set()
    gold.account = [
        __import__("drafter.model", fromlist=["AccountSection"]).AccountSection(
            title="Runtime account", blocks=[Paragraph(text=text)]
        )
    ]
    assert revisions(gold) == {OTHER}
    same = Report(system="y", type=ReportType.runtime)
    assert mismatch(("gold", gold), ("draft", same)) is None  # the draft states none
    assert mismatch(("gold", gold), ("draft", None), pinned=OTHER[:7]) is None  # a prefix
    found = mismatch(("gold", gold), ("draft", None), pinned="d88fdd6")
    assert found is not None and "d88fdd6" in found.line()


def test_verify_of_a_report_text_reads_the_revision_its_account_states(
    sample: SampleRepo, drafts, tmp_path: Path, capsys
) -> None:
    from drafter.reportio import load_report, save_report

    own, _ = drafts
    report = load_report(own)
    report.source = None
    stated = f"SRC-1 is the repository tinkerbot at revision {sample.sha}."
    report.account[0].blocks.insert(0, Paragraph(text=stated))
    text = tmp_path / "gold.txt"
    save_report(report, text, "text")
    code = main(["verify", str(text), "--repo", str(sample.path)])
    out = capsys.readouterr()
    assert code == 0, out.err
