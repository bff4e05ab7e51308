"""The review shows the draft at the repository and revision it names, checked there.

A draft of one system opened against another system's repository (or at another
``--rev``) once opened without a word, every witness ✓ from the verdicts saved in the
file, while the source view said the file does not exist.  Now such a review is
refused (exit 2, one line) unless ``--allow-mismatch`` is given; then a banner stays on
screen, witnesses are checked at what is shown and nothing is exported.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gitrepo import commit, git
from review_material import tiny_draft

from drafter.cli import main
from drafter.errors import BadInput
from drafter.model import Anchor, LineRange, Report, Verification, VerifyStatus
from tui.app import ReviewApp, make_app
from tui.screens.source import SourceScreen

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def two(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(draft of the tiny repository, the tiny repository, another system's repository)."""
    draft, repo = tiny_draft(tmp_path)
    other = tmp_path / "other"
    # it even holds one of the draft's quoted lines, in another file
    line = 'return client.messages.create(model="claude-x", messages=messages)'
    commit(other, {"main.py": f"print('another system')\n{line}\n"})
    return draft, repo, other


def _screen_text(app: ReviewApp) -> str:
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(seg.text for seg in strip) for strip in strips)


def test_another_systems_repository_is_refused(two, capsys) -> None:  # type: ignore[no-untyped-def]
    draft, _, other = two
    store = draft.parent / "s.sqlite"
    args = ["review", str(draft), "--repo", str(other), "--store", str(store)]
    assert main([*args, "--rev", "HEAD", "--accept-verified"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "does not hold the draft's revision" in err and "'tiny'" in err
    assert "--allow-mismatch" in err
    # without --rev too, naming the draft's repository as the way out
    assert main([*args, "--accept-verified"]) == 2
    assert "not the draft's repository" in capsys.readouterr().err
    assert not store.exists()  # refused before any store was opened


def test_another_revision_is_refused_with_the_reverify_hint(two, capsys) -> None:  # type: ignore[no-untyped-def]
    draft, repo, _ = two
    (repo / "agent.py").write_text("# rewritten\n")
    git(repo, "commit", "-qam", "later")
    args = ["review", str(draft), "--repo", str(repo), "--store", str(draft.parent / "s.sqlite")]
    assert main([*args, "--rev", "HEAD", "--accept-verified"]) == 2
    err = capsys.readouterr().err
    assert "the draft is pinned at" in err
    assert f"drafter reverify {draft} --rev HEAD" in err
    # the draft's own revision, named by --rev, is no mismatch
    assert main([*args, "--rev", "HEAD~1", "--accept-verified"]) == 0


def test_allowed_mismatch_takes_decisions_but_no_verdict_from_elsewhere(two, capsys) -> None:  # type: ignore[no-untyped-def]
    draft, _, other = two
    store = draft.parent / "s.sqlite"
    args = ["review", str(draft), "--repo", str(other), "--rev", "HEAD", "--allow-mismatch"]
    args += ["--store", str(store)]
    dec = draft.parent / "d.jsonl"
    dec.write_text('{"record": "RT-CMP-model", "action": "accept"}\n')
    assert main([*args, "--decisions", str(dec)]) == 0  # the analyst's own decisions: allowed
    out = capsys.readouterr()
    assert "warning: not the draft's repository or revision" in out.err
    assert "accepted 1" in out.out
    # what would stand on the verdicts of another repository is refused
    assert main([*args, "--accept-verified"]) == 2
    assert "no --accept-verified at another repository" in capsys.readouterr().err
    assert main([*args, "--export", str(draft.parent / "x.txt")]) == 2
    assert "no export from a review at another repository" in capsys.readouterr().err
    assert not (draft.parent / "x.txt").exists()


async def test_allowed_mismatch_banner_and_source_view_agree(two) -> None:  # type: ignore[no-untyped-def]
    draft, _, other = two
    app = make_app(
        draft,
        other,
        rev="HEAD",
        allow_mismatch=True,
        store=draft.parent / "s.sqlite",
        clock=lambda: 1.0,
        live_clock=False,
    )
    async with app.run_test(size=(120, 35), notifications=True) as pilot:
        await pilot.pause()
        shown = _screen_text(app)
        assert "NOT THE DRAFT'S REPOSITORY OR REVISION" in shown
        assert all(w.verification is not None for w in app.session.report.witnesses)
        assert not any(
            w.verification.status == VerifyStatus.verified  # type: ignore[union-attr]
            for w in app.session.report.witnesses
        )
        # a missing path is not searched for across the whole other repository
        # (reading all of it made opening another system's repository take minutes)
        assert all(not w.verification.nearest for w in app.session.report.witnesses)  # type: ignore[union-attr]
        app.push_screen(SourceScreen(app.session, "RT-CMP-model", 0))
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        title = _screen_text(app).splitlines()[0]
        assert "agent.py" in title and "verified" not in title and "✓" not in title
        await pilot.press("escape", "x", "R")
        await pilot.pause()
        assert any("No export" in n.message for n in app._notifications)
        assert any("No redraft" in n.message for n in app._notifications)
        assert not list(draft.parent.glob("*.redraft.json"))


def test_verdicts_saved_in_the_file_are_checked_again(two) -> None:  # type: ignore[no-untyped-def]
    """A verdict in the draft file (here a forged ✓ at the right revision) is never shown
    as it is; a draft written by `drafter reverify` keeps its moved tag."""
    draft, repo, _ = two
    report = Report.from_json(draft.read_text())
    assert report.source is not None and report.source.revision
    sha = report.source.revision
    rec = report.records[0]
    rec.witnesses[0].quote = "this line is in no file"
    rec.witnesses[0].verification = Verification(
        status=VerifyStatus.verified, revision=sha, lines=LineRange(start=1, end=1)
    )
    moved = report.records[1].witnesses[0]
    draft.write_text(report.to_json(), encoding="utf-8")
    app = make_app(draft, repo, store=draft.parent / "s.sqlite", live_clock=False)
    try:
        got = app.session.report.records[0].witnesses[0].verification
        assert got is not None and got.status == VerifyStatus.not_found
        assert got.revision == sha
    finally:
        app.session.close()
    # a reverify tag survives when the verdict agrees with it
    true = app.session.report.records[1].witnesses[0].verification
    assert true is not None and true.ok
    report.records[0].witnesses[0].verification = None
    moved.verification = true.model_copy(
        update={"message": "moved: was 3-3", "anchor": Anchor.moved}
    )
    draft.write_text(report.to_json(), encoding="utf-8")
    app = make_app(draft, repo, store=draft.parent / "s.sqlite", live_clock=False)
    try:
        kept = app.session.report.records[1].witnesses[0].verification
        assert kept is not None and kept.message == "moved: was 3-3"
    finally:
        app.session.close()


def test_bad_input_names_the_draft(two) -> None:  # type: ignore[no-untyped-def]
    draft, _, other = two
    with pytest.raises(BadInput, match=r"tiny\.json"):
        make_app(draft, other, rev="HEAD", store=draft.parent / "s.sqlite", live_clock=False)
