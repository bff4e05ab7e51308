"""The Claude proposer: plan, records, repairs and the account through the Messages API.

Every answer comes through a forced tool call whose schema is generated from the
pydantic models in :mod:`graph.proposers.claude_schema`.  Output is untrusted: an
answer that does not validate gets exactly one corrective retry (the validation
errors go back as an error ``tool_result``); a second failure raises
:class:`graph.proposer.ProposalRejected` and the workflow drops the record with that
reason.  The system prompt and the run's shared context (file list and survey) come
first and carry a ``cache_control`` marker, so every record call after the first reads
them from the prompt cache.  Usage of every response is charged to the current node's
meter (:mod:`graph.costs`).
"""

from __future__ import annotations

import json
import threading
from typing import Any

import anthropic
import httpx2
from anthropic.types import Message
from pydantic import BaseModel, ValidationError

from drafter.model import AccountSection, Record
from graph import costs
from graph.journal import CallJournal
from graph.proposer import AccountContext, Miss, Plan, PlanContext, ProposalRejected, RecordContext
from graph.proposers.claude_client import RetryPolicy, call_with_retries, make_client
from graph.proposers.claude_prompts import (
    LEAD_HINTS,
    data_block,
    load_prompt,
    record_data,
    render,
    shared_context,
)
from graph.proposers.claude_schema import (
    ACCOUNT_TOOL_DEF,
    PLAN_TOOL_DEF,
    RECORD_TOOL_DEF,
    AccountDraft,
    RecordDraft,
    from_record,
    to_account,
    to_record,
)

CACHE = {"type": "ephemeral"}


class ClaudeProposer:
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
        max_tokens: int = 4096,
        timeout: float = 300.0,
    ):
        self.model = model
        self.client = client or make_client(api_key, http_client=http_client, timeout=timeout)
        self.retry = retry or RetryPolicy()
        self.max_tokens = max_tokens
        self._shared: str | None = None
        self._lock = threading.Lock()
        self.journal: CallJournal | None = None

    def attach_journal(self, journal: CallJournal) -> None:
        """Answer repeated requests from the run's journal (see graph.journal)."""
        self.journal = journal

    # -- payloads -----------------------------------------------------------------

    def _system(self) -> list[dict[str, Any]]:
        blocks: list[dict[str, Any]] = [{"type": "text", "text": load_prompt("system")}]
        if self._shared:
            blocks.append({"type": "text", "text": self._shared, "cache_control": CACHE})
        else:
            blocks[0]["cache_control"] = CACHE
        return blocks

    def prepare(self, ctx: PlanContext) -> None:
        """Build the run's shared (cached) context.  The workflow calls this before any
        node's first call in a process, so a resumed run rebuilds the very same block
        and keeps hitting the prompt cache."""
        text = shared_context(ctx.system, ctx.repository, ctx.revision, ctx.files, ctx.survey)
        with self._lock:
            self._shared = text

    def plan_request(self, ctx: PlanContext) -> dict[str, Any]:
        self.prepare(ctx)
        return self._request(PLAN_TOOL_DEF, [render("plan", max_records=ctx.max_records)])

    def record_request(self, ctx: RecordContext) -> dict[str, Any]:
        self._ensure_shared()
        item = ctx.item
        task = render(
            "record",
            record_id=item.id,
            label=item.label,
            kind=item.kind,
            # the planner's words are model output that may echo repository text
            rationale=data_block("plan_rationale", item.rationale or "(none given)"),
            lead_hint=LEAD_HINTS.get(item.kind, ""),
            plan_ids=", ".join(i.id for i in ctx.plan.items if i.id != item.id) or "(none)",
        )
        return self._request(
            RECORD_TOOL_DEF, [task, record_data(ctx.findings, ctx.chunks, ctx.file_texts)]
        )

    def repair_request(
        self, ctx: RecordContext, record: Record, misses: list[Miss]
    ) -> dict[str, Any]:
        self._ensure_shared()
        task = render(
            "repair",
            record_id=record.id,
            round=ctx.repair_round or 1,
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
        return self._request(
            RECORD_TOOL_DEF,
            [task, "\n\n".join(miss_parts), record_data(ctx.findings, ctx.chunks, ctx.file_texts)],
        )

    def account_request(self, ctx: AccountContext) -> dict[str, Any]:
        self._ensure_shared()
        listing = "\n".join(f"{r.id}: {r.label}" for r in ctx.records) or "(no records)"
        return self._request(ACCOUNT_TOOL_DEF, [render("account", records=listing)])

    def _ensure_shared(self) -> None:
        if self._shared is None:
            raise RuntimeError("ClaudeProposer.prepare() must be called before drafting")

    def _request(self, tool_def: dict[str, Any], texts: list[str]) -> dict[str, Any]:
        return {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "system": self._system(),
            "tools": [tool_def],
            "tool_choice": {"type": "tool", "name": tool_def["name"]},
            "messages": [{"role": "user", "content": [{"type": "text", "text": t} for t in texts]}],
        }

    # -- calling ------------------------------------------------------------------

    def _send(self, request: dict[str, Any]) -> Any:
        """One paid call: replayed from the journal when this exact request was answered
        before (a resumed run), else sent with retries and journaled before use.  Either
        way it is charged once to the current node, so the draft's usage counts every
        call exactly once even when a lost task is re-executed."""
        stored = self.journal.get(request) if self.journal is not None else None
        if stored is not None:
            msg = Message.model_validate(stored)
        else:
            costs.check_budget()
            msg = call_with_retries(lambda: self.client.messages.create(**request), self.retry)
            if self.journal is not None:
                self.journal.put(request, msg.model_dump(mode="json"))
        costs.charge(self.model, msg.usage)
        return msg

    def _structured(self, request: dict[str, Any], model: type[BaseModel], convert: Any) -> Any:
        """Send, validate, and give the model one chance to correct invalid input."""
        tool_name = request["tool_choice"]["name"]
        msg = self._send(request)
        ok, value, error, block = _parse(msg, tool_name, model, convert)
        if ok:
            return value
        retry = dict(request)
        if block is not None:
            retry["messages"] = [
                *request["messages"],
                {
                    "role": "assistant",
                    "content": [block.model_dump(mode="json", exclude_none=True)],
                },
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": block.id,
                            "is_error": True,
                            "content": f"The input did not match the schema: {error}. "
                            f"Call {tool_name} again with corrected input.",
                        }
                    ],
                },
            ]
        else:
            retry["messages"] = [
                *request["messages"],
                {"role": "assistant", "content": _text_of(msg) or "(no answer)"},
                {
                    "role": "user",
                    "content": f"Answer only by calling {tool_name}. Problem: {error}.",
                },
            ]
        msg2 = self._send(retry)
        ok, value, error2, _ = _parse(msg2, tool_name, model, convert)
        if ok:
            return value
        raise ProposalRejected(f"schema-invalid output after one corrective retry: {error2}")

    # -- Proposer -------------------------------------------------------------------

    def plan(self, ctx: PlanContext) -> Plan:
        return self._structured(self.plan_request(ctx), Plan, lambda p: p)  # type: ignore[no-any-return]

    def draft_record(self, ctx: RecordContext) -> Record | None:
        return self._structured(  # type: ignore[no-any-return]
            self.record_request(ctx), RecordDraft, lambda d: to_record(d, ctx.item.id)
        )

    def repair_record(
        self, ctx: RecordContext, record: Record, misses: list[Miss]
    ) -> Record | None:
        return self._structured(  # type: ignore[no-any-return]
            self.repair_request(ctx, record, misses), RecordDraft, lambda d: to_record(d, record.id)
        )

    def account(self, ctx: AccountContext) -> list[AccountSection]:
        return self._structured(self.account_request(ctx), AccountDraft, to_account)  # type: ignore[no-any-return]


def _text_of(msg: Any) -> str:
    return "".join(getattr(b, "text", "") for b in msg.content if getattr(b, "type", "") == "text")


def _parse(
    msg: Any, tool_name: str, model: type[BaseModel], convert: Any
) -> tuple[bool, Any, str, Any]:
    """(ok, value, error, tool_use block) for one response."""
    block = next(
        (b for b in msg.content if getattr(b, "type", "") == "tool_use" and b.name == tool_name),
        None,
    )
    if block is None:
        return (
            False,
            None,
            f"no {tool_name} call in the answer (stop reason {msg.stop_reason})",
            None,
        )
    try:
        parsed = model.model_validate(block.input)
        return True, convert(parsed), "", block
    except (ValidationError, ValueError) as exc:
        return False, None, _short_error(exc), block


def _short_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        parts = [
            f"{'.'.join(str(x) for x in e['loc']) or '(root)'}: {e['msg']}"
            for e in exc.errors()[:5]
        ]
        return "; ".join(parts)
    return str(exc).splitlines()[0][:300]
