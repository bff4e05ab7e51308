"""``drafter survey`` reads the survey cache a draft (or an earlier survey) filled, and
prints its summary first; the table of findings follows to a pipe, and on a terminal
only with ``--all``."""

from __future__ import annotations

from pathlib import Path

import pytest

from drafter.cli import main
from drafter.sample import SampleRepo


def _survey(sample: SampleRepo, *extra: str) -> list[str]:
    return ["survey", str(sample.path), "--rev", sample.sha, *extra]


def test_a_second_survey_comes_from_the_cache(
    sample: SampleRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    data = tmp_path / "data"
    assert main([*_survey(sample), "--data-dir", str(data)]) == 0
    first = capsys.readouterr().out
    assert list((data / "surveys").glob("*.json"))

    def no_second_survey(*_a: object, **_k: object) -> None:
        raise AssertionError("surveyed again instead of reading the cache")

    monkeypatch.setattr("retrieval.survey.cache.run_survey", no_second_survey)
    assert main([*_survey(sample), "--data-dir", str(data)]) == 0
    assert capsys.readouterr().out == first


def test_summary_first_then_the_table_to_a_pipe(
    sample: SampleRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_survey(sample)) == 0
    out = capsys.readouterr().out
    assert out.startswith("survey of ") and "findings (" in out.splitlines()[0]
    assert "Survey of " in out and out.index("survey of ") < out.index("Survey of ")


def test_on_a_terminal_the_table_needs_all(
    sample: SampleRepo, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")  # as on a real terminal
    assert main(_survey(sample)) == 0
    out = capsys.readouterr().out
    assert "survey of " in out and "Survey of " not in out and "--all prints them" in out
    assert main(_survey(sample, "--all")) == 0
    assert "Survey of " in capsys.readouterr().out
