"""The shipped sample: deterministic commits, and a gold report whose witnesses verify."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from drafter.errors import BadInput
from drafter.model import LEAD_LABELS, NINE_ROUTE_FIELDS, Report, VerifyStatus
from drafter.sample import (
    EXECUTABLE,
    SAMPLE_FACTS,
    SAMPLE_IDENTITY,
    SAMPLE_SHA,
    SAMPLE_V2_SHA,
    SampleRepo,
    gold_path,
    materialize,
    materialize_v2,
    sample_files,
)
from drafter.snapshot import Snapshot
from drafter.textformat.parser import parse_report
from drafter.textformat.render import render_text
from drafter.verify import report_summary, verify_report


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_sha_is_identical_in_two_fresh_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = materialize(tmp_path / "a")
    # A hostile environment must not change the commit: user identity, dates, autocrlf.
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Someone Else")
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2030-01-01T00:00:00+00:00")
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'core.autocrlf'='true'")
    b = materialize(tmp_path / "b")
    assert a.sha == b.sha == SAMPLE_SHA
    assert _git(a.path, "rev-parse", "HEAD") == SAMPLE_SHA
    assert _git(a.path, "status", "--porcelain") == ""


def test_tree_matches_the_shipped_files(sample: SampleRepo) -> None:
    files = sample_files()
    assert 10 <= len(files) <= 16
    with Snapshot(sample.path, SAMPLE_SHA) as snap:
        assert snap.files() == sorted(files)
        assert snap.identity == SAMPLE_IDENTITY
        for path, data in files.items():
            assert snap.read_bytes(path) == data
        modes = {e.path: e.mode for e in snap.entries()}
    assert {p for p, m in modes.items() if m == "100755"} == set(EXECUTABLE)


def test_materialize_is_idempotent(sample: SampleRepo) -> None:
    again = materialize(sample.path)
    assert again.sha == SAMPLE_SHA
    assert _git(sample.path, "rev-list", "--count", "--all") == "1"


def test_refuses_a_folder_with_other_content(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine")
    with pytest.raises(BadInput):
        materialize(tmp_path)
    assert (tmp_path / "keep.txt").read_text() == "mine"


def test_refuses_a_repository_with_other_history(tmp_path: Path) -> None:
    repo = tmp_path / "other"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "f").write_text("x")
    _git(repo, "add", "f")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x")
    with pytest.raises(BadInput):
        materialize(repo)


def test_v2_changes_two_files_and_keeps_v1(tmp_path: Path) -> None:
    v2 = materialize_v2(tmp_path / "r")
    assert v2.sha == SAMPLE_V2_SHA
    assert _git(v2.path, "rev-parse", "HEAD~1") == SAMPLE_SHA
    changed = _git(v2.path, "diff", "--name-only", SAMPLE_SHA, SAMPLE_V2_SHA).split()
    assert changed == ["README.md", "tinkerbot/tools.py"]
    quote = "if not str(target).startswith(str(root)):"
    with Snapshot(v2.path, SAMPLE_SHA) as old, Snapshot(v2.path, SAMPLE_V2_SHA) as new:
        assert quote in old.read_text("tinkerbot/tools.py").text
        assert quote not in new.read_text("tinkerbot/tools.py").text
    # idempotent, and materialize() on a v2 folder reuses v1 without moving HEAD
    assert materialize_v2(v2.path).sha == SAMPLE_V2_SHA
    assert materialize(v2.path).sha == SAMPLE_SHA
    assert _git(v2.path, "rev-parse", "HEAD") == SAMPLE_V2_SHA


# -- the sample gold report ------------------------------------------------------------

EXPECTED_KINDS = {"CMP": 3, "OBJ": 6, "RTE": 6, "CLM": 5, "BAP": 5}
EXPECTED_WITNESSES = 60


@pytest.fixture(scope="module")
def gold() -> Report:
    result = parse_report(gold_path().read_text(encoding="utf-8"), where="gold.runtime.txt")
    assert result.warnings == []
    return result.report


@pytest.fixture(scope="module")
def verified_gold(gold: Report, sample: SampleRepo) -> Report:
    with Snapshot(sample.path, SAMPLE_SHA) as snap:
        return verify_report(gold, snap)


def test_gold_record_and_witness_counts(gold: Report) -> None:
    assert gold.system == "tinkerbot"
    assert gold.source is not None
    assert (gold.source.repository, gold.source.revision) == (SAMPLE_IDENTITY, SAMPLE_SHA)
    counts = {k: len(gold.records_of_kind(k)) for k in EXPECTED_KINDS}
    assert counts == EXPECTED_KINDS
    assert len(gold.records) >= 12 and len(gold.witnesses) >= 25
    assert len(gold.witnesses) == EXPECTED_WITNESSES
    ids = [r.id for r in gold.records]
    assert len(ids) == len(set(ids))


def test_every_gold_witness_verifies_at_the_sample_revision(verified_gold: Report) -> None:
    summary = report_summary(verified_gold)
    misses = [
        (w.path, w.quote) for w in verified_gold.witnesses if w.verification.status != "verified"
    ]
    assert misses == []
    assert summary.total == EXPECTED_WITNESSES
    # the gold exercises every normalisation the format allows, and a line range
    assert {"exact", "whitespace", "markup"} <= set(summary.by_match)
    assert any(w.lines is not None for w in verified_gold.witnesses)


def _collapse(text: str) -> str:
    return " ".join(text.split())


def test_plain_witnesses_found_by_an_independent_search(verified_gold: Report) -> None:
    """Cross-check without the verifier: exact and whitespace matches are plain substrings
    of the whitespace-collapsed file."""
    files = sample_files()
    checked = 0
    for w in verified_gold.witnesses:
        if w.verification.match_kind.value in ("exact", "whitespace"):
            quote = w.quote.removeprefix("• ")  # a list item quoted as a bullet
            assert _collapse(quote) in _collapse(files[w.path].decode()), w.quote
            checked += 1
    assert checked >= 50


def test_gold_cites_every_sample_fact(verified_gold: Report) -> None:
    spans: dict[str, list[tuple[int, int]]] = {}
    for w in verified_gold.witnesses:
        lr = w.verification.lines
        spans.setdefault(w.path, []).append((lr.start, lr.end))
    for category, facts in SAMPLE_FACTS.items():
        for path, line in facts:
            hit = any(a <= line <= b for a, b in spans.get(path, []))
            assert hit, f"gold cites no {category} at {path}:{line}"


def test_fact_lines_hold_what_they_claim() -> None:
    files = {p: d.decode().splitlines() for p, d in sample_files().items()}
    needles = {
        "entry_point": ("tinkerbot.cli", "ArgumentParser", "__main__"),
        "model_call": ("messages.create",),
        "subprocess": ("subprocess.run",),
        "persistence": ('open(RUNS_FILE, "a")', "INSERT INTO", "write_text", "git"),
    }
    for category, facts in SAMPLE_FACTS.items():
        for path, line in facts:
            text = files[path][line - 1]
            assert any(n in text for n in needles[category]), (category, path, line, text)


def test_records_carry_their_kind_fields(gold: Report) -> None:
    for rec in gold.records:
        assert rec.label.strip()
        if rec.kind in ("CMP", "OBJ", "BAP"):
            assert set(rec.lead) == set(LEAD_LABELS[rec.kind]), rec.id
        elif rec.kind == "RTE":
            assert "Endpoints/progression" in rec.lead, rec.id
            assert all(rec.route_fields_present[f] for f in NINE_ROUTE_FIELDS), rec.id
            assert rec.status("implementation conclusion status") in ("wired", "afforded")
            assert rec.status("operation conclusion status") == "uninspected"
        else:
            assert "Claimed operation" in rec.lead, rec.id
        assert rec.witnesses, f"{rec.id} has no witness"


def test_gold_round_trips_through_the_text_format(gold: Report) -> None:
    again = parse_report(render_text(gold)).report
    assert again == gold
    assert _collapse(render_text(gold)) == _collapse(gold_path().read_text(encoding="utf-8"))


def test_gold_quotes_of_changed_lines_fail_at_v2(tmp_path: Path, gold: Report) -> None:
    """A quote present only in another revision is not verified there."""
    v2 = materialize_v2(tmp_path / "v2")
    with Snapshot(v2.path, SAMPLE_V2_SHA) as snap:
        checked = verify_report(gold, snap)
    missed = {
        (w.path, w.quote)
        for w in checked.witnesses
        if w.verification.status != VerifyStatus.verified
    }
    assert missed == {
        ("tinkerbot/tools.py", "if not str(target).startswith(str(root)):"),
        ("README.md", "• The shell tool runs commands in a sandbox with no internet access."),
    }


# -- entry points ----------------------------------------------------------------------


def test_drafter_verify_cli_accepts_the_gold(
    sample: SampleRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    from drafter.cli import main

    repo = str(sample.path)
    args = ["verify", str(gold_path()), "--repo", repo, "--rev", SAMPLE_SHA[:10], "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["revision"] == SAMPLE_SHA
    assert out["summary"]["total"] == EXPECTED_WITNESSES and out["summary"]["ok"] is True


def test_module_entry_materialises_and_refuses_bad_dest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from drafter.sample.__main__ import main

    assert main([str(tmp_path / "m")]) == 0
    out = capsys.readouterr().out
    assert SAMPLE_SHA in out and str(gold_path()) in out
    (tmp_path / "file").write_text("x")
    assert main([str(tmp_path / "file")]) == 2
    assert "not a folder" in capsys.readouterr().err
