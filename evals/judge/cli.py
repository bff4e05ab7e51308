"""``drafter eval --judge`` and ``drafter eval --labels FILE`` (labels alone): the
command's two scorings that replace the mechanical links, kept apart from
:mod:`evals.cli` so that module only gains options.

Why the estimate is printed before the first call: like ``drafter draft``, a judged
eval spends money, so the analyst sees what it will take (and what the cache already
answers) before anything is sent; ``--estimate`` stops there.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import click

from drafter.config import ENV_MODEL, data_dir
from drafter.defaults import MODEL
from drafter.endpoint import request_timeout, retry_count
from drafter.errors import BadInput
from drafter.model import Report
from drafter.prices import check_prices, resolve_price, unpriced_cap_error
from drafter.sanitize import one_line
from evals.judge.cache import AnswerCache
from evals.judge.labelfile import judgements_path, label_data, write_labels
from evals.judge.model import AnthropicJudge, JudgeModel
from evals.judge.pipeline import JudgedPair, prepare
from evals.judge.run import DEFAULT_MAX_COST, Caps, estimate
from evals.judge.score import label_matrix, rescored
from evals.judge.tier import judge_dict
from evals.labels import LabelSet
from evals.scorecard import Scorecard

API_KEY_ENV = "ANTHROPIC_API_KEY"

#: Builds the judge's model (the CLI: the real SDK from the environment; tests may
#: pass one with a scripted transport).
JudgeFactory = Callable[[str], JudgeModel | None]


@dataclass(frozen=True, slots=True)
class JudgeOptions:
    model: str | None
    estimate_only: bool
    max_cost: float | None
    max_tokens_total: int | None
    price_in: float | None
    price_out: float | None

    def model_name(self) -> str:
        return self.model or os.environ.get(ENV_MODEL) or MODEL

    def caps(self) -> Caps:
        try:
            check_prices(self.price_in, self.price_out)
        except ValueError as exc:
            raise BadInput(str(exc)) from None
        name = self.model_name()
        price = resolve_price(name, self.price_in, self.price_out)
        if price is None and self.max_cost is not None:
            raise BadInput(unpriced_cap_error(name))
        cost = self.max_cost if self.max_cost is not None else DEFAULT_MAX_COST
        return Caps(cost if price is not None else None, self.max_tokens_total, price)


def sdk_judge(model: str) -> JudgeModel | None:
    """The real judge when a key is set, else None (then only cached answers serve)."""
    key = os.environ.get(API_KEY_ENV) or None
    if key is None:
        return None
    try:
        timeout, retries = request_timeout(), retry_count()
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    return AnthropicJudge(model, key, timeout=timeout, retries=retries)


def located_pair(
    gold: Report, draft: Report, repo: str, rev: str, similarity: str, model: str
) -> JudgedPair:
    """Both reports' witnesses verified at REPO@REV and the judge's requests built."""
    from drafter.snapshot import Snapshot
    from evals.evaluate import verifier_locate
    from evals.similarity import backend
    from evals.structure import code_map
    from evals.witnesses import locate_report

    with Snapshot(repo, rev) as snap:
        loc = verifier_locate(snap)
        gw, dw = locate_report(gold, loc), locate_report(draft, loc)
        cmap = code_map(snap)
    return prepare(gold, draft, gw.by_record, dw.by_record, backend(similarity), cmap, model)


def judged(
    card: Scorecard,
    pair: JudgedPair,
    options: JudgeOptions,
    *,
    similarity: str,
    out: Path | None,
    factory: JudgeFactory = sdk_judge,
) -> Scorecard:
    """The mechanical ``card`` re-scored from the judge's links, with the tier said."""
    from evals.similarity import backend

    name = options.model_name()
    caps = options.caps()
    cache = AnswerCache(data_dir() / "judge-cache")
    click.echo(f"drafter: {estimate(pair.requests, cache, caps.price).line()}", err=True)
    run, made = pair.judge(factory(name), cache, caps, name)
    new = rescored(
        card, pair.gold, pair.draft, pair.mech, made, backend(similarity), method="judge"
    )
    stem = f"{Path(card.draft_name).stem}--{Path(card.gold_name).stem}"
    saved = judgements_path(out, data_dir() / "judgements", stem)
    write_labels(
        saved,
        label_data(
            run,
            name=stem,
            gold=Path(card.gold_name),
            draft=Path(card.draft_name),
            repository=card.repository,
            revision=card.revision,
        ),
    )
    new.tier = judge_dict(run, card, str(saved))
    return new


def print_estimate(pair: JudgedPair, options: JudgeOptions) -> None:
    caps = options.caps()
    cache = AnswerCache(data_dir() / "judge-cache")
    click.echo(estimate(pair.requests, cache, caps.price).line())


def label_pair_paths(labels: LabelSet, gold: Path | None) -> tuple[Path, Path]:
    """The gold and draft a label file names: ``--gold`` wins; a relative gold is read
    beside the label file (the shared labels say ``../gold/...``)."""
    draft = labels.draft_path
    if gold is not None:
        return gold, draft
    if labels.gold == "sample":
        from evals.gold import sample_gold_path

        return sample_gold_path(), draft
    path = labels.path.parent / labels.gold
    if not path.is_file():
        raise BadInput(
            f"{labels.path}: gold {one_line(labels.gold, 120)!r} is not beside it: give --gold"
        )
    return path, draft


def from_labels(card: Scorecard, pair: JudgedPair, labels: LabelSet, similarity: str) -> Scorecard:
    """``card`` re-scored from the labels' links alone (an analyst's or a corrected
    judgement file)."""
    from evals.similarity import backend

    made = label_matrix(labels, pair.gold_ids, pair.draft_ids)
    new = rescored(
        card, pair.gold, pair.draft, pair.mech, made, backend(similarity), method="labels"
    )
    new.tier = {"tier": "labels", "file": str(labels.path), "links": int(made.sum())}
    return new
