"""One evaluation: locate witnesses, align records, compute the scorecard.

Kept apart from the CLI so that suites, tests and the benchmark run exactly the same
steps as ``drafter eval``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from drafter import __version__
from drafter.model import Report
from drafter.snapshot import Snapshot
from evals.alignment import DEFAULT_METHOD, TEXT_WEIGHT, Side
from evals.baselines import (
    CONSTANT_SCORES,
    CONSTANT_STATUS,
    ENTRY_POINTS,
    RANDOM_WITNESSES,
    constant_record,
    entry_point_draft,
    random_witness_draft,
)
from evals.content import content_agreement
from evals.methods import align_with, default_threshold
from evals.metrics import score, witness_hits
from evals.scorecard import Scorecard
from evals.similarity import backend
from evals.structure import code_map
from evals.support import witness_support
from evals.witnesses import Locate, locate_report, witness_count


def verifier_locate(snapshot: Snapshot) -> Locate:
    """The project's verifier, bound to the snapshot: the one authority on quotes."""
    from drafter.verify import Verifier

    return Verifier(snapshot).verify


def reading_notes(gold: Report, draft: Report, sha: str) -> list[str]:
    """Warnings that change how the scores read; never silently "fixed"."""
    notes: list[str] = []
    if gold.type != draft.type:
        notes.append(
            f"gold is a {gold.type} report and the draft a {draft.type} one: their record "
            "kinds never align, only witness scores are comparable"
        )
    for name, rep in (("gold", gold), ("draft", draft)):
        rev = rep.source.revision if rep.source else None
        if rev and rev != sha:
            notes.append(
                f"the {name} names revision {rev[:12]}; its witnesses were located at {sha[:12]}"
            )
    return notes


def evaluate(
    gold: Report,
    draft: Report,
    snapshot: Snapshot,
    *,
    similarity: str = "embed",
    threshold: float | None = None,
    method: str = DEFAULT_METHOD,
    locate: Locate | None = None,
    progress: Callable[[int], Callable[[], None]] | None = None,
    gold_name: str = "",
    draft_name: str = "",
    baselines: bool = False,
    support: bool = False,
) -> Scorecard:
    """Score ``draft`` against ``gold`` at the snapshot's revision.

    ``progress``, if given, is called once with the number of witnesses to locate and
    returns a callback advanced once per witness (the CLI shows a rich bar with it).
    With ``baselines`` the trivial drafts of :mod:`evals.baselines` are scored on the
    same gold and carried in the scorecard beside the draft's figures; with
    ``support`` every record witness gets the heuristic support score of
    :mod:`evals.support`, the gold's as a reference.
    """
    started = time.perf_counter()
    text_similarity = backend(similarity)
    loc = locate or verifier_locate(snapshot)
    tick = progress(witness_count(gold) + witness_count(draft)) if progress else None
    gw = locate_report(gold, loc, tick)
    dw = locate_report(draft, loc, tick)
    located = time.perf_counter()
    threshold = default_threshold(method) if threshold is None else threshold
    cmap = code_map(snapshot)
    alignment = align_with(
        method,
        Side(gold.records, gw.by_record),
        Side(draft.records, dw.by_record),
        text_similarity,
        threshold=threshold,
        code_map=cmap if method in ("best-gold", "coverage", "coverage-mixed") else None,
    )
    aligned = time.perf_counter()
    hits = witness_hits(gw.all(), dw.all(), cmap)
    content = content_agreement(alignment, text_similarity)
    kinds, overall = score(alignment, hits, content)
    done = time.perf_counter()
    card = Scorecard(
        gold=gold,
        draft=draft,
        gold_name=gold_name,
        draft_name=draft_name,
        repository=snapshot.name,
        revision=snapshot.sha,
        similarity=similarity,
        threshold=threshold,
        text_weight=TEXT_WEIGHT,
        method=method,
        alignment=alignment,
        content=content,
        hits=hits,
        kinds=kinds,
        overall=overall,
        drafter_version=__version__,
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        notes=reading_notes(gold, draft, snapshot.sha),
        timings={
            "locate_s": located - started,
            "align_s": aligned - located,
            "score_s": done - aligned,
            "total_s": done - started,
        },
    )
    add_extras(card, snapshot, support=support, baselines=baselines)
    return card


def add_extras(card: Scorecard, snapshot: Snapshot, *, support: bool, baselines: bool) -> None:
    """Optional figures beside the scores: witness support and the baselines."""
    started = time.perf_counter()
    if support:
        text_similarity = backend(card.similarity)
        card.support = {
            "draft": witness_support(card.draft, text_similarity),
            "gold": witness_support(card.gold, text_similarity),
        }
        card.timings["support_s"] = time.perf_counter() - started
    if baselines:
        card.baselines = score_baselines(
            card, snapshot, card.similarity, card.threshold, card.method
        )
        card.timings["baselines_s"] = time.perf_counter() - started


def score_baselines(
    card: Scorecard, snapshot: Snapshot, similarity: str, threshold: float, method: str
) -> dict[str, dict[str, Any]]:
    """Overall scores of each baseline on the card's gold (see evals.baselines)."""
    out: dict[str, dict[str, Any]] = {}
    text_similarity = backend(similarity)
    # constant status: the draft's own pairs, each draft record answering the constant
    constant = {
        key: replace(
            ka,
            pairs=[replace(p, draft=constant_record(p.draft)) for p in ka.pairs],
        )
        for key, ka in card.alignment.items()
    }
    _, overall = score(constant, card.hits, content_agreement(constant, text_similarity))
    row = overall.to_dict()
    out[CONSTANT_STATUS] = {k: (v if k in CONSTANT_SCORES else None) for k, v in row.items()}
    for name, trivial in (
        (ENTRY_POINTS, entry_point_draft(snapshot)),
        (RANDOM_WITNESSES, random_witness_draft(card.draft, snapshot)),
    ):
        other = evaluate(
            card.gold, trivial, snapshot, similarity=similarity, threshold=threshold, method=method
        )
        out[name] = other.overall.to_dict()
    return out
