"""The Claude epistemic proposer: the offline plan and tables, records written by Claude.

Seam: the offline rules decide *which* EPI objects and routes exist, build the four
tables (whose cells the cell checker verifies) and find the deciding lines; Claude
rewrites each EPI record from those lines and the function around them.  Calls go
through the runtime proposer's machinery (:class:`graph.proposers.claude.ClaudeProposer`):
the same retries, one corrective retry on schema-invalid output, call journal, prompt
cache marker and cost meter.  What the investigator tools of the model path will add
(a bounded read/grep/search loop per record, Claude-written tables and prose) plugs in
at :meth:`ClaudeEpistemicProposer.record_request` once that branch lands.

Model output is untrusted: a ``part_of`` that is not a runtime record of the input is
removed and flagged, so the draft never cites an invented record; a record the model
cannot deliver keeps the offline version, flagged with the reason.
"""

from __future__ import annotations

from importlib.resources import files
from typing import Any

from drafter.model import Record, Report, Witness
from graph.costs import BudgetExceeded
from graph.epistemic.offline import EpistemicContext, OfflineEpistemicProposer
from graph.proposer import ProposalRejected
from graph.proposers.claude import ClaudeProposer
from graph.proposers.claude_prompts import data_block
from graph.proposers.claude_schema import RECORD_TOOL_DEF, RecordDraft, to_record

CACHE = {"type": "ephemeral"}
#: Lines of the owning file shown around a record's witnesses.
CONTEXT_LINES = 12


def _prompt() -> str:
    return files("prompts").joinpath("epistemic_record.md").read_text(encoding="utf-8")


def shared_context(ctx: EpistemicContext, base: Report) -> str:
    """The run's cached block: the runtime records that may be cited, and the plan."""
    runtime = "\n".join(f"{r.id}: {r.label}" for r in ctx.runtime.report.records)
    plan = "\n".join(f"{r.id}: {r.label}" for r in base.records)
    return (
        f"System: {ctx.system}; SRC-1 is {ctx.identity} at {ctx.sha}.\n\n"
        + data_block("runtime_records", runtime or "(none)")
        + "\n\nEpistemic records planned for this draft:\n"
        + plan
    )


def _line_of(lines: list[str], w: Witness) -> int | None:
    """Where an offline witness sits: its line span, else the first line holding it."""
    if w.lines is not None:
        return w.lines.start
    head = " ".join(w.quote.split())[:60]
    for n, raw in enumerate(lines, start=1):
        if head and head in " ".join(raw.split()):
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


def guard(record: Record, allowed: set[str]) -> Record:
    """Drop a ``part_of`` the runtime input does not hold; never keep an invented ID."""
    if record.part_of is None or record.part_of in allowed:
        return record
    flag = f"part-of {record.part_of} is not a runtime record of the input; removed"
    return record.model_copy(update={"part_of": None, "flags": [*record.flags, flag]})


class ClaudeEpistemicProposer:
    """Epistemic drafts with Claude writing the EPI records."""

    name = "claude"

    def __init__(self, inner: ClaudeProposer):
        self.inner = inner
        self.offline = OfflineEpistemicProposer()
        self._shared = ""

    def attach_journal(self, journal: Any) -> None:
        self.inner.attach_journal(journal)

    def record_request(self, ctx: EpistemicContext, record: Record) -> dict[str, Any]:
        lines = "\n".join(f"- {w.quote} --- {w.path}" for w in record.witnesses)
        task = (
            f"Write record {record.id} (label so far: {record.label}). Part of, if any, must "
            f"be one of the runtime record IDs listed. Deciding lines found by the rules:\n"
            + data_block("deciding_lines", lines or "(none)")
        )
        return {
            "model": self.inner.model,
            "max_tokens": self.inner.max_tokens,
            "system": [
                {"type": "text", "text": _prompt()},
                {"type": "text", "text": self._shared, "cache_control": CACHE},
            ],
            "tools": [RECORD_TOOL_DEF],
            "tool_choice": {"type": "tool", "name": RECORD_TOOL_DEF["name"]},
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": task},
                        {"type": "text", "text": excerpt(ctx, record)},
                    ],
                }
            ],
        }

    def _rewrite(self, ctx: EpistemicContext, record: Record, allowed: set[str]) -> Record:
        request = self.record_request(ctx, record)
        try:
            new = self.inner._structured(  # the shared call path: retries, journal, costs
                request, RecordDraft, lambda d: to_record(d, record.id)
            )
        except ProposalRejected as exc:
            return record.model_copy(update={"flags": [*record.flags, f"model: {exc.reason}"]})
        except BudgetExceeded as exc:
            return record.model_copy(update={"flags": [*record.flags, f"offline version: {exc}"]})
        return guard(new, allowed)

    def draft(self, ctx: EpistemicContext) -> Report:
        base = self.offline.draft(ctx)
        self._shared = shared_context(ctx, base)
        allowed = ctx.runtime.ids
        for section in base.sections:
            section.records = [self._rewrite(ctx, r, allowed) for r in section.records]
        return base
