"""The sample gold set, and the offline draft of the shipped sample scored against it.

The offline draft is made the way a suite makes it ("draft now with proposer
offline"): ``drafter draft --offline`` in a child process.  Its scores are printed and
held to a floor, so a change to the survey or the offline proposer that loses records
or quotes the gold cites fails here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from drafter.cli import main
from drafter.sample import SAMPLE_SHA, materialize
from drafter.snapshot import Snapshot
from evals.evaluate import evaluate
from evals.gold import sample_gold, sample_gold_path
from evals.metrics import KindScore

#: Floors for the offline draft of the sample against the sample gold (overall).
#: First measured (embed similarity, threshold 0.35): P 0.50, R 0.60, F1 0.55, file
#: recall 0.97, line recall 0.47, draft line precision 0.77, validity 1.00.  Re-measured
#: after the survey learnt prompt-file reads and model-loop steps: P 0.64, R 0.64,
#: F1 0.64, file recall 0.98, line recall 0.52, line precision 0.68 (more records quote
#: more lines the gold does not cite).  Re-measured after artifacts were grouped by
#: family with their read-backs, gates quoted by their deciding lines, instruction-file
#: rules mined as claims, components split by model role and a retained-state → gate
#: path added: P 0.65, R 0.68, F1 0.67, file recall 0.98, line recall 0.52, line
#: precision 0.66 (read-back and gate quotes the gold does not cite).  Re-measured
#: when the default draft became sized for review (at most 25 records and 3 witnesses
#: each, the deciding line first; ``--thorough`` keeps the long form): P 0.71, R 0.68,
#: F1 0.69, file recall 0.95, line precision 0.71, and line recall 0.38 — the gold
#: cites 60 witnesses over 25 records (2.4 a record, up to 6), so three per record
#: cannot reach the lines the long form did (the long form scores line recall 0.42).
#: Floors sit a little below the latest figures; validity must stay perfect.
OFFLINE_FLOOR = {
    "f1": 0.66,
    "recall": 0.64,
    "file_recall": 0.95,
    "line_recall": 0.36,
    "line_precision": 0.65,
    "validity": 1.0,
}


def test_sample_gold_set_scores_itself_perfectly(tmp_path: Path) -> None:
    gold = sample_gold()
    assert len(gold.records) >= 12
    repo = materialize(tmp_path / "sample")
    with Snapshot(repo.path, SAMPLE_SHA) as snap:
        card = evaluate(gold, gold, snap)
    o = card.overall
    n = len(gold.records)
    # every record covers itself, so record R and P are 1; the fitted rule's margin
    # (0.2 in probability, where identical pairs sit near 1) also lets a record cover a
    # near-identical neighbour, so the links may exceed the records (27 for 25 today)
    assert o.gold_matched == o.draft_matched == o.gold_records == n
    pairs = [p for ka in card.alignment.values() for p in ka.pairs]
    assert {p.gold.id for p in pairs if p.gold.id == p.draft.id} == {r.id for r in gold.records}
    assert o.f1 == 1.0 and o.gold_absent == 0
    assert o.line_recall == o.line_precision == o.validity == 1.0


def test_offline_draft_of_sample_meets_floor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = tmp_path / "suite.toml"
    suite.write_text(
        'name = "sample-offline"\n\n[[items]]\nname = "sample"\nrepo = "sample"\n'
        'gold = "sample"\nproposer = "offline"\ndraft_args = ["--no-index"]\n'
    )
    code = main(["eval", "--suite", str(suite), "--results", str(tmp_path / "runs"), "--json"])
    out = capsys.readouterr().out
    run = json.loads(out)
    (item,) = run["items"]
    assert code == 0, item["error"]
    o = item["overall"]
    with capsys.disabled():
        print(
            "\noffline draft of the sample vs the sample gold "
            f"({sample_gold_path().name}): "
            + ", ".join(f"{k} {o[k]:.2f}" for k in KindScore.SCORES if o[k] is not None)
        )
    for key, floor in OFFLINE_FLOOR.items():
        assert o[key] >= floor, f"{key} {o[key]:.3f} fell below {floor}"
