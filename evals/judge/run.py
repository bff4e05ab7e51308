"""Judging one pair: a request per reference record, the cache, the caps, the links.

Why at most one call per reference record, and none for a record with no candidate:
the shortlist (:mod:`evals.judge.shortlist`) already bounds what the judge reads, so
the cost of a pair is known before the first call (:func:`estimate`) and grows with
the reference report, not with the draft.  ``--max-cost`` and ``--max-tokens-total``
are checked before every paid call against what that call may cost at most (its
prompt, and :data:`MAX_TOKENS` of answer); at the cap the run stops with exit 1 and
every answer so far is already in the cache, so the next run pays only for the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from drafter.errors import DrafterError
from drafter.prices import Price, call_cost
from evals.alignment import Side
from evals.judge.cache import AnswerCache
from evals.judge.model import JudgeModel, Reply
from evals.judge.request import MAX_TOKENS, JudgeRequest, build_request
from evals.judge.shortlist import file_overlap, named_files, shortlist

#: Characters per token for the estimate and the caps: the drafting path's figure
#: (graph.estimate), which errs high for English prose and JSON.
CHARS_PER_TOKEN = 3.5
#: USD a judged eval may spend when ``--max-cost`` is not given.
DEFAULT_MAX_COST = 2.0

Source = Literal["model", "cache", "no candidates"]


class JudgeCapReached(DrafterError):
    """A cap stopped the judge before every reference record was judged."""

    exit_code = 1


@dataclass(frozen=True, slots=True)
class Judgement:
    """The verdict on one reference record (the label form, plus where it came from)."""

    gold: str
    candidates: tuple[str, ...]
    best: str | None
    also: tuple[str, ...]
    reason: str
    source: Source
    refused: str | None = None
    cost: float | None = None
    tokens: int = 0
    #: One line per ``also`` entry, same order (empty for an older cached answer).
    also_reasons: tuple[str, ...] = ()

    @property
    def why(self) -> dict[str, str]:
        """Each covering draft record's one-line reason (best: the main reason)."""
        out = {self.best: self.reason} if self.best else {}
        out.update(zip(self.also, self.also_reasons, strict=False))
        return out

    @property
    def covering(self) -> tuple[str, ...]:
        return ((self.best,) if self.best else ()) + self.also


@dataclass(slots=True)
class JudgeRun:
    """Every judgement of a pair, with what the calls cost now and what the cached
    answers cost when they were asked."""

    model: str
    judgements: list[Judgement] = field(default_factory=list)
    calls: int = 0
    cached: int = 0
    cost: float | None = 0.0
    cached_cost: float | None = 0.0
    tokens: int = 0

    @property
    def refused(self) -> list[Judgement]:
        return [j for j in self.judgements if j.refused]

    def links(self, gold_ids: Sequence[str], draft_ids: Sequence[str]) -> np.ndarray:
        """Boolean matrix (gold rows, draft columns) of the judged links."""
        out = np.zeros((len(gold_ids), len(draft_ids)), dtype=bool)
        col = {d: j for j, d in enumerate(draft_ids)}
        row = {g: i for i, g in enumerate(gold_ids)}
        for jd in self.judgements:
            for d in jd.covering:
                out[row[jd.gold], col[d]] = True
        return out


def plan(
    model: str,
    gold: Side,
    draft: Side,
    score: np.ndarray,
    linked: np.ndarray,
    *,
    kind_free: np.ndarray | None = None,
    text: np.ndarray | None = None,
) -> list[JudgeRequest | str]:
    """Per reference record, its request, or its ID alone when nothing is shortlisted."""
    files = file_overlap(
        [named_files(r, w) for r, w in zip(gold.records, gold.witnesses, strict=True)],
        [named_files(r, w) for r, w in zip(draft.records, draft.witnesses, strict=True)],
    )
    lists = shortlist(score, linked, kind_free=kind_free, text=text, files=files)
    labels = {r.id: r.label for r in gold.records}
    out: list[JudgeRequest | str] = []
    for i, cands in enumerate(lists):
        g = gold.records[i]
        if not cands:
            out.append(g.id)
            continue
        out.append(
            build_request(
                model,
                (g, gold.witnesses[i]),
                [(draft.records[j], draft.witnesses[j]) for j in cands],
                labels,
            )
        )
    return out


def prompt_tokens(request: JudgeRequest) -> int:
    return int(len(request.text()) / CHARS_PER_TOKEN) + 1


@dataclass(frozen=True, slots=True)
class Estimate:
    """What judging a pair will take, before any call."""

    reference_records: int
    calls: int  # uncached requests: what a run will send
    cached: int
    input_tokens: int
    output_tokens: int  # at most: MAX_TOKENS per call
    cost: float | None  # at most, at the price; None without one

    def line(self) -> str:
        usd = "no price known" if self.cost is None else f"at most ${self.cost:.4f}"
        return (
            f"judge estimate: {self.reference_records} reference records, {self.calls} "
            f"calls ({self.cached} answered from the cache, "
            f"{self.reference_records - self.calls - self.cached} with no candidate); "
            f"~{self.input_tokens:,} input + <= {self.output_tokens:,} output tokens; {usd}"
        )


def estimate(
    requests: Sequence[JudgeRequest | str], cache: AnswerCache, price: Price | None
) -> Estimate:
    asks = [r for r in requests if isinstance(r, JudgeRequest)]
    todo = [r for r in asks if cache.get(r) is None]
    tin = sum(prompt_tokens(r) for r in todo)
    tout = MAX_TOKENS * len(todo)
    cost = call_cost(price, {"input_tokens": tin, "output_tokens": tout})
    return Estimate(len(requests), len(todo), len(asks) - len(todo), tin, tout, cost)


@dataclass(frozen=True, slots=True)
class Caps:
    max_cost: float | None
    max_tokens_total: int | None
    price: Price | None


def judge_pair(
    requests: Sequence[JudgeRequest | str],
    model: JudgeModel | None,
    cache: AnswerCache,
    caps: Caps,
    *,
    model_name: str,
    tick: Callable[[], None] | None = None,
) -> JudgeRun:
    """Judge every reference record: from the cache, else by one call to ``model``
    (None: a run that may not call, e.g. when every answer must be cached)."""
    run = JudgeRun(model_name)
    for req in requests:
        if isinstance(req, str):
            run.judgements.append(
                Judgement(
                    req, (), None, (), "no draft record reached the shortlist", "no candidates"
                )
            )
        else:
            run.judgements.append(_one(req, model, cache, caps, run))
        if tick is not None:
            tick()
    return run


def _add(total: float | None, cost: float | None) -> float | None:
    return None if total is None or cost is None else total + cost


def _one(
    req: JudgeRequest, model: JudgeModel | None, cache: AnswerCache, caps: Caps, run: JudgeRun
) -> Judgement:
    hit = cache.get(req)
    if hit is not None:
        reply, cost = hit
        run.cached += 1
        run.cached_cost = _add(run.cached_cost, cost)
        return _judgement(req, reply, "cache", cost)
    if model is None:
        raise JudgeCapReached(f"{req.gold_id}: no cached answer and no model to ask")
    _check_caps(req, caps, run)
    reply = model.ask(req)
    cost = call_cost(caps.price, reply.usage)
    cache.put(req, reply, cost)
    run.calls += 1
    run.cost = _add(run.cost, cost)
    run.tokens += sum(v or 0 for v in reply.usage.values())
    return _judgement(req, reply, "model", cost)


def _check_caps(req: JudgeRequest, caps: Caps, run: JudgeRun) -> None:
    worst_in, worst_out = prompt_tokens(req), MAX_TOKENS
    done = f"after {run.calls} calls; every answer so far is cached, so a rerun pays only the rest"
    if (
        caps.max_tokens_total is not None
        and run.tokens + worst_in + worst_out > caps.max_tokens_total
    ):
        raise JudgeCapReached(
            f"the judge stopped at --max-tokens-total {caps.max_tokens_total:,} {done}"
        )
    worst = call_cost(caps.price, {"input_tokens": worst_in, "output_tokens": worst_out})
    if (
        caps.max_cost is not None
        and worst is not None
        and (run.cost or 0.0) + worst > caps.max_cost
    ):
        raise JudgeCapReached(f"the judge stopped at --max-cost ${caps.max_cost:g} {done}")


def _judgement(req: JudgeRequest, reply: Reply, source: Source, cost: float | None) -> Judgement:
    tokens = sum(v or 0 for v in reply.usage.values())
    if reply.answer is None:
        why = reply.refused or "no answer"
        return Judgement(
            req.gold_id, req.candidates, None, (), f"refused: {why}", source, why, cost, tokens
        )
    a = reply.answer
    return Judgement(
        req.gold_id,
        req.candidates,
        a.best,
        a.also,
        a.reason,
        source,
        None,
        cost,
        tokens,
        a.also_reasons,
    )
