"""Output to a pipe or a file: wide tables, record IDs whole, and honest help.

Rich assumes 80 columns when stdout is not a terminal, so ``drafter reverify … | less``
squeezed its tables and split record IDs over two lines, and ``drafter verify`` cut
them to 28 characters.  A cut or split ID names no record: searching the output for
it finds nothing.  Piped output is now 200 columns (``$COLUMNS`` wins) and ID columns
never wrap or cut.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes import make_record, make_report
from gitrepo import commit

from drafter.cli import main
from drafter.model import Source
from drafter.reportio import save_report

LONG_ID = "RT-BAP-prompt-to-anthropic-client-model-of-the-outer-loop"


@pytest.fixture
def moved_draft(tmp_path: Path) -> tuple[Path, Path, str]:
    repo = tmp_path / "repo"
    old = commit(repo, {"a.py": "def f():\n    call_the_model_with_the_prompt()\n"}, "v1")
    new = commit(repo, {"a.py": "# header\n\ndef f():\n    call_the_model_with_the_prompt()\n"})
    rec = make_record(LONG_ID, "long", "Consumer: the model at a.py:2.",
                      [("call_the_model_with_the_prompt()", "a.py")])  # fmt: skip
    draft = tmp_path / "d.json"
    save_report(make_report([rec], source=Source(repository="r", revision=old)), draft)
    return draft, repo, new


@pytest.fixture(autouse=True)
def _no_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)


def test_verify_keeps_record_ids_whole(moved_draft, capsys) -> None:  # type: ignore[no-untyped-def]
    draft, repo, _ = moved_draft
    assert main(["verify", str(draft), "--repo", str(repo)]) == 0
    out = capsys.readouterr().out
    assert any(LONG_ID in line for line in out.splitlines()), out


def test_reverify_tables_are_wide_and_keep_ids_whole(moved_draft, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    draft, repo, new = moved_draft
    code = main(["reverify", str(draft), "--rev", new, "--repo", str(repo),
                 "--store", str(tmp_path / "s.sqlite")])  # fmt: skip
    assert code == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [line for line in lines if LONG_ID in line]
    assert len(rows) == 2, "\n".join(lines)  # the moved witness and the moved reference
    assert max(len(line) for line in lines) > 80


def test_columns_still_wins(moved_draft, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    draft, repo, _ = moved_draft
    monkeypatch.setenv("COLUMNS", "100")
    assert main(["verify", str(draft), "--repo", str(repo)]) == 0
    assert max(len(line) for line in capsys.readouterr().out.splitlines()) <= 100


def test_draft_help_says_out_is_required(capsys) -> None:
    assert main(["draft", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "Draft JSON to write. Required, except with --estimate" in text
