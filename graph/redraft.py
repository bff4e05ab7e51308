"""Redraft what the analyst rejected: the review loop's way back to the drafter.

Why through the graph and not a direct proposer call: a redrafted record must meet the
same bar as any drafted one — the same record context, the verifier, repair rounds,
the ``--max-cost`` budget, the checkpoint and the call journal.  So a redraft is an
ordinary run whose proposer is wrapped by :class:`RedraftProposer`, which

- plans only the records to redraft (no planning call to a model): each rejected
  record becomes a plan item whose rationale carries the analyst's note, so the note
  is in the record request the model sees;
- offline, where the rules cannot read a note, asks the offline planner for its full
  ranking and picks for each rejected record the best-ranked candidate of the same
  kind that the draft does not already hold (none left: the record is dropped);
- writes no account (the draft's account is kept; no model call for it).

The result is merged into the old draft (:func:`merge_redraft`): untouched records
are byte-identical, so their decisions survive (ID + content hash); a redrafted record
keeps its ID and shows "changed since review", with its previous version kept in
``meta.extra`` for the diff; every note is kept in ``meta.notes`` and on the record.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from drafter.model import AccountSection, Flag, FlagKind, Record, Report
from drafter.review_identity import derive_meta
from drafter.review_store import Mark, ReviewStore
from graph.jsontypes import JsonDict
from graph.proposer import (
    AccountContext,
    Miss,
    Plan,
    PlanContext,
    PlanItem,
    Proposer,
    RecordContext,
    RunHandles,
    RuntimeProposer,
)

if TYPE_CHECKING:  # graph.runner is imported when a redraft runs, not with this module
    from graph.configuration import Configuration
    from graph.resources import Resources
    from graph.runner import ProposerFactory, RunResult

#: ``meta.extra`` key holding the previous version of each redrafted record.
PREVIOUS_KEY = "previous_versions"
#: Prefix of the flag on a redrafted record.
REDRAFT_FLAG = "redrafted after review"
MAX_FILES = 4


@dataclass(frozen=True, slots=True)
class Target:
    """A rejected record and what the analyst wrote about it."""

    record: Record
    note: str


def redraft_targets(report: Report, store: ReviewStore) -> list[Target]:
    """Records rejected with a reason, in report order; notes join the reason."""
    states = store.states(report.records)
    out: list[Target] = []
    for r in report.records:
        st = states[r.id]
        if st.mark != Mark.rejected or not (st.reason or "").strip():
            continue
        parts = [st.reason or "", *st.current_notes]
        out.append(Target(r, " ".join(p.strip() for p in parts if p.strip())))
    return out


def item_for(t: Target) -> PlanItem:
    """A plan item that asks for ``t`` again, with the analyst's note as its rationale."""
    files: list[str] = []
    for w in t.record.witnesses:
        if w.path not in files:
            files.append(w.path)
    return PlanItem(
        id=t.record.id,
        kind=t.record.kind,
        label=t.record.label,
        files=files[:MAX_FILES],
        rationale=(
            "An analyst reviewed an earlier version of this record and rejected it. "
            f"The analyst's note: {t.note} "
            "Write the record again so that it answers this note."
        ),
    )


@dataclass
class RedraftProposer(RuntimeProposer):
    """Wraps the run's real proposer; see the module docstring."""

    inner: Proposer
    targets: list[Target]
    existing: set[str]
    offline: bool
    #: rejected record ID -> the ID of the record drafted in its place
    replaced_by: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.name = f"redraft:{self.inner.name}"
        self.wants_chunks = self.inner.wants_chunks

    def start(self, run: RunHandles) -> None:
        self.inner.start(run)

    def prepare(self, ctx: PlanContext) -> None:
        self.inner.prepare(ctx)

    def plan(self, ctx: PlanContext) -> Plan:
        if not self.offline:
            items = [item_for(t) for t in self.targets]
            self.replaced_by = {t.record.id: t.record.id for t in self.targets}
            return Plan(system=ctx.system, items=items)
        ranked = self.inner.plan(ctx.model_copy(update={"max_records": 10_000}))
        taken = set(self.existing)
        items = []
        for t in self.targets:
            cand = next(
                (i for i in ranked.items if i.kind == t.record.kind and i.id not in taken), None
            )
            if cand is not None:
                taken.add(cand.id)
                items.append(cand)
                self.replaced_by[t.record.id] = cand.id
        return Plan(system=ctx.system, items=items)

    def draft_record(self, ctx: RecordContext) -> Record | None:
        return self.inner.draft_record(ctx)

    def repair_record(
        self, ctx: RecordContext, record: Record, misses: list[Miss]
    ) -> Record | None:
        return self.inner.repair_record(ctx, record, misses)

    def account(self, ctx: AccountContext) -> list[AccountSection]:
        return []  # the draft's own account is kept


def merge_redraft(
    old: Report,
    targets: list[Target],
    replaced_by: dict[str, str],
    drafted: Report | None,
    fmt: str = "json",
) -> tuple[Report, list[str]]:
    """The old draft with each target replaced (or dropped); returns (draft, what happened)."""
    new_records = {r.id: r for r in (drafted.records if drafted else [])}
    by_target = {t.record.id: t for t in targets}
    out = old.model_copy(deep=True)
    out.meta = derive_meta(old, fmt)
    previous: JsonDict = dict(out.meta.extra.get(PREVIOUS_KEY) or {})
    log: list[str] = []
    for sec in out.sections:
        kept: list[Record] = []
        for r in sec.records:
            t = by_target.get(r.id)
            if t is None:
                kept.append(r)
                continue
            got = new_records.get(replaced_by.get(r.id, ""))
            if got is None and r.id in replaced_by and replaced_by[r.id] == r.id:
                kept.append(r)  # a model redraft that failed: the rejected version stays
                log.append(f"{r.id}: redraft failed; the rejected version is kept")
                continue
            if got is None:
                log.append(f"{r.id}: dropped (no other candidate of its kind); note: {t.note}")
                continue
            got = got.model_copy(deep=True)
            text = f"{REDRAFT_FLAG}; analyst's note: {t.note}"
            got.flags = [*got.flags, Flag(kind=FlagKind.redrafted, text=text)]
            if got.id == r.id:
                previous[r.id] = r.model_dump(mode="json")
                log.append(f"{r.id}: redrafted with the analyst's note")
            else:
                log.append(f"{r.id}: replaced by {got.id}; note: {t.note}")
            kept.append(got)
        sec.records = kept
    out.meta.extra[PREVIOUS_KEY] = previous
    out.meta.notes = [*out.meta.notes, *log]
    return out, log


def previous_version(report: Report, record_id: str) -> Record | None:
    """The version of ``record_id`` the analyst reviewed before a redraft, if any."""
    raw = (report.meta.extra.get(PREVIOUS_KEY) or {}).get(record_id) if report.meta else None
    return Record.model_validate(raw) if raw else None


@dataclass
class RedraftResult:
    report: Report
    log: list[str]
    targets: list[Target]
    run: RunResult | None = None  # None when nothing was redrafted


def run_redraft(
    report: Report,
    store: ReviewStore,
    repo: str,
    config: Configuration,
    proposer_factory: ProposerFactory,
    *,
    fmt: str = "json",
    **run_kw: Any,
) -> RedraftResult:
    """Redraft the records of ``report`` rejected with a note, through the graph."""
    from graph.runner import run_draft

    targets = redraft_targets(report, store)
    if not targets:
        return RedraftResult(report, [], [])
    rev = report.source.revision if report.source else None
    if not rev:
        from drafter.errors import BadInput

        raise BadInput("the draft names no pinned revision to redraft at")
    made: list[RedraftProposer] = []

    def factory(cfg: Configuration, resources: Resources) -> RedraftProposer:
        wrapper = RedraftProposer(
            proposer_factory(cfg, resources),
            targets,
            {r.id for r in report.records},
            offline=cfg.generator == "offline",
        )
        made.append(wrapper)
        return wrapper

    run = run_draft(repo, rev, config, factory, system=report.system, **run_kw)
    merged, log = merge_redraft(report, targets, made[-1].replaced_by, run.report, fmt)
    return RedraftResult(merged, log, targets, run)
