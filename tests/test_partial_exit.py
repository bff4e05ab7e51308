"""A draft that says "partial draft" exits 1, offline as with a model: the message and
the exit come from one list of gaps (graph.outcome.problems)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from drafter.cli import main
from drafter.sample import SampleRepo
from graph.proposers.offline import OfflineProposer


def test_an_offline_draft_with_a_dropped_plan_item_is_partial_and_exits_1(
    sample: SampleRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    real = OfflineProposer.draft_record
    dropped: list[str] = []

    def first_finds_nothing(self, ctx):  # type: ignore[no-untyped-def]
        # what the offline rules do when a planned file gives no deciding line
        if not dropped:
            dropped.append(ctx.item.id)
            return None
        return real(self, ctx)

    monkeypatch.setattr(OfflineProposer, "draft_record", first_finds_nothing)
    out = tmp_path / "d.json"
    args = ["draft", str(sample.path), "--rev", sample.sha, "--offline", "--no-index"]
    code = main([*args, "--out", str(out), "--data-dir", str(tmp_path / "data")])
    text = capsys.readouterr().out
    assert out.is_file()  # written all the same
    assert code == 1, text
    assert re.search(r"partial draft \(\d+ gap\(s\)\); exit 1", text) and dropped[0] in text
    assert text.count("partial draft") == 1  # said once, not twice


def test_a_complete_offline_draft_still_exits_0(
    sample: SampleRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "d.json"
    args = ["draft", str(sample.path), "--rev", sample.sha, "--offline", "--no-index"]
    code = main([*args, "--out", str(out), "--data-dir", str(tmp_path / "data")])
    text = capsys.readouterr().out
    assert code == 0, text
    assert "partial draft" not in text


def test_a_missing_plan_item_alone_makes_an_offline_draft_partial(
    sample: SampleRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import click

    from drafter.console import out_console
    from drafter.reportio import load_report
    from graph.cli import _outcome

    out = tmp_path / "d.json"
    args = ["draft", str(sample.path), "--rev", sample.sha, "--offline", "--no-index"]
    assert main([*args, "--out", str(out), "--data-dir", str(tmp_path / "data")]) == 0
    report = load_report(out)
    assert report.meta is not None and not report.dangling()
    report.meta.missing = ["RT-OBJ-x (Scores in x.py): dropped, the proposer returned nothing"]
    capsys.readouterr()
    with pytest.raises(click.exceptions.Exit) as info:
        _outcome(out_console(), report)
    assert info.value.exit_code == 1
    assert "RT-OBJ-x" in capsys.readouterr().out
