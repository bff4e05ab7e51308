"""A draft remembers where its repository is, so later commands need no ``--repo``.

A draft made from a bare mirror (``…/system/repo``) used to record only the folder's
name ("repo") as its repository, so ``reverify``, ``eval`` and ``redraft`` on it exited
2 asking for ``--repo``.  The draft now records the absolute path it was drafted from
(``source.location``); ``--repo`` still overrides it, and an older draft that records
only a name is refused with a message that says what it records.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from drafter.cli import main
from drafter.reportio import load_report, save_report
from drafter.sample import SampleRepo, gold_path

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")


@pytest.fixture(scope="module")
def mirror_draft(sample: SampleRepo, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """An offline draft of a bare mirror named ``repo``, made from a relative path."""
    root = tmp_path_factory.mktemp("mirror")
    mirror = root / "tinkerbot" / "repo"
    subprocess.run(["git", "clone", "-q", "--bare", str(sample.path), str(mirror)], check=True)
    # like the project's mirrors: no origin, so the identity is only a folder name
    subprocess.run(["git", "--git-dir", str(mirror), "remote", "remove", "origin"], check=True)
    out = root / "a.json"
    cwd = os.getcwd()
    os.chdir(root / "tinkerbot")
    try:
        code = main(["draft", "repo", "--rev", sample.sha, "--offline", "--no-index",
                     "--out", str(out)])  # fmt: skip
    finally:
        os.chdir(cwd)
    assert code == 0
    return mirror, out


def test_the_draft_records_the_absolute_location(mirror_draft) -> None:
    mirror, out = mirror_draft
    src = load_report(out).source
    assert src is not None and src.location == str(mirror.resolve())


def test_the_report_names_the_system_not_the_folder(mirror_draft, capsys) -> None:
    """The shown name is the parent folder's; the storage key stays the folder's name."""
    from drafter.snapshot import Snapshot
    from drafter.textformat.render import render_text

    mirror, out = mirror_draft
    report = load_report(out)
    assert report.source is not None and report.source.repository == "tinkerbot"
    text = render_text(report)
    assert f"Source: SRC-1 tinkerbot at {report.source.revision}" in text
    assert "static survey of tinkerbot at" in text and " repo at " not in text
    with Snapshot(mirror) as snap:  # caches and index collections keep their key
        assert (snap.identity, snap.name) == ("repo", "tinkerbot")


def test_reverify_without_repo(mirror_draft, sample: SampleRepo, tmp_path: Path, capsys) -> None:
    _, draft = mirror_draft
    carried = tmp_path / "b.json"
    code = main(["reverify", str(draft), "--rev", sample.sha, "--out", str(carried),
                 "--store", str(tmp_path / "s.sqlite")])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    assert load_report(carried).source.location == load_report(draft).source.location  # type: ignore[union-attr]


def test_eval_without_repo(mirror_draft, capsys) -> None:
    _, draft = mirror_draft
    code = main(["eval", "--gold", str(gold_path()), "--draft", str(draft),
                 "--similarity", "lexical", "--no-baselines", "--no-pairs"])  # fmt: skip
    assert code == 0, capsys.readouterr().err


def test_redraft_without_repo(mirror_draft, tmp_path: Path, capsys) -> None:
    _, draft = mirror_draft
    code = main(["redraft", str(draft), "--offline", "--no-index",
                 "--store", str(tmp_path / "s.sqlite")])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    assert "nothing to redraft" in capsys.readouterr().out


def test_verify_without_repo(mirror_draft, capsys) -> None:
    _, draft = mirror_draft
    assert main(["verify", str(draft)]) == 0, capsys.readouterr().err


def test_an_old_draft_naming_only_repo_says_what_it_records(
    mirror_draft, tmp_path: Path, capsys
) -> None:
    mirror, draft = mirror_draft
    old = load_report(draft)
    assert old.source is not None
    old.source.repository, old.source.location = "repo", None
    path = tmp_path / "old.json"
    save_report(old, path)
    gold = str(gold_path())
    for cmd in (["reverify", str(path), "--rev", "HEAD"], ["redraft", str(path), "--offline"],
                ["eval", "--gold", gold, "--draft", str(path)], ["verify", str(path)]):  # fmt: skip
        capsys.readouterr()
        assert main(cmd) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--repo" in err and "'repo'" in err, err
    # --repo stays the override
    capsys.readouterr()
    assert main(["verify", str(path), "--repo", str(mirror)]) == 0
