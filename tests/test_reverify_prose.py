"""``drafter reverify``: line references in prose follow their witness, or are flagged.

A carried draft used to keep "The route starts at prepare.py:178" where the quote had
moved to line 448.  Here a two-commit repository moves one quote down, deletes another
and moves an unquoted line; the prose that names those lines is rewritten (moved),
flagged (stale) or left alone (unchanged, or not a line reference at all).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes import make_record, make_report
from gitrepo import commit

from drafter.cli import main
from drafter.model import (
    AccountSection,
    Flag,
    FlagKind,
    LineRange,
    Paragraph,
    Report,
    Source,
    Witness,
)
from drafter.prose_refs import RefCase
from drafter.reportio import load_report, save_report
from drafter.reverify import STALE_REF_FLAG, reanchor
from drafter.review_store import Mark, ReviewStore
from drafter.snapshot import Snapshot

OLD = {
    "prepare.py": "import os\n\n\ndef main():\n    run_baseline_for_everyone()\n",
    "gate.py": "def gate(score):\n    return score >= best_recorded_score\n",
    "notes.py": "# a comment line nobody quotes here\nX = 1\n",
}
NEW = {
    "prepare.py": "import os\nimport sys\n\n\n# header\n\ndef main():\n"
    "    run_baseline_for_everyone()\n",
    "gate.py": "def gate(score):\n    return True\n",
    "notes.py": "Y = 0\n# a comment line nobody quotes here\nX = 1\n",
}


LINE_5 = LineRange(start=5, end=5)


@pytest.fixture
def history(tmp_path: Path) -> tuple[Path, str, str, Report]:
    repo = tmp_path / "repo"
    old = commit(repo, OLD, "v1")
    new = commit(repo, NEW, "v2")
    route = make_record(
        "RT-RTE-prepare",
        "prepare",
        "Endpoints/progression: main → run_baseline_for_everyone(). The route starts at "
        "prepare.py:5; the gate at gate.py:2 decides; see notes.py:1 and example.com:80.",
        [Witness(quote="run_baseline_for_everyone()", path="prepare.py", lines=LINE_5),
         ("return score >= best_recorded_score", "gate.py")],
    )  # fmt: skip
    keep = make_record("RT-CLM-keep", "keep", "Claimed operation: os at prepare.py:1.",
                       [("import os", "prepare.py")])  # fmt: skip
    report = make_report([route, keep], system="Tiny", source=Source(repository="r", revision=old))
    report.account = [
        AccountSection(
            title="Runtime account",
            blocks=[Paragraph(text="It all starts at prepare.py:5 (RT-RTE-prepare).")],
        )
    ]
    return repo, old, new, report


def test_references_follow_their_witness(history) -> None:  # type: ignore[no-untyped-def]
    repo, old, new, report = history
    with Snapshot(repo, old) as a, Snapshot(repo, new) as b:
        res = reanchor(report, a, b)
    out = res.report
    route = out.record("RT-RTE-prepare")
    assert route is not None
    text = route.paragraphs[0]
    assert "The route starts at prepare.py:8;" in text  # moved with its witness (5 -> 8)
    assert "gate.py:2 decides" in text  # its witness is gone: left as written, flagged
    assert "notes.py:2" in text  # no witness: followed by the line's own text
    assert "example.com:80" in text  # no such file: not a line reference
    text = f"{STALE_REF_FLAG} at {new[:12]}: gate.py:2 in the prose"
    assert Flag(kind=FlagKind.stale_reference, text=text) in route.flags
    assert "It all starts at prepare.py:8 " in out.account[0].blocks[0].text  # type: ignore[union-attr]
    keep = out.record("RT-CLM-keep")
    assert keep is not None and "prepare.py:1." in keep.paragraphs[0] and keep.flags == []
    cases = {(p.where, p.old): p.case for p in res.prose}
    assert cases == {
        ("RT-RTE-prepare", "prepare.py:5"): RefCase.moved,
        ("RT-RTE-prepare", "gate.py:2"): RefCase.stale,
        ("RT-RTE-prepare", "notes.py:1"): RefCase.moved,
        ("RT-CLM-keep", "prepare.py:1"): RefCase.unchanged,
        ("Runtime account", "prepare.py:5"): RefCase.moved,
    }


def test_cli_exits_1_on_a_stale_reference_and_keeps_decisions(history, tmp_path: Path, capsys):  # type: ignore[no-untyped-def]
    repo, _old, new, report = history
    # only the prose reference goes stale: drop the gate witness so no witness is stale
    route = report.record("RT-RTE-prepare")
    route.blocks = [b for b in route.blocks if "gate.py" not in str(getattr(b, "witness", ""))]
    draft = tmp_path / "d.json"
    save_report(report, draft)
    store = tmp_path / "s.sqlite"
    with ReviewStore(store) as s:
        s.accept(route, "fine")
    out = tmp_path / "carried.json"
    code = main(["reverify", str(draft), "--rev", new, "--repo", str(repo), "--out", str(out),
                 "--store", str(store)])  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 1
    assert "Line references in prose" in printed and "prepare.py:8" in printed
    carried = load_report(out).record("RT-RTE-prepare")
    assert carried is not None and "prepare.py:8" in carried.paragraphs[0]
    with ReviewStore(store) as s:  # only line numbers changed: the acceptance carries over
        assert s.states([carried])[carried.id].mark == Mark.accepted
