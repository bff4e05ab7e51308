"""Every saved labelled pair in tests/data/eval_labels/ is whole (structure only).

Why: the pair lists of the alignment and coverage tests are written by hand and check
scores; a pair added as data (labels, draft, saved locations) is otherwise only checked
when someone adds it to such a list.  Here every ``*.labels.json`` found is loaded and
held to the structural rules without computing any score: every gold record (or draft
record) labelled and every named ID real, the draft of the labels' revision, and a
saved verifier answer for every witness of both reports, so a later score never fails
on a missing file or location.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.gold import load
from evals.labels import check_complete, load_labels
from evals.located import cached_locate

DATA = Path(__file__).parent / "data" / "eval_labels"
LABELS = sorted(DATA.glob("*.labels.json"))


def test_the_model_path_adas_pairs_are_among_the_saved_pairs() -> None:
    names = {p.name.removesuffix(".labels.json") for p in LABELS}
    assert {"adas-2702bee-model", "adas-2702bee-model2", "dgm-d88fdd6-model"} <= names


@pytest.mark.parametrize("path", LABELS, ids=lambda p: p.name.removesuffix(".labels.json"))
def test_saved_pair_is_complete_and_located(path: Path, gold_dir: Path) -> None:
    labels = load_labels(path)
    assert labels.name == path.name.removesuffix(".labels.json")
    gold = load(labels.gold_path(gold_dir), "gold")
    draft = load(labels.draft_path, "draft")
    check_complete(labels, gold, draft)
    assert draft.source is not None and draft.source.revision == labels.revision
    assert labels.answers, "a pair whose draft covers nothing teaches the eval nothing"
    locate = cached_locate(path.with_name(f"{labels.name}.locations.json"))
    for w in [*gold.witnesses, *draft.witnesses]:
        assert locate(w).revision == labels.revision
