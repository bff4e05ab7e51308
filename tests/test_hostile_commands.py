"""Commands that landed beside issue 15 print repository, model and note text safely.

``drafter reverify`` names witness paths (repository file names) in its table,
``drafter redraft`` prints the analyst's notes back, the epistemic draft announces
lines built from model and repository text: none may let an escape sequence reach the
terminal raw or have Rich read markup in them.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from fakes import make_record, make_report
from gitrepo import commit
from hostile_material import no_raw_control
from review_material import sample_draft
from rich.console import Console

from drafter.cli import main
from drafter.model import Report, Source
from drafter.review_store import ReviewStore
from graph.cli import _announcer

PAYLOAD = "[bold red]evil \x1b]0;owned\x07 [@click=app.quit]q"
SHOWN = "[bold red]evil ⟨U+001B⟩]0;owned⟨U+0007⟩ [@click=app.quit]q"
#: A file name holding markup and an OSC title sequence (no ``/``: it is one name).
NAME = "[bold red]evil\x1b]0;t\x07.py"
NAME_SHOWN = "[bold red]evil⟨U+001B⟩]0;t⟨U+0007⟩.py"


def _unstyled(out: str) -> str:
    """Terminal output without Rich's own colour codes (SGR); anything else stays."""
    return re.sub(r"\x1b\[[0-9;]*m", "", out)


@pytest.fixture
def moved(tmp_path: Path) -> tuple[Path, str, Path]:
    """A draft whose witness, in a hostile file name, moves at the new revision."""
    repo = tmp_path / "repo"
    body = "def run():\n    return 'the quoted line'\n"
    old = commit(repo, {NAME: body}, "v1")
    new = commit(repo, {NAME: "# pushed\n# down\n" + body}, "v2")
    rec = make_record("RT-CLM-evil", "evil", witnesses=[("return 'the quoted line'", NAME)])
    source = Source(repository=str(repo), revision=old)
    report = make_report([rec], system="Tiny", source=source)
    draft = tmp_path / "old.json"
    draft.write_text(report.to_json(), encoding="utf-8")
    return repo, new, draft


@pytest.mark.parametrize("color", [True, False])
def test_reverify_table_shows_hostile_paths_as_text(moved, tmp_path, capsys, monkeypatch, color):
    if color:
        monkeypatch.setenv("FORCE_COLOR", "1")  # styled output, as on a real terminal
    monkeypatch.setenv("COLUMNS", "300")
    repo, new, draft = moved
    out = tmp_path / "new.json"
    assert main(["reverify", str(draft), "--rev", new, "--repo", str(repo), "--out", str(out)]) == 0
    printed = _unstyled(capsys.readouterr().out)
    assert no_raw_control(printed.replace("\n", ""))
    assert NAME_SHOWN in printed  # the markup is text, the escape visible


def test_epistemic_announcements_are_literal() -> None:
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=300)
    _announcer(console)(f"estimate for {PAYLOAD}")
    shown = _unstyled(buf.getvalue())
    assert no_raw_control(shown.replace("\n", ""))
    assert SHOWN in shown


def test_redraft_prints_a_hostile_note_as_text(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "300")
    draft, repo, _broken = sample_draft(tmp_path)
    report = Report.from_json(draft.read_text())
    target = next(r for r in report.records if r.kind == "OBJ")
    with ReviewStore(tmp_path / "s.sqlite") as store:
        store.reject(target, f"note {PAYLOAD}")
    out = tmp_path / "d2.json"
    args = ["redraft", str(draft), "--store", str(tmp_path / "s.sqlite"), "--repo", str(repo)]
    assert main([*args, "--offline", "--no-index", "--out", str(out)]) == 0
    printed = _unstyled(capsys.readouterr().out)
    assert no_raw_control(printed.replace("\n", ""))
    assert f"note {SHOWN}" in printed


def _eval_args_with_labels(tmp_path: Path, payload: str) -> list[str]:
    """`drafter eval` arguments for the saved sample draft with ``payload`` before every
    record label (labels are often sentences mined from the repository)."""
    import json

    from drafter.sample import gold_path, materialize

    repo = materialize(tmp_path / "sample").path
    saved = Path(__file__).parent / "data" / "eval_labels" / "sample-offline.draft.json"
    draft = json.loads(saved.read_text())
    for section in draft["sections"]:
        for rec in section["records"]:
            rec["label"] = payload + rec["label"]
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(draft))
    return ["eval", "--gold", str(gold_path()), "--draft", str(path), "--repo", str(repo)]


def test_eval_scorecard_shows_hostile_labels_as_text(tmp_path: Path, capsys) -> None:
    """Draft labels reach the eval's tables as literal text."""
    args = _eval_args_with_labels(tmp_path, "\x1b]52;c;aGk=\x07 [bold red]X[/] \x1b[2J ")
    code = main([*args, "--no-baselines", "--similarity", "lexical"])
    out = capsys.readouterr().out
    assert code == 0
    assert "⟨U+001B⟩" in out and "[bold red]X[/]" in out
    assert no_raw_control(out)


def test_eval_json_carries_no_raw_c1_or_separator(tmp_path: Path, capsys) -> None:
    """`json.dumps(ensure_ascii=False)` escapes C0 but leaves C1 (a one-byte CSI) and
    U+2028 raw; the scorecard JSON on stdout and in --out escapes them, same data."""
    import json

    payload = "\x9b2J\x9d0;t\x9c\u2028"
    args = _eval_args_with_labels(tmp_path, payload)
    out_file = tmp_path / "card.json"
    code = main(
        [*args, "--no-baselines", "--similarity", "lexical", "--json", "--out", str(out_file)]
    )
    printed = capsys.readouterr().out
    assert code == 0
    for text in (printed, out_file.read_text(encoding="utf-8")):
        assert not any(c in text for c in "\x9b\x9c\x9d\u2028")
        labels = [p["draft_label"] for p in json.loads(text)["pairs"]]
        assert labels and all(label.startswith(payload) for label in labels)
