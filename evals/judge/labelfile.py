"""Judgements saved as a label file, so an analyst can read, correct and reuse them.

Why the labels' own form: a judgement is exactly what an analyst writes for a
reference record (``best``, ``also``, ``reason``; :mod:`evals.labels`), so the saved
file loads with :func:`evals.labels.load_labels`, a corrected one scores a pair with
``drafter eval --labels FILE``, and judge and analyst can be compared entry by entry.
The judge's extra facts (the candidates shown, where the answer came from, a
refusal) ride along under keys the loader ignores.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from drafter.sanitize import json_safe
from evals.judge.run import JudgeRun


def judgements_path(scorecard_out: Path | None, fallback_dir: Path, name: str) -> Path:
    """Beside the scorecard (``X.json`` → ``X.judgements.json``), else in ``fallback_dir``."""
    if scorecard_out is not None:
        return scorecard_out.with_name(
            scorecard_out.name.removesuffix(".json") + ".judgements.json"
        )
    return fallback_dir / f"{name}.judgements.json"


def label_data(
    run: JudgeRun, *, name: str, gold: Path, draft: Path, repository: str, revision: str
) -> dict[str, Any]:
    return {
        "name": name,
        "gold": str(gold.resolve()),
        "draft": str(draft.resolve()),
        "repository": repository,
        "revision": revision,
        "labelled_by": f"drafter eval --judge, model {run.model} (a label file: correct freely)",
        "gold_records": [
            {
                "gold": j.gold,
                "best": j.best,
                "also": list(j.also),
                "reason": j.reason,
                "also_reasons": dict(zip(j.also, j.also_reasons, strict=False)),
                "candidates": list(j.candidates),
                "source": j.source,
                **({"refused": j.refused} if j.refused else {}),
            }
            for j in run.judgements
        ],
        "useful_unmatched_draft": [],
    }


def write_labels(path: Path, data: dict[str, Any]) -> None:
    """Written atomically: a half-written label file would be refused later."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(
        json_safe(json.dumps(data, indent=1, ensure_ascii=False)) + "\n", encoding="utf-8"
    )
    tmp.replace(path)
