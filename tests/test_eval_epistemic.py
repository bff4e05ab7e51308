"""Table recall of epistemic reports (evals.epistemic)."""

from __future__ import annotations

import json
from pathlib import Path

from drafter.cli import main
from drafter.sample import epistemic_gold_path, materialize
from drafter.textformat import parse_report
from evals.epistemic import coverage_paths, table_scores


def _gold(gold_dir: Path):
    return parse_report((gold_dir / "hyperagents.epistemic.txt").read_text()).report


def test_gold_against_itself_recalls_every_path_and_row(gold_dir: Path) -> None:
    gold = _gold(gold_dir)
    scores = {s.name: s for s in table_scores(gold, gold)}
    assert scores["coverage paths"].gold == len(coverage_paths(gold)) >= 30
    assert scores["inventory rows"].gold == 10 and scores["ledger rows"].gold == 17
    assert all(s.recall == 1.0 and s.precision == 1.0 for s in scores.values())


def test_missing_and_unrelated_rows_are_not_credited(gold_dir: Path) -> None:
    gold = _gold(gold_dir)
    draft = gold.model_copy(deep=True)
    ledger = draft.account[3].tables[0]
    ledger.rows = ledger.rows[:5]
    coverage = draft.account[1].tables[0]
    coverage.rows = [["x", "nowhere.py", "none", "none"]]
    inventory = draft.account[2].tables[0]
    inventory.rows = [["EPI-OBJ-other", "bananas", "ripe", "SRC-1, fruit.py", "yellow"]]
    scores = {s.name: s for s in table_scores(gold, draft)}
    assert scores["ledger rows"].matched == 5
    assert scores["coverage paths"].matched == 0
    assert scores["inventory rows"].matched == 0


def test_eval_cli_json_carries_table_scores(tmp_path: Path, capsys) -> None:
    sample = materialize(tmp_path / "repo")
    gold = str(epistemic_gold_path())
    args = ["eval", "--gold", gold, "--draft", gold, "--repo", str(sample.path)]
    code = main([*args, "--rev", sample.sha, "--json", "--similarity", "lexical"])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    tables = {t["name"]: t for t in json.loads(cap.out)["epistemic_tables"]}
    assert tables["ledger rows"]["recall"] == 1.0
