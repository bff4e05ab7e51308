"""Assemble the draft: the canonical Report JSON with its provenance.

Records are placed in the format's section order, in plan order within a section;
duplicate IDs (possible when a proposer ignores the plan) are renamed and flagged;
usage per node, what is missing and the run's notes go into ``DraftMeta`` so a
partial draft says what it lacks.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from langgraph.runtime import Runtime

from drafter import __version__
from drafter.ids import unique_id
from drafter.model import (
    KIND_SECTION,
    RUNTIME_SECTIONS,
    RUNTIME_TYPE_PATH,
    AccountSection,
    DraftCounts,
    DraftMeta,
    Flag,
    FlagKind,
    Record,
    RecordSection,
    Report,
    ReportType,
    Source,
)
from drafter.repository import location_of
from graph.configuration import RunContext
from graph.costs import summarize
from graph.jsontypes import JsonDict
from graph.nodes.common import record_from_state
from graph.state import DraftState

RUNTIME_ACCOUNT = "Runtime account"


def _unique(records: list[Record]) -> list[Record]:
    seen: set[str] = set()
    out: list[Record] = []
    for r in records:
        rid = unique_id(r.id, seen)
        if rid != r.id:
            r = r.model_copy(
                update={
                    "id": rid,
                    "flags": [
                        *r.flags,
                        Flag(kind=FlagKind.renamed, text=f"renamed from duplicate ID {r.id}"),
                    ],
                }
            )
        out.append(r)
    return out


def _flag_dangling(records: list[Record]) -> list[Record]:
    """Flag a record that cites a runtime record the draft does not hold (a planned
    record that was not drafted, or an ID a model invented): the reviewer sees it, the
    outcome counts it, and ``drafter verify`` fails on it."""
    held = {r.id for r in records}
    out = []
    for r in records:
        probe = Report(
            system="-", type=ReportType.runtime, sections=[RecordSection(title="-", records=[r])]
        )
        missing = sorted({d.id for d in probe.dangling() if d.id not in held})
        if missing:
            flags = [
                Flag(
                    kind=FlagKind.dangling_citation,
                    text=f"cites {rid}, which is not a record of this draft",
                )
                for rid in missing
            ]
            r = r.model_copy(update={"flags": [*r.flags, *flags]})
        out.append(r)
    return out


def build_report(state: DraftState, generator: str, model: str | None) -> Report:
    order = [i["id"] for i in (state.get("plan") or {}).get("items", [])]
    drafts = state.get("drafts") or {}
    ordered = [d for i in order if (d := drafts.get(i))] + [
        d for k, d in drafts.items() if d and k not in order
    ]
    records = _flag_dangling(_unique([record_from_state(r) for r in ordered]))
    sections = []
    for title in RUNTIME_SECTIONS:
        if title == "Evidenced absences":
            sections.append(RecordSection(title=title, note="none declared in this member"))
            continue
        kind = {v: k for k, v in KIND_SECTION.items()}[title]
        sections.append(RecordSection(title=title, records=[r for r in records if r.kind == kind]))
    account_blocks: list[Any] = []
    for sec in state.get("account") or []:
        s = AccountSection.model_validate(sec)
        if s.title and s.title != RUNTIME_ACCOUNT:
            account_blocks.append({"type": "heading", "text": s.title})
        account_blocks.extend(b.model_dump(mode="json") for b in s.blocks)
    account = [AccountSection.model_validate({"title": RUNTIME_ACCOUNT, "blocks": account_blocks})]
    dropped = {
        k: v for k, v in (state.get("outcomes") or {}).items() if v.get("status") != "drafted"
    }
    meta = DraftMeta(
        generator=generator,
        model=model,
        created=datetime.now(UTC).replace(microsecond=0).isoformat(),
        drafter_version=__version__,
        usage=summarize(state.get("usage") or []),
        missing=list(dict.fromkeys(state.get("missing") or [])),
        notes=list(dict.fromkeys(state.get("notes") or [])),
        counts=DraftCounts(
            account_witnesses_dropped=state.get("account_dropped", 0),
            plan_failed=state.get("plan_failed", False),
        ),
        extra={
            "thread_id": state.get("thread_id"),
            "repair_rounds_used": state.get("round", 0),
            "not_drafted": dropped,
        },
    )
    return Report(
        system=state.get("system") or "system",
        type=ReportType.runtime,
        type_path=RUNTIME_TYPE_PATH,
        source=Source(
            repository=state["identity"],
            revision=state["sha"],
            location=location_of(state["repo"]) if state.get("repo") else None,
        ),
        account=account,
        sections=sections,
        annotations="none",
        meta=meta,
    )


def assemble(state: DraftState, runtime: Runtime[RunContext]) -> JsonDict:
    cfg = runtime.context.config
    model = cfg.model if cfg.generator != "offline" else None
    report = build_report(state, runtime.context.proposer.name, model)
    res = runtime.context.resources
    if res.use_index and report.meta is not None:
        # what the index read and what it left out: the analyst knows what was not read
        report.meta.notes = list(dict.fromkeys([*report.meta.notes, *res.coverage()]))
        report.meta.extra["index"] = res.coverage_counts()
    return {"report": report.model_dump(mode="json")}
