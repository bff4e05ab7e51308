"""One evaluation: locate witnesses, align records, compute the scorecard.

Kept apart from the CLI so that suites, tests and the benchmark run exactly the same
steps as ``drafter eval``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime

from drafter import __version__
from drafter.model import Report
from drafter.snapshot import Snapshot
from evals.alignment import DEFAULT_THRESHOLD, TEXT_WEIGHT, Side, align
from evals.metrics import score, witness_hits
from evals.scorecard import Scorecard
from evals.similarity import backend
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
    threshold: float = DEFAULT_THRESHOLD,
    locate: Locate | None = None,
    progress: Callable[[int], Callable[[], None]] | None = None,
    gold_name: str = "",
    draft_name: str = "",
) -> Scorecard:
    """Score ``draft`` against ``gold`` at the snapshot's revision.

    ``progress``, if given, is called once with the number of witnesses to locate and
    returns a callback advanced once per witness (the CLI shows a rich bar with it).
    """
    started = time.perf_counter()
    text_similarity = backend(similarity)
    loc = locate or verifier_locate(snapshot)
    tick = progress(witness_count(gold) + witness_count(draft)) if progress else None
    gw = locate_report(gold, loc, tick)
    dw = locate_report(draft, loc, tick)
    located = time.perf_counter()
    alignment = align(
        Side(gold.records, gw.by_record),
        Side(draft.records, dw.by_record),
        text_similarity,
        threshold=threshold,
    )
    aligned = time.perf_counter()
    hits = witness_hits(gw.all(), dw.all())
    kinds, overall = score(alignment, hits)
    done = time.perf_counter()
    return Scorecard(
        gold=gold,
        draft=draft,
        gold_name=gold_name,
        draft_name=draft_name,
        repository=snapshot.identity,
        revision=snapshot.sha,
        similarity=similarity,
        threshold=threshold,
        text_weight=TEXT_WEIGHT,
        alignment=alignment,
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
