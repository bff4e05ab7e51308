"""``drafter reverify``: every witness re-anchored at a new revision of a repository the
test builds — one unchanged, one moved (with and without a cited line range), one
stale — and review decisions carried to the new draft."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes import make_record, make_report
from gitrepo import commit

from drafter.cli import main
from drafter.model import Anchor, FlagKind, LineRange, Report, Source, Witness
from drafter.reportio import load_report
from drafter.reverify import reanchor
from drafter.review_identity import identity_store_path
from drafter.review_store import Mark, ReviewStore
from drafter.snapshot import Snapshot

OLD = {
    "keep.py": "def keep():\n    return 'kept as it was'\n",
    "move.py": "def moved():\n    return 'this line will move'\n\nX = 'cited span moves too'\n",
    "gone.py": "def gone():\n    return 'this quote disappears'\n",
}
NEW = {
    "move.py": "# a new header\n# pushes everything down\n" + OLD["move.py"],
    "gone.py": "def gone():\n    return 'something else entirely'\n",
}


@pytest.fixture
def history(tmp_path: Path) -> tuple[Path, str, str, Report]:
    repo = tmp_path / "repo"
    old = commit(repo, OLD, "v1")
    new = commit(repo, NEW, "v2")
    moved_span = Witness(
        quote="X = 'cited span moves too'", path="move.py", lines=LineRange(start=4, end=4)
    )
    records = [
        make_record("RT-CLM-keep", "keep", witnesses=[("return 'kept as it was'", "keep.py")]),
        make_record(
            "RT-CLM-move",
            "move",
            witnesses=[("return 'this line will move'", "move.py"), moved_span],
        ),
        make_record(
            "RT-CLM-gone", "gone", witnesses=[("return 'this quote disappears'", "gone.py")]
        ),
    ]
    source = Source(repository=str(repo), revision=old)
    return repo, old, new, make_report(records, system="Tiny", source=source)


def test_each_case_is_told_apart(history) -> None:  # type: ignore[no-untyped-def]
    repo, old, new, report = history
    with Snapshot(repo, old) as a, Snapshot(repo, new) as b:
        res = reanchor(report, a, b)
    cases = {(r.where, r.path, str(r.new_lines)): r.anchor for r in res.rows}
    assert cases == {
        ("RT-CLM-keep", "keep.py", "2-2"): Anchor.unchanged,
        ("RT-CLM-move", "move.py", "4-4"): Anchor.moved,
        ("RT-CLM-move", "move.py", "6-6"): Anchor.moved,
        ("RT-CLM-gone", "gone.py", "None"): Anchor.stale,
    }
    stale = next(r for r in res.rows if r.anchor == Anchor.stale)
    assert stale.old_lines == LineRange(start=2, end=2)
    assert stale.nearest and stale.nearest[0].path == "gone.py"  # nearest passage at NEW
    out = res.report
    assert out.source is not None and out.source.revision == new
    cited = out.record("RT-CLM-move").witnesses[1]  # type: ignore[union-attr]
    assert cited.lines == LineRange(start=6, end=6)  # the cited span follows the quote
    assert all(w.verified for w in out.record("RT-CLM-move").witnesses)  # type: ignore[union-attr]
    assert out.record("RT-CLM-gone").flags_of(FlagKind.stale_witness)  # type: ignore[union-attr]
    assert not out.record("RT-CLM-keep").flags  # type: ignore[union-attr]
    assert res.stale_records == ["RT-CLM-gone"]


def test_cli_carries_decisions_and_exits_1_on_stale(history, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    repo, _old, new, report = history
    draft = tmp_path / "old.json"
    draft.write_text(report.to_json())
    store_path = identity_store_path(draft, report)
    with ReviewStore(store_path) as s:
        for r in report.records:
            s.accept(r)
        s.annotate(report.record("RT-CLM-move"), "check the header")  # type: ignore[arg-type]
    out = tmp_path / "new.json"
    code = main(["reverify", str(draft), "--rev", new, "--repo", str(repo), "--out", str(out)])
    assert code == 1  # one witness went stale
    printed = capsys.readouterr().out
    assert "unchanged" in printed and "moved" in printed and "stale" in printed
    carried = load_report(out)
    # the carried draft opens the same store, and every decision is still there
    assert identity_store_path(out, carried) == store_path
    with ReviewStore(store_path) as s:
        states = s.states(carried.records)
    assert {rid: st.mark for rid, st in states.items()} == {
        "RT-CLM-keep": Mark.accepted,
        "RT-CLM-move": Mark.accepted,  # content changed only by re-anchoring: copied
        "RT-CLM-gone": Mark.accepted,  # unchanged text, now flagged stale
    }
    assert "check the header" in states["RT-CLM-move"].notes
    # running the carried draft's verifier at NEW: only the stale quote fails
    assert main(["verify", str(out), "--repo", str(repo)]) == 1


def test_unknown_revision_is_exit_2(history, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    repo, _old, _new, report = history
    draft = tmp_path / "old.json"
    draft.write_text(report.to_json())
    assert main(["reverify", str(draft), "--rev", "nope", "--repo", str(repo)]) == 2


def test_a_text_report_carried_keeps_its_store(history, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    repo, _old, new, report = history
    text = tmp_path / "old.txt"
    src = tmp_path / "old.json"
    src.write_text(report.to_json())
    assert main(["render", str(src), "--out", str(text)]) == 0
    out = tmp_path / "carried.json"
    main(["reverify", str(text), "--rev", new, "--repo", str(repo), "--out", str(out)])
    parent = identity_store_path(text, load_report(text))
    assert identity_store_path(out, load_report(out)) == parent
    assert parent != identity_store_path(src, report)  # the JSON is another document
