"""The Claude epistemic proposer: every EPI record and the framing through tool loops.

Seam: the offline rules decide *which* EPI objects and routes exist, build the four
tables and find each record's deciding lines.  Claude then investigates: one bounded
conversation per record (:class:`graph.proposers.agent.loop.ToolLoop` with the
snapshot tools of :mod:`graph.proposers.agent.tools`: read a file in pages, grep,
search, survey, follow a symbol, check its quotes) ending in ``submit_record``, and
one more conversation ending in ``submit_sections`` that rewrites the
Source-and-claim boundary, the Bounded conclusion and the table cells it can decide
(:mod:`graph.epistemic.claude_sections`).  Calls and tool answers go through the
runtime proposer (:class:`graph.proposers.claude.ClaudeProposer`): the same
retries, corrective turn, per-conversation tool budget, cache breakpoints, call and
tool journal (so ``--resume`` replays instead of paying), and cost meter.

Before the first paid call the run's estimate is announced (the record count is
exact: the offline plan decides it).  Once ``--max-cost`` is spent no further call is
made: records not yet drafted keep the offline version, flagged, and are listed as
missing, so the draft is partial and says so.

Model output is untrusted: a ``part_of`` that is not a runtime record is removed and
flagged, an unknown record ID in the prose or a cell is removed and reported
(:mod:`graph.epistemic.idguard`); a record the model cannot deliver keeps the offline
version, flagged with the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.resources import files

from drafter.model import Flag, FlagKind, Record, Report, Witness
from drafter.text import collapse
from graph.costs import BudgetExceeded
from graph.epistemic.claude_sections import (
    SECTIONS_TOOL_DEF,
    SectionsDraft,
    apply_sections,
    sections_data,
)
from graph.epistemic.estimate import EpiEstimate, estimate_epistemic
from graph.epistemic.idguard import guard_record
from graph.epistemic.offline import OfflineEpistemicProposer
from graph.epistemic.proposer import EpistemicContext, EpistemicProposer
from graph.proposer import ProposalRejected, RunHandles
from graph.proposers.agent.loop import CACHE, Phase, ResultT, ToolLoop, Transcript
from graph.proposers.agent.prompts import LEAD_HINTS, data_block
from graph.proposers.agent.schema import RECORD_TOOL_DEF, RecordDraft, to_record
from graph.proposers.claude import ClaudeProposer

#: Lines of the owning file shown around a record's witnesses.
CONTEXT_LINES = 12
ROUTE_FIELDS = (
    ", and the seven route fields: Immediate return, Later read-back, Delegated visibility, "
    "Selection predicate, Invalidation or expiry, Activation or effect, Evidence limits "
    '(say "not shown" when the source does not tell)'
)


def _prompt(name: str) -> str:
    return files("prompts").joinpath(f"{name}.md").read_text(encoding="utf-8")


def shared_context(ctx: EpistemicContext, base: Report) -> str:
    """The run's cached block: the runtime records that may be cited, and the plan."""
    runtime = "\n".join(f"{r.id}: {r.label}" for r in ctx.runtime.report.records)
    plan = "\n".join(f"{r.id}: {r.label}" for r in base.records)
    return (
        f"System: {ctx.system}; SRC-1 is {ctx.identity} at {ctx.sha}.\n\n"
        "Runtime record IDs you may cite (no others exist):\n"
        + data_block("runtime_records", runtime or "(none)")
        + "\n\nEpistemic records planned for this draft:\n"
        + plan
    )


def _line_of(lines: list[str], w: Witness) -> int | None:
    """Where an offline witness sits: its line span, else the first line holding it."""
    if w.lines is not None:
        return w.lines.start
    head = collapse(w.quote)[:60]
    for n, raw in enumerate(lines, start=1):
        if head and head in collapse(raw):
            return n
    return None


def excerpt(ctx: EpistemicContext, record: Record) -> str:
    """The numbered source lines around each witness of the offline record."""
    parts: list[str] = []
    for w in record.witnesses:
        lines = ctx.text_of(w.path) or []
        at = _line_of(lines, w)
        if at is None:
            continue
        lo = max(1, at - CONTEXT_LINES)
        hi = min(len(lines), at + CONTEXT_LINES)
        body = "\n".join(f"{n:>5}  {lines[n - 1]}" for n in range(lo, hi + 1))
        parts.append(data_block("source", body, path=w.path, lines=f"{lo}-{hi}"))
    return "\n\n".join(parts) or "(no verified lines)"


class ClaudeEpistemicProposer(EpistemicProposer):
    """Epistemic drafts with Claude investigating each EPI record and the framing."""

    name = "claude"

    def __init__(self, inner: ClaudeProposer, announce: Callable[[str], None] | None = None):
        super().__init__()
        self.inner = inner
        self.offline = OfflineEpistemicProposer()
        self.announce = announce
        self._shared = ""
        self.estimate: EpiEstimate | None = None

    @property
    def model(self) -> str | None:
        return self.inner.model

    def start(self, run: RunHandles) -> None:
        """Journal the calls; the investigation tools read this run's snapshot, survey
        and verifier."""
        self.inner.start(run)

    # -- requests -------------------------------------------------------------------

    def _loop(self, key: str, phase: Phase[ResultT]) -> ToolLoop[ResultT]:
        tools = self.inner.tools
        self.inner.transcripts[key] = Transcript()
        return ToolLoop(
            send=self.inner._send,  # journal, retries, budget check, meter
            base={
                "model": self.inner.model,
                "max_tokens": self.inner.max_tokens,
                "system": [
                    {"type": "text", "text": _prompt("epistemic_record")},
                    {"type": "text", "text": self._shared, "cache_control": CACHE},
                ],
            },
            phase=phase,
            tool_defs=self.inner.tool_defs(),
            run_tool=self.inner._run_tool if tools is not None else None,
            transcript=self.inner.transcripts[key],
        )

    def record_opening(self, ctx: EpistemicContext, record: Record) -> list[str]:
        lines = "\n".join(f"- {w.quote} --- {w.path}" for w in record.witnesses)
        task = _prompt("epistemic_task").format(
            record_id=record.id,
            label=record.label,
            kind=record.kind,
            budget=self.inner.budgets.record,
            lead_hint=LEAD_HINTS.get(record.kind, ""),
            route_fields=ROUTE_FIELDS if record.kind == "RTE" else "",
            deciding_lines=data_block("deciding_lines", lines or "(none)"),
        )
        return [task, excerpt(ctx, record)]

    def sections_opening(self, report: Report) -> list[str]:
        records = "\n".join(f"- {r.id}: {r.label}" for r in report.records) or "(none)"
        task = _prompt("epistemic_sections").format(
            budget=self.inner.budgets.account, records=records
        )
        return [task, sections_data(report)]

    # -- drafting -------------------------------------------------------------------

    def _record(
        self, opening: list[str], record: Record, runtime: set[str], known: set[str]
    ) -> Record:
        phase = Phase(
            RECORD_TOOL_DEF,
            RecordDraft,
            lambda d: to_record(d, record.id),
            self.inner.budgets.record,
            "with shorter paragraphs and at most five witnesses",
        )
        try:
            new = self._loop(record.id, phase).run(opening)
        except ProposalRejected as exc:
            flag = Flag(kind=FlagKind.model_rejected, text=f"model: {exc.reason}")
            return record.model_copy(update={"flags": [*record.flags, flag]})
        except BudgetExceeded as exc:
            self.missing.append(record.id)
            flag = Flag(
                kind=FlagKind.not_drafted, text=f"not drafted by the model ({exc}); offline version"
            )
            return record.model_copy(update={"flags": [*record.flags, flag]})
        t = self.inner.transcripts[record.id]
        self.notes.append(
            f"{record.id}: {t.turns} paid call(s), tools {', '.join(t.calls) or 'none'}"
        )
        return guard_record(new, runtime, known)

    def _sections(self, report: Report, known: set[str]) -> None:
        phase = Phase(
            SECTIONS_TOOL_DEF,
            SectionsDraft,
            lambda d: d,
            self.inner.budgets.account,
            "in fewer words",
        )
        try:
            draft = self._loop("sections", phase).run(self.sections_opening(report))
        except ProposalRejected as exc:
            self.notes.append(f"sections: the rules' text kept (model: {exc.reason})")
            return
        except BudgetExceeded as exc:
            self.missing.append("sections (boundary, conclusion, table cells)")
            self.notes.append(f"sections: the rules' text kept ({exc})")
            return
        self.notes.extend(apply_sections(report, draft, known))

    def plan(self, ctx: EpistemicContext) -> tuple[Report, dict[str, list[str]]]:
        """The offline draft this run starts from, the shared block, every record's
        opening and the estimate; nothing is sent."""
        base = self.offline.draft(ctx)
        self._shared = shared_context(ctx, base)
        openings = {r.id: self.record_opening(ctx, r) for r in base.records}
        self.estimate = estimate_epistemic(
            self.inner.model,
            len(_prompt("epistemic_record")) + len(self._shared),
            [sum(len(t) for t in o) for o in openings.values()],
            sum(len(t) for t in self.sections_opening(base)),
            self.inner.budgets.record,
            self.inner.budgets.account,
        )
        return base, openings

    def draft(self, ctx: EpistemicContext) -> Report:
        self.notes, self.missing = [], []
        base, openings = self.plan(ctx)
        line = self.estimate.line(self.max_cost) if self.estimate else ""
        self.notes.append(line)
        if self.announce is not None:  # before the first paid call
            self.announce(line)
        runtime = set(ctx.runtime.ids)
        known = runtime | {r.id for r in base.records}
        for section in base.sections:
            section.records = [
                self._record(openings[r.id], r, runtime, known) for r in section.records
            ]
        self._sections(base, known)
        return base
