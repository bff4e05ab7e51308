"""Drafts written before outcomes became data (schema version 1) still open.

The files in tests/data were written by the code before the change (the sample's
offline draft, and a copy with two dropped-witness flags, a "no verified witness" flag
and an account-drop note), together with what that code rendered, exported after
``review --accept-verified`` and scored with ``eval``.  Reading them now must give the
same outputs, and the flags and counters must come back typed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from drafter.cli import main
from drafter.model import SCHEMA_VERSION, DraftCounts, FlagKind, Report
from drafter.reportio import load_report
from drafter.sample import SampleRepo
from graph.outcome import witness_counts

DATA = Path(__file__).parent / "data"
SAMPLE_GOLD = Path(__file__).parent.parent / "drafter" / "sample" / "gold.runtime.txt"
V1_SAMPLE = DATA / "draft_v1_sample.json"
V1_FLAGS = DATA / "draft_v1_flags.json"


def test_the_files_are_version_1() -> None:
    for path in (V1_SAMPLE, V1_FLAGS):
        assert json.loads(path.read_text())["schema_version"] == 1
    assert SCHEMA_VERSION == 2


def test_v1_flags_and_account_drops_are_upgraded_to_kinds_and_counters() -> None:
    report = load_report(V1_FLAGS)
    assert report.schema_version == SCHEMA_VERSION
    kinds = [[f.kind for f in r.flags] for r in report.records if r.flags]
    assert kinds == [
        [FlagKind.witness_dropped],
        [FlagKind.witness_dropped, FlagKind.no_verified_witness],
    ]
    assert report.meta is not None
    assert report.meta.counts == DraftCounts(account_witnesses_dropped=1)
    # the figures the code before the change printed for this file
    assert witness_counts(report) == [
        ("Components", 4, 3, 1),
        ("Operative objects", 17, 16, 1),
        ("Routes", 6, 6, 0),
        ("Claims", 10, 10, 0),
        ("Behavioral-authority paths", 18, 18, 0),
        ("Runtime account", 9, 8, 1),
    ]
    # written again, it is a version-2 file that reads back the same
    again = Report.from_json(report.to_json())
    assert again == report
    assert json.loads(report.to_json())["schema_version"] == SCHEMA_VERSION


@pytest.mark.parametrize("name", ["sample", "flags"])
@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_render_of_a_v1_draft_is_what_it_was(name: str, fmt: str, tmp_path: Path) -> None:
    out = tmp_path / f"out.{fmt}"
    assert main(["render", str(DATA / f"draft_v1_{name}.json"), "-f", fmt, "-o", str(out)]) == 0
    assert out.read_text() == (DATA / f"draft_v1_{name}.{fmt}.expected").read_text()


def _v1_copy(tmp_path: Path) -> Path:
    draft = tmp_path / "v1f.json"
    shutil.copyfile(V1_FLAGS, draft)
    return draft


def test_review_batch_and_export_of_a_v1_draft(sample: SampleRepo, tmp_path: Path) -> None:
    draft = _v1_copy(tmp_path)
    store = tmp_path / "store.sqlite"
    base = ["review", str(draft), "--repo", str(sample.path), "--store", str(store)]
    assert main([*base, "--accept-verified"]) == 0
    for suffix in ("md", "txt"):
        out = tmp_path / f"v1f.export.{suffix}"
        assert main([*base, "--export", str(out)]) == 0
        expected = (DATA / f"draft_v1_flags.export.{suffix}.expected").read_text()
        assert out.read_text() == expected
    # the draft file itself was not rewritten by opening it
    assert draft.read_bytes() == V1_FLAGS.read_bytes()


def test_eval_of_a_v1_draft_scores_as_before(
    sample: SampleRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    draft = _v1_copy(tmp_path)
    # the expected scorecard was made with the mixed-score coverage (then the default),
    # and regenerated when that was refitted on the adjudicated labels (only alignment
    # and what is counted from the pairs moved); the upgrade must reproduce it
    args = ["eval", "--gold", str(SAMPLE_GOLD), "--draft", str(draft), "--alignment"]
    args.append("coverage-mixed")
    rc = main([*args, "--repo", str(sample.path), "--rev", sample.sha, "--json"])
    assert rc == 0
    got = json.loads(capsys.readouterr().out)
    for key in ("created", "timings", "drafter_version"):
        got.pop(key, None)
    got["gold"].pop("file", None)
    got["draft"].pop("file", None)
    expected = json.loads((DATA / "draft_v1_flags.eval.expected.json").read_text())
    assert got == expected
