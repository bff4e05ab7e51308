"""The second labellings load, are complete, and are scored against the first exactly.

``benchmarks/label_agreement.py`` gives the ceiling the eval's agreement with analysts
is read against (two labellers of one pair); its figures must be counts of links, not
an approximation, so the test moves one link of a copied pair and checks each figure.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "eval_labels"
sys.path.insert(0, str(ROOT / "benchmarks"))

from label_agreement import agreement  # noqa: E402

SECOND = sorted(
    p.name.removesuffix(".labels.json") for p in (DATA / "second").glob("*.labels.json")
)


@pytest.mark.parametrize("name", SECOND)
def test_every_second_labelling_is_complete(name: str, gold_dir: Path) -> None:
    agr, first, second = agreement(name, gold_dir)  # runs check_complete on both
    assert first > 0 and second > 0
    assert 0.0 < agr.link_p <= 1.0 and 0.0 < agr.link_r <= 1.0


def test_one_moved_link_moves_each_figure(tmp_path: Path, gold_dir: Path) -> None:
    name = "sample-offline"
    # the first labelling (draft-record form), kept in first/ once the pair was adjudicated
    first_file = DATA / "first" / f"{name}.labels.json"
    shutil.copy(first_file, tmp_path / f"{name}.labels.json")
    shutil.copy(DATA / f"{name}.draft.json", tmp_path / f"{name}.draft.json")
    (tmp_path / "second").mkdir()
    data = json.loads(first_file.read_text(encoding="utf-8"))
    linked = [d for d, e in data["draft_records"].items() if e["gold"]]
    moved = linked[0]
    data["draft_records"][moved]["gold"] = []  # the second labeller drops one record's links
    (tmp_path / "second" / f"{name}.labels.json").write_text(json.dumps(data), encoding="utf-8")
    first_links = sum(
        len(e["gold"])
        for e in json.loads(first_file.read_text(encoding="utf-8"))["draft_records"].values()
    )
    dropped = len(
        json.loads(first_file.read_text(encoding="utf-8"))["draft_records"][moved]["gold"]
    )
    agr, n1, n2 = agreement(name, gold_dir, tmp_path)
    assert (n1, n2) == (first_links, first_links - dropped)
    assert agr.link_p == 1.0 and agr.link_r == pytest.approx((first_links - dropped) / first_links)
    assert agr.draft_p == 1.0 and agr.draft_r == pytest.approx((len(linked) - 1) / len(linked))
