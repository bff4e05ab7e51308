"""Export everything the analyst wrote: draft -> review -> export -> verify.

The draft is the offline drafter's real output for the shipped sample; decisions go in
through ``drafter review --decisions`` (the same store the app writes); each export
format is read back and verified with ``drafter verify``, which must print no warning.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from review_material import sample_draft

from drafter.cli import main
from drafter.model import Paragraph, Report
from drafter.reportio import load_report
from drafter.review_export import NO_ABSENCES, prune_text

NOTE = "the entry chain skips the plugin loader; redo from cli.py"


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    base = tmp_path_factory.mktemp("export")
    draft, repo, broken = sample_draft(base)
    report = Report.from_json(draft.read_text())
    edited = next(r for r in report.records if r.kind == "OBJ" and r.id != broken)
    decisions = [{"record": broken, "action": "reject", "reason": NOTE}]
    decisions.append(
        {"record": edited.id, "action": "edit", "field": "Label", "value": "Renamed object"}
    )
    decisions.append({"record": edited.id, "action": "annotate", "text": "label was too vague"})
    decisions += [{"record": r.id, "action": "accept"} for r in report.records if r.id != broken]
    dfile = base / "decisions.jsonl"
    dfile.write_text("\n".join(json.dumps(d) for d in decisions) + "\n")
    store = base / "s.sqlite"
    args = ["review", str(draft), "--repo", str(repo), "--store", str(store)]
    assert main([*args, "--decisions", str(dfile)]) == 0
    outs = {}
    for fmt, suffix in (("text", ".txt"), ("markdown", ".md"), ("json", ".json")):
        out = base / f"export{suffix}"
        assert main([*args, "--export", str(out), "--format", fmt]) == 0
        outs[fmt] = out
    return {"draft": report, "repo": repo, "broken": broken, "edited": edited.id, "outs": outs}


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_export_verifies_with_no_warning(exported, fmt: str, capsys) -> None:  # type: ignore[no-untyped-def]
    out = exported["outs"][fmt]
    capsys.readouterr()
    assert main(["verify", str(out), "--repo", str(exported["repo"])]) == 0
    err = capsys.readouterr().err
    assert "warning" not in err, err


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_export_carries_notes_reasons_and_edits(exported, fmt: str) -> None:  # type: ignore[no-untyped-def]
    got = load_report(exported["outs"][fmt])
    broken, edited = exported["broken"], exported["edited"]
    assert got.annotations is not None
    assert not got.annotations.startswith("none")
    assert NOTE in got.annotations
    assert f"{broken} (rejected)" in got.annotations
    assert "label was too vague" in got.annotations
    assert "edited Label (was" in got.annotations
    assert got.record(broken) is None
    assert got.record(edited) is not None and got.record(edited).label == "Renamed object"  # type: ignore[union-attr]
    # the account no longer names the rejected record
    account_text = " ".join(
        b.text for a in got.account for b in a.blocks if isinstance(b, Paragraph)
    )
    assert broken not in account_text
    draft_account = " ".join(
        b.text for a in exported["draft"].account for b in a.blocks if isinstance(b, Paragraph)
    )
    if broken in draft_account:
        assert "of the account naming records not accepted" in got.annotations


def test_markdown_export_has_the_annotations(exported) -> None:  # type: ignore[no-untyped-def]
    md = exported["outs"]["markdown"].read_text()
    ann = md.split("## Annotations", 1)[1]
    assert "plugin loader" in ann and "Renamed object" not in ann.split("edited")[0]


def test_empty_sections_are_written_as_the_format_writes_them(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    draft, repo, _ = sample_draft(tmp_path)
    report = Report.from_json(draft.read_text())
    dfile = tmp_path / "d.jsonl"
    claims = [r for r in report.records if r.kind != "CLM"]
    dfile.write_text(
        "\n".join(json.dumps({"record": r.id, "action": "reject", "reason": "no"}) for r in claims)
    )
    out = tmp_path / "only-claims.txt"
    args = ["review", str(draft), "--repo", str(repo), "--store", str(tmp_path / "s.sqlite")]
    assert main([*args, "--decisions", str(dfile)]) == 0
    assert main([*args, "--export", str(out)]) == 0
    text = out.read_text()
    assert "none accepted in review" not in text
    assert f"Evidenced absences\n\n{NO_ABSENCES}\n" in text
    assert "Components\n\nOperative objects\n" in text  # a title alone, no stray text
    capsys.readouterr()
    # nothing accepted has a witness that does not verify: exit 0, and no warning
    main(["verify", str(out), "--repo", str(repo)])
    assert "warning" not in capsys.readouterr().err


def test_prune_text_drops_only_sentences_naming_the_ids() -> None:
    text = "A calls RT-RTE-a. Then B runs (SRC-1, x.py; RT-RTE-b). RT-RTE-ab is kept."
    got, n = prune_text(text, {"RT-RTE-a", "RT-RTE-b"})
    assert n == 2 and got == "RT-RTE-ab is kept."
