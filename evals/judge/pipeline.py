"""One judged pair from located reports: mechanical tier, requests, judgements.

Why one function for the command and the benchmark: ``drafter eval --judge`` locates
witnesses with the verifier at the revision, ``benchmarks/label_agreement.py`` from a
labelled pair's saved locations; from there both must build the same requests (so the
cache answers either) and make the same links.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from drafter.model import Report
from evals import alignment
from evals.judge import run as judge_run
from evals.judge.cache import AnswerCache
from evals.judge.model import JudgeModel
from evals.judge.request import JudgeRequest
from evals.judge.score import Mechanical, mechanical
from evals.similarity import TextSimilarity
from evals.structure import CodeMap
from evals.witnesses import LocatedWitness


@dataclass(slots=True)
class JudgedPair:
    gold_ids: list[str]
    draft_ids: list[str]
    gold: alignment.Side
    draft: alignment.Side
    mech: Mechanical
    requests: list[JudgeRequest | str]

    def judge(
        self,
        model: JudgeModel | None,
        cache: AnswerCache,
        caps: judge_run.Caps,
        model_name: str,
        tick: Callable[[], None] | None = None,
    ) -> tuple[judge_run.JudgeRun, np.ndarray]:
        """Every judgement, and the judged links as a matrix."""
        run = judge_run.judge_pair(
            self.requests, model, cache, caps, model_name=model_name, tick=tick
        )
        return run, run.links(self.gold_ids, self.draft_ids)


def prepare(
    gold: Report,
    draft: Report,
    gold_witnesses: list[list[LocatedWitness]],
    draft_witnesses: list[list[LocatedWitness]],
    text_similarity: TextSimilarity,
    code_map: CodeMap | None,
    model_name: str,
    shown_witnesses: tuple[list[list[LocatedWitness]], list[list[LocatedWitness]]] | None = None,
) -> JudgedPair:
    """The mechanical tier and the judge's requests; ``shown_witnesses`` (gold, draft)
    are what the judge reads when they differ from the scored ones (a redacted saved
    draft's quotes read back from the repository, :mod:`evals.judge.quotes`)."""
    gs = alignment.Side(gold.records, gold_witnesses)
    ds = alignment.Side(draft.records, draft_witnesses)
    mech = mechanical(gs, ds, text_similarity, code_map)
    if shown_witnesses is not None:
        gshow = alignment.Side(gold.records, shown_witnesses[0])
        dshow = alignment.Side(draft.records, shown_witnesses[1])
    else:
        gshow, dshow = gs, ds
    requests = judge_run.plan(
        model_name,
        gshow,
        dshow,
        mech.score,
        mech.links,
        kind_free=mech.kind_free,
        text=mech.text,
    )
    return JudgedPair(
        [r.id for r in gold.records], [r.id for r in draft.records], gs, ds, mech, requests
    )
