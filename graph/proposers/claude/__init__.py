"""The Claude proposer: plan, records, repairs and the account through the Messages API.

Every item is one bounded investigation (:mod:`graph.proposers.agent.loop`): the
model may call the snapshot tools of :mod:`graph.proposers.agent.tools` (read a file
in pages, grep, search, follow a symbol, check its quotes) within a per-phase budget,
and must end with the phase's terminal tool (``submit_plan``, ``submit_record``,
``submit_account``), whose input is validated against a pydantic schema.  Output is
untrusted: an invalid submission gets exactly one corrective turn; a second failure,
a model that never submits within its budget, or an answer cut twice by
``max_tokens`` raises :class:`graph.proposer.ProposalRejected` and the workflow keeps
the reason.  The system prompt and the run's shared context come first with a
``cache_control`` marker, as do the tool definitions and the newest turn, so each turn
reads everything before it from the prompt cache.  Every paid call and every tool
answer is journalled (:mod:`graph.journal`), and usage of every response is charged
to the current node's meter (:mod:`graph.costs`).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anthropic
import httpx2
from anthropic.types import Message
from pydantic import BaseModel

from drafter.model import AccountSection, Record
from graph import costs
from graph.context_window import WindowOverflow, WindowSizes, fit_request
from graph.interrupt import paid_call
from graph.journal import CallJournal
from graph.jsontypes import JsonDict
from graph.proposer import (
    AccountContext,
    Miss,
    Plan,
    PlanContext,
    PlanItem,
    ProposalRejected,
    ReadRange,
    RecordContext,
    RunHandles,
    RuntimeProposer,
)
from graph.proposers.agent.claims import promises_section, state_section
from graph.proposers.agent.context import (
    LinesFn,
    PageFn,
    RecordData,
    SpanFn,
    build_record_data,
)
from graph.proposers.agent.facts import FactCheck
from graph.proposers.agent.fold import Folding
from graph.proposers.agent.loop import (
    CACHE,
    MIN_ROOM,
    REQUEST_CEILING,
    Phase,
    ResultT,
    ToolLoop,
    Transcript,
    body_size,
)
from graph.proposers.agent.map import nearby_files
from graph.proposers.agent.prompts import (
    KIND_HINTS,
    LEAD_HINTS,
    data_block,
    load_prompt,
    render,
    shared_context,
)
from graph.proposers.agent.quota import PlanQuota, claim_slots
from graph.proposers.agent.requests import (
    README_LINES,
    account_data,
    finding_ids,
    orientation,
    readme_path,
    text_pages,
)
from graph.proposers.agent.review import submission_misses
from graph.proposers.agent.schema import (
    ACCOUNT_TOOL_DEF,
    PLAN_TOOL_DEF,
    RECORD_TOOL_DEF,
    WITNESS_PREFERENCE,
    AccountDraft,
    RecordDraft,
    from_record,
    to_account,
    to_record,
)
from graph.proposers.agent.tools import ReadFileInput, SnapshotTools, tool_definitions
from graph.proposers.context_paths import Siblings
from graph.proposers.providers.anthropic import AnthropicTransport, make_client
from graph.proposers.providers.retry import RequestRefused, RetryPolicy
from graph.proposers.providers.transport import Transport
from graph.resources import Resources

#: Bytes the planner's first request may take: the finding-ID index gets what the
#: rest leaves, so the turns that follow have room under the request ceiling.
PLAN_OPENING_BYTES = 46_000
#: Bytes a first request keeps free under the ceiling beside its data turn (the cache
#: marker and the JSON framing of the data block).
FRAMING_MARGIN = 300


@dataclass(frozen=True)
class ToolBudgets:
    """Tool calls each kind of conversation may make before it must submit."""

    plan: int = 15
    record: int = 12
    repair: int = 6
    account: int = 10


class ClaudeProposer(RuntimeProposer):
    """Implements :class:`graph.proposer.Proposer` with Claude."""

    name = "claude"

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        http_client: httpx2.Client | None = None,
        client: anthropic.Anthropic | None = None,
        retry: RetryPolicy | None = None,
        max_tokens: int = 8192,
        plan_max_tokens: int = 16000,
        timeout: float = 300.0,
        budgets: ToolBudgets | None = None,
        price: costs.PriceSpec = "table",
        window: WindowSizes | None = None,
        transport: Transport | None = None,
        provider: str = "anthropic",
    ):
        self.model = model
        self.retry = retry or RetryPolicy()
        #: Where the loop's requests go (graph.proposers.providers.transport); by default the
        #: Anthropic SDK's client.
        self.transport: Transport = transport or AnthropicTransport(
            client or make_client(api_key, http_client=http_client, timeout=timeout),
            self.retry,
        )
        if provider != "anthropic":
            self.name = provider  # the draft's generator names who drafted it
        #: What a call costs (graph.pricing); None: no known price, cost left unknown.
        self.price = price
        #: A smaller context window (graph.context_window): output limits and tool pages
        #: shrink, and every request is cut to fit before it is sent.
        self.window = window
        self.max_tokens = window.max_tokens if window else max_tokens
        self.plan_max_tokens = window.plan_max_tokens if window else plan_max_tokens
        self.budgets = budgets or ToolBudgets()
        self._shared: str | None = None
        #: the record conversations' shorter map, and the revision's files
        self._record_shared: str | None = None
        self._files: list[str] = []
        #: whether the plan request listed documented promises (a claim minimum then)
        self._promised = False
        self._lock = threading.Lock()
        self.journal: CallJournal | None = None
        self.tools: SnapshotTools | None = None
        self._siblings: Siblings | None = None
        #: Per item ID (or "plan"/"account"): what its last conversation did.
        self.transcripts: dict[str, Transcript] = {}
        #: Records drafted one at a time in plan order (graph.proposer.RunHandles).
        self.sequential = False
        #: The label each record was drafted under, by ID (this process's drafts; a
        #: resumed run finds earlier processes' in the journal).
        self._drafted: dict[str, str] = {}

    def start(self, run: RunHandles) -> None:
        """Journal the run's calls and give the model its tools over the run's handles."""
        if run.journal is not None:
            self.attach_journal(run.journal)
        self.bind_resources(run.resources)
        self.sequential = run.sequential

    def attach_journal(self, journal: CallJournal) -> None:
        """Answer repeated requests and tool calls from the run's journal."""
        self.journal = journal

    def bind_resources(self, resources: Resources) -> None:
        """Give the model its tools over this run's snapshot, index and survey."""
        if self.tools is None or self.tools.res is not resources:
            limits = self.window.pages if self.window else None
            self.tools = SnapshotTools(resources, limits=limits)
            self._siblings = None

    def tool_defs(self) -> list[JsonDict]:
        """The investigation tools this run offers (no ``search`` without an index)."""
        res = self.tools.res if self.tools is not None else None
        return tool_definitions(search=res.use_index if res is not None else True)

    def siblings(self) -> Siblings | None:
        """Near-copies of files in sibling folders, for folding (one per bound run)."""
        if self.tools is None:
            return None
        with self._lock:
            if self._siblings is None:
                snap = self.tools.res.snapshot()
                self._siblings = Siblings(snap.files(), self.tools.text_or_none)
            return self._siblings

    # -- payloads -----------------------------------------------------------------

    def _line_count(self, path: str) -> int | None:
        """Lines of ``path`` at the revision (None: not a text file there)."""
        if self.tools is None:
            return None
        got = self.tools.lines_or_reason(path)
        return len(got) if isinstance(got, list) else None

    def _system(self, brief: bool = False) -> list[JsonDict]:
        """The system prompt and the run's map (``brief``: the record conversations'
        shorter one), the map marked for the cache."""
        blocks: list[JsonDict] = [{"type": "text", "text": load_prompt("system")}]
        shared = self._record_shared if brief else self._shared
        if shared:
            blocks.append({"type": "text", "text": shared, "cache_control": CACHE})
        else:
            blocks[0]["cache_control"] = CACHE
        return blocks

    def prepare(self, ctx: PlanContext) -> None:
        """Build the run's shared (cached) context.  The workflow calls this before any
        node's first call in a process, so a resumed run rebuilds the very same block
        and keeps hitting the prompt cache."""
        args = (ctx.system, ctx.repository, ctx.revision, ctx.files, ctx.survey)
        text, brief = shared_context(*args), shared_context(*args, brief=True)
        with self._lock:
            self._shared, self._record_shared = text, brief
            self._files = list(ctx.files)

    def _ensure_shared(self) -> None:
        if self._shared is None:
            raise RuntimeError("ClaudeProposer.prepare() must be called before drafting")

    def _base(self, max_tokens: int | None = None, brief: bool = False) -> JsonDict:
        return {
            "model": self.model,
            "max_tokens": max_tokens or self.max_tokens,
            "system": self._system(brief),
        }

    def plan_opening(self, ctx: PlanContext) -> list[str]:
        self.prepare(ctx)
        claims, objects = claim_slots(ctx.max_records)
        opening = [
            render(
                "plan",
                max_records=ctx.max_records,
                budget=self.budgets.plan,
                claims=claims,
                objects=objects,
            )
        ]
        if self.tools is not None:
            opening.append(orientation(self.tools, ctx.survey))
            tools = self.tools
            found = promises_section(tools.res.snapshot().files(), tools.text_or_none, ctx.survey)
            self._promised = found is not None
            if found is not None:
                opening.append(found)
        state = state_section(ctx.survey)
        if state is not None:
            opening.append(state)
        fixed = self._fixed_bytes(PLAN_TOOL_DEF) + sum(len(t.encode("utf-8")) + 40 for t in opening)
        ids = finding_ids(ctx.survey, max(1_000, PLAN_OPENING_BYTES - fixed - 1_200))
        if ids is not None:
            opening.append(ids)
        return opening

    def record_opening(self, ctx: RecordContext) -> list[str]:
        self._ensure_shared()
        item = ctx.item
        siblings = "\n".join(
            f"- {i.id}: {label}"
            for i, label in self.plan_labels(ctx.plan, upto=item.id)
            if i.id != item.id
        )
        task = render(
            "record",
            record_id=item.id,
            label=item.label,
            kind=item.kind,
            # the planner's words are model output that may echo repository text
            rationale=data_block("plan_rationale", item.rationale or "(none given)"),
            lead_hint=LEAD_HINTS.get(item.kind, ""),
            kind_hint=KIND_HINTS[item.kind] + "\n\n" if item.kind in KIND_HINTS else "",
            plan_ids=siblings or "(none)",
            witnesses=WITNESS_PREFERENCE,
            budget=self.budgets.record,
            files=", ".join(item.files) or "(none named)",
        )
        return [task, self._record_data(ctx, task)]

    def plan_labels(self, plan: Plan, upto: str | None = None) -> list[tuple[PlanItem, str]]:
        """Each plan item with the label a later request names it by: the label its
        record was drafted under when that record is drafted already, else the plan's.

        Only in a sequential run (one record at a time, in plan order), and only for the
        items before the record being drafted: exactly the ones drafted before its
        request was first built, so a resumed run builds the very same request (the
        labels come back from the journal) and the journal answers it."""
        out: list[tuple[PlanItem, str]] = []
        before = self.sequential
        for i in plan.items:
            if i.id == upto:
                before = False
            out.append((i, (self._drafted_label(i.id) if before else None) or i.label))
        return out

    def _label_key(self, record_id: str) -> JsonDict:
        return {"drafted_label": record_id, "sha": self.tools.sha if self.tools else ""}

    def _drafted_label(self, record_id: str) -> str | None:
        with self._lock:
            if record_id in self._drafted:
                return self._drafted[record_id]
        stored = self.journal.get_tool(self._label_key(record_id)) if self.journal else None
        return str(stored["text"]) if stored is not None else None

    def _note_label(self, record_id: str, label: str) -> None:
        with self._lock:
            self._drafted[record_id] = label
        if self.journal is not None:
            self.journal.put_tool(self._label_key(record_id), {"text": label, "is_error": False})

    def _record_data(self, ctx: RecordContext, *before: str) -> str:
        """The record's repository data within what ``ctx.context_bytes`` leaves after
        the texts that come ``before`` it in the same turn."""
        used = sum(len(t.encode("utf-8")) + 2 for t in before)
        page: PageFn
        lines_of: LinesFn
        span: SpanFn | None = None
        if self.tools is not None:
            tools = self.tools

            def page(path: str, last: int) -> str:
                return tools.read_file(ReadFileInput(path=path, start_line=1, end_line=last))

            # the planner's ranges are read again from the revision, like any page
            def span(path: str, first: int, last: int) -> str:
                return tools.read_file(ReadFileInput(path=path, start_line=first, end_line=last))

            lines_of = tools.lines_or_reason
        else:
            page, lines_of = text_pages(ctx.file_texts)
        return build_record_data(
            RecordData(
                item=ctx.item,
                findings=ctx.findings,
                chunks=ctx.chunks,
                reads=ctx.plan.reads,
                page=page,
                lines_of=lines_of,
                siblings=self.siblings(),
                budget=ctx.context_bytes - used,
                span=span,
                shared=frozenset(p for i in ctx.plan.items if i.id != ctx.item.id for p in i.files),
                nearby=nearby_files(self._files or list(ctx.file_texts), ctx.item.files),
                cap=self._record_cap(used),
            )
        )

    def _record_cap(self, used: int) -> int | None:
        """Bytes a record's data turn may take so the conversation keeps MIN_ROOM under
        the ceiling for its turns: a large map (a big TypeScript repository's) leaves
        the opening less, instead of leaving the reads a page of a few lines."""
        if self.window is not None:  # a context window cuts the request itself
            return None
        return (
            REQUEST_CEILING
            - self._fixed_bytes(RECORD_TOOL_DEF, brief=True)
            - used
            - MIN_ROOM
            - FRAMING_MARGIN
        )

    def _fixed_bytes(self, terminal: JsonDict, brief: bool = False) -> int:
        """Bytes every request of a conversation spends on its tools (the investigation
        tools and its ``terminal`` submit tool) and its system block (``brief``: the
        record conversations' shorter map)."""
        return body_size({"tools": [*self.tool_defs(), terminal], "system": self._system(brief)})

    def repair_opening(self, ctx: RecordContext, record: Record, misses: list[Miss]) -> list[str]:
        self._ensure_shared()
        task = render(
            "repair",
            record_id=record.id,
            round=ctx.repair_round or 1,
            budget=self.budgets.repair,
            # the draft quotes repository text, so it is framed as data too
            record_json=data_block(
                "drafted_record",
                json.dumps(
                    from_record(record).model_dump(mode="json"), indent=1, ensure_ascii=False
                ),
            ),
        )
        miss_parts = []
        for i, m in enumerate(misses, 1):
            near = (
                "\n\n".join(
                    data_block("passage", p.text, path=p.path, lines=str(p.lines))
                    for p in m.nearest
                )
                or "(the verifier offered no nearby passage)"
            )
            miss_parts.append(
                f"Miss {i}: verdict {m.status} for the quote below in {m.witness.path}\n"
                + data_block("rejected_quote", m.witness.quote, path=m.witness.path)
                + f"\nNearest real passages:\n{near}"
            )
        misses_text = "\n\n".join(miss_parts)
        return [task, misses_text, self._record_data(ctx, task, misses_text)]

    def account_opening(self, ctx: AccountContext) -> list[str]:
        self._ensure_shared()
        listing = "\n".join(f"{r.id}: {r.label}" for r in ctx.records) or "(no records)"
        task = render("account", records=listing, budget=self.budgets.account)
        if self.window is not None:  # a context window cuts the request itself
            return [task, account_data(ctx.records)]
        # the records' summaries get what the request's ceiling leaves beside the rest
        loop = self._loop("account", self._account_phase())
        bare = body_size(loop.request(_opening([task, ""]), forced=loop.run_tool is None))
        return [task, account_data(ctx.records, REQUEST_CEILING - bare - FRAMING_MARGIN)]

    # -- first requests (what graph.dump_request shows) ----------------------------

    def _loop(
        self, key: str, phase: Phase[ResultT], max_tokens: int | None = None, brief: bool = False
    ) -> ToolLoop[ResultT]:
        return ToolLoop(
            send=self._send,
            base=self._base(max_tokens, brief),
            phase=phase,
            tool_defs=self.tool_defs(),
            run_tool=self._run_tool if self.tools is not None else None,
            transcript=self.transcripts.setdefault(key, Transcript()),
            refusal=self.tools.refusal if self.tools is not None else None,
            # a context window cuts each request to itself (graph.context_window)
            ceiling=REQUEST_CEILING if self.window is None else None,
            overflow=Folding(keep=1, span=self.tools.page_span if self.tools else None),
        )

    def plan_request(self, ctx: PlanContext) -> JsonDict:
        opening = self.plan_opening(ctx)
        loop = self._loop("plan", self._plan_phase(ctx), self.plan_max_tokens)
        return loop.request(_opening(opening), forced=loop.run_tool is None)

    def record_request(self, ctx: RecordContext) -> JsonDict:
        loop = self._loop("-", self._record_phase(ctx.item.id, self.budgets.record), brief=True)
        return loop.request(_opening(self.record_opening(ctx)), forced=loop.run_tool is None)

    def repair_request(self, ctx: RecordContext, record: Record, misses: list[Miss]) -> JsonDict:
        loop = self._loop("-", self._record_phase(record.id, self.budgets.repair), brief=True)
        return loop.request(
            _opening(self.repair_opening(ctx, record, misses)), forced=loop.run_tool is None
        )

    def account_request(self, ctx: AccountContext) -> JsonDict:
        loop = self._loop("-", self._account_phase())
        return loop.request(_opening(self.account_opening(ctx)), forced=loop.run_tool is None)

    # -- phases -------------------------------------------------------------------

    def _plan_phase(self, ctx: PlanContext) -> Phase[Plan]:
        # the planner reads the most (whole pages, repository-wide greps): its older
        # tool answers are folded, so a late turn does not re-send every page read
        span = self.tools.page_span if self.tools is not None else None
        return Phase(
            PLAN_TOOL_DEF,
            Plan,
            PlanQuota(ctx.max_records, self._promised, FactCheck(ctx.survey, self._line_count)),
            self.budgets.plan,
            "with at most half as many records and one-sentence rationales",
            fold=Folding(keep=1, span=span),
        )

    def _record_phase(self, record_id: str, budget: int) -> Phase[Record]:
        tools = self.tools
        return Phase(
            RECORD_TOOL_DEF,
            RecordDraft,
            lambda d: to_record(d, record_id),
            budget,
            "with shorter paragraphs and at most five witnesses",
            review=(lambda r: submission_misses(tools, r)) if tools is not None else None,
        )

    def _account_phase(self) -> Phase[list[AccountSection]]:
        return Phase(
            ACCOUNT_TOOL_DEF, AccountDraft, to_account, self.budgets.account, "in fewer words"
        )

    # -- calling ------------------------------------------------------------------

    def _send(self, request: JsonDict) -> Any:
        """One paid call: replayed from the journal when this exact request was answered
        before (a resumed run), else sent with retries and journaled before use.  Either
        way it is charged once to the current node, so the draft's usage counts every
        call exactly once even when a lost task is re-executed.  With a context window
        the request is first cut to fit (deterministically, so the journal still
        answers a resumed run)."""
        request = self._fit(request)
        stored = self.journal.get(request) if self.journal is not None else None
        if stored is not None:
            msg = Message.model_validate(stored)
        else:
            costs.check_budget()
            with paid_call():  # Ctrl-C waits for this answer rather than pay it twice
                msg = self._call(request)
            if self.journal is not None:
                self.journal.put(request, msg.model_dump(mode="json"))
        costs.charge(self.model, msg.usage, self.price)
        return msg

    def _call(self, request: JsonDict) -> Any:
        """The call with retries.  With a context window set (a local endpoint), a
        request the server refuses as invalid (HTTP 400, e.g. longer than its real
        window) rejects this item rather than the run: resuming would only send it
        again.  Against Claude a 400 is drafter's own bug and still stops the run."""
        try:
            return self.transport.send(request)
        except RequestRefused as exc:
            if self.window is None:
                raise
            raise ProposalRejected(
                f"the endpoint refused the request ({str(exc).splitlines()[0][:300]}); is "
                f"--context-window {self.window.window} larger than the server's window?"
            ) from exc

    def _fit(self, request: JsonDict) -> JsonDict:
        """The request cut to the context window, its cuts noted for the draft; one
        that cannot fit is not sent and its item is rejected (the run goes on)."""
        if self.window is None:
            return request
        try:
            fitted, notes = fit_request(request, self.window.window)
        except WindowOverflow as exc:
            raise ProposalRejected(str(exc)) from exc
        for n in notes:
            costs.note(n)
        return fitted

    def _run_tool(self, name: str, raw: Any, room: int | None = None) -> tuple[str, bool]:
        """One tool call, journalled: a resumed run gets the very answer it had.  With
        ``room``, the answer takes at most that many characters (the request's room):
        the whole answer when it fits (journalled as any call), else the tools' cut one
        (journalled with its room)."""
        assert self.tools is not None
        key: JsonDict = {"tool": name, "input": raw, "sha": self.tools.sha}
        got = self._journalled(key, lambda: self.tools.run(name, raw) if self.tools else ("", True))
        capped = self.tools.capped(room)
        if capped is self.tools or len(got[0]) <= capped.output_chars:
            return got
        return self._journalled({**key, "room": capped.output_chars}, lambda: capped.run(name, raw))

    def _journalled(self, key: JsonDict, run: Callable[[], tuple[str, bool]]) -> tuple[str, bool]:
        if self.journal is not None:
            stored = self.journal.get_tool(key)
            if stored is not None:
                return str(stored["text"]), bool(stored["is_error"])
        text, is_error = run()
        if self.journal is not None:
            self.journal.put_tool(key, {"text": text, "is_error": is_error})
        return text, is_error

    def _structured(self, request: JsonDict, model: type[BaseModel], convert: Any) -> Any:
        """One prebuilt request whose ``tool_choice`` forces a submit tool, sent through
        the same call path (journal, retries, meter) with one corrective turn.

        Kept for callers that build their own single-shot request (the epistemic
        proposer); the runtime phases investigate through :class:`ToolLoop` instead."""
        forced = request["tool_choice"]["name"]
        tool_def = next(t for t in request["tools"] if t["name"] == forced)
        loop = ToolLoop(
            send=self._send,
            base={k: v for k, v in request.items() if k in ("model", "max_tokens", "system")},
            phase=Phase(tool_def, model, convert, 0),
            tool_defs=[],
            run_tool=None,
        )
        messages = request["messages"]
        texts = [c["text"] for c in messages[0]["content"]] if len(messages) == 1 else None
        if texts is None or any(c.get("type") != "text" for c in messages[0]["content"]):
            raise ValueError("_structured expects one user turn of text blocks")
        return loop.run(texts)

    # -- Proposer -------------------------------------------------------------------

    def plan(self, ctx: PlanContext) -> Plan:
        opening = self.plan_opening(ctx)
        loop = self._loop("plan", self._plan_phase(ctx), self.plan_max_tokens)
        loop.transcript = self.transcripts["plan"] = Transcript()
        plan = loop.run(opening)
        reads = self._opening_reads() + self._reads(loop.transcript)
        return plan.model_copy(update={"reads": reads})

    def _opening_reads(self) -> list[ReadRange]:
        """The README page the plan request itself showed: lines the planner received
        as a ``read_file`` answer gives them, so its notes on them count as read."""
        if self.tools is None:
            return []
        readme = readme_path(self.tools.res.snapshot().files())
        if readme is None:
            return []
        got = self.tools.page_span({"path": readme, "start_line": 1, "end_line": README_LINES})
        return [ReadRange(path=got[0], start_line=got[1], end_line=got[2])] if got else []

    def _reads(self, transcript: Transcript) -> list[ReadRange]:
        """The ranges a conversation's ``read_file`` calls showed (recomputed from their
        inputs, so a resumed run whose tool answers come from the journal gets the same)."""
        if self.tools is None:
            return []
        rooms = transcript.rooms + [None] * (len(transcript.inputs) - len(transcript.rooms))
        spans = [
            self.tools.capped(room).page_span(raw)
            for (name, raw), room in zip(transcript.inputs, rooms, strict=True)
            if name == "read_file"
        ]
        return [ReadRange(path=p, start_line=a, end_line=b) for p, a, b in filter(None, spans)]

    def draft_record(self, ctx: RecordContext) -> Record | None:
        loop = self._fresh(
            ctx.item.id, self._record_phase(ctx.item.id, self.budgets.record), brief=True
        )
        record = loop.run(self.record_opening(ctx))
        self._note_label(ctx.item.id, record.label)
        return record

    def repair_record(
        self, ctx: RecordContext, record: Record, misses: list[Miss]
    ) -> Record | None:
        key = f"{record.id}#repair{ctx.repair_round or 1}"
        loop = self._fresh(key, self._record_phase(record.id, self.budgets.repair), brief=True)
        return loop.run(self.repair_opening(ctx, record, misses))

    def account(self, ctx: AccountContext) -> list[AccountSection]:
        loop = self._fresh("account", self._account_phase())
        return loop.run(self.account_opening(ctx))

    def _fresh(self, key: str, phase: Phase[ResultT], brief: bool = False) -> ToolLoop[ResultT]:
        with self._lock:
            self.transcripts[key] = Transcript()
        return self._loop(key, phase, brief=brief)


def _opening(texts: list[str]) -> list[JsonDict]:
    return [{"role": "user", "content": [{"type": "text", "text": t} for t in texts]}]
