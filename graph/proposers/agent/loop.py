"""One bounded conversation: the model investigates with tools, then submits.

Why a loop with a budget rather than a single forced call: the model has to be able to
read on, grep, follow a call and check a quote before it commits to an answer, but a
run must still have a known worst case.  Each conversation gets a tool-call budget;
once it is spent the next request *forces* the terminal tool, and a model that still
does not submit is stopped and its item rejected with a reason that says so.

Rules that keep the answer honest and the run resumable:

- The terminal tool's input is validated against its pydantic schema; an invalid
  submission gets exactly one corrective turn, a second one rejects the item.
- A valid submission may be checked (``Phase.review``: a record's witnesses against
  the verifier); one that falls short is answered with what is missing and gets one
  fix-up turn, after which the next submission is taken as it is.
- An answer whose ``stop_reason`` is ``max_tokens`` is never used, even when its tool
  input happens to parse: the model is told it was cut and asked again, shorter (once).
- Every request is rebuilt from the conversation so far, deterministically, so a
  resumed run sends byte-identical requests and the journal answers them.
- Cache breakpoints: the last tool definition, the shared system block (set by the
  proposer) and the last block of the newest user turn, so every turn reads the
  previous turn's prefix from the prompt cache.  A phase that folds older tool answers
  (:mod:`graph.proposers.agent.fold`; the planner's) adds a fourth on the last folded
  turn: that prefix is what the next turn repeats, the newest answer being folded then.
- A ceiling on every request (:data:`REQUEST_CEILING` bytes of JSON body): a new
  tool answer is sized to the room the next request leaves (the tools cut it and say
  where to continue), and once a conversation that keeps its answers whole would pass
  the ceiling, its older answers are folded like the planner's.  Both depend only on
  the conversation, so a resumed run still sends the same requests.
- A text-only answer (an endpoint that ignores ``tool_choice``) is searched for the
  call as JSON (:mod:`graph.proposers.text_calls`); one that qualifies is used as that
  call and noted for the draft, otherwise the turn gets its one follow-up.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from graph import costs
from graph.jsontypes import JsonDict
from graph.proposer import ProposalRejected
from graph.proposers.agent.fold import Folding, fold_messages
from graph.proposers.text_calls import TextCall, recover_call

CACHE = {"type": "ephemeral"}
#: Bytes a request's JSON body may take at most.
REQUEST_CEILING = 64_000
#: Characters below which a new answer is not shrunk further while older answers of a
#: conversation that keeps them whole could be folded instead.
MIN_ROOM = 12_000
#: Characters a tool answer is given even when the request has hardly any room left.
FLOOR_ROOM = 1_500
#: Bytes of a request a tool answer's JSON wrapping and budget line take besides its text.
ANSWER_OVERHEAD = 400
#: Bytes of JSON one character of a tool answer may take (escaped quotes, newlines).
JSON_GROWTH = 1.15

Send = Callable[[JsonDict], Any]
#: ``run_tool(name, input)``, or ``run_tool(name, input, room)`` with ``room`` the
#: characters the answer may take (the tools cut it shorter and say where to go on).
RunTool = Callable[..., tuple[str, bool]]
#: Why the tools' schema refuses a call (unknown tool, invalid input), or None.
Refusal = Callable[[str, Any], "str | None"]
#: A ``tool_use`` block of an assistant turn (the SDK's object, or one read back).
Use = Any
#: What a conversation's accepted answer becomes (a Plan, a Record, account sections…).
ResultT = TypeVar("ResultT")


@dataclass
class Phase(Generic[ResultT]):
    """What one conversation must end with, and what its answer is turned into."""

    terminal_def: JsonDict
    model: type[BaseModel]
    convert: Callable[[Any], ResultT]
    budget: int
    #: Said to the model when its answer was cut by ``max_tokens``.
    shorter_hint: str = "shorter"
    #: Fold older tool answers in each request (None: every answer is re-sent whole).
    fold: Folding | None = None
    #: What a valid submission still lacks (witnesses that do not verify…), as the note
    #: its one fix-up turn answers with, or None when it passes (None: no check).
    review: Callable[[ResultT], str | None] | None = None

    @property
    def terminal(self) -> str:
        return str(self.terminal_def["name"])


@dataclass
class Transcript:
    """What happened in a conversation, for the run's notes and the tests."""

    tool_calls: int = 0
    turns: int = 0
    calls: list[str] = field(default_factory=list)
    #: Calls read from an answer's text because the endpoint returned no tool_use.
    text_calls: int = 0
    #: (tool name, input) of every investigation call run, in order.
    inputs: list[tuple[str, Any]] = field(default_factory=list)
    #: The characters each of those calls' answers was allowed (None: the tools' own).
    rooms: list[int | None] = field(default_factory=list)
    #: Submissions answered with their misses for one fix-up (at most one per conversation).
    fixups: int = 0


@dataclass
class ToolLoop(Generic[ResultT]):
    send: Send
    base: JsonDict  # model, max_tokens, system
    phase: Phase[ResultT]
    tool_defs: list[JsonDict]
    run_tool: RunTool | None
    transcript: Transcript = field(default_factory=Transcript)
    #: A call its schema refuses is answered with the reason and costs no budget.
    refusal: Refusal | None = None
    #: Bytes a request may take at most (None: no ceiling).
    ceiling: int | None = None
    #: Folding used once a conversation that keeps its answers whole would pass the
    #: ceiling (its ``span`` names a folded page's lines).
    overflow: Folding = field(default_factory=Folding)

    # -- requests -------------------------------------------------------------------

    def _folding(self, messages: list[JsonDict], forced: bool) -> Folding | None:
        """The phase's folding, or, past the ceiling, the overflow folding."""
        if self.phase.fold is not None or self.ceiling is None:
            return self.phase.fold
        if body_size(self._build(messages, forced, None)) > self.ceiling:
            return self.overflow
        return None

    def request(self, messages: list[JsonDict], forced: bool) -> JsonDict:
        return self._build(messages, forced, self._folding(messages, forced))

    def _build(self, messages: list[JsonDict], forced: bool, fold: Folding | None) -> JsonDict:
        tools = copy.deepcopy([*(self.tool_defs if self.run_tool else []), self.phase.terminal_def])
        tools[-1]["cache_control"] = CACHE
        if fold is not None:
            msgs, boundary = fold_messages(messages, fold)
        else:
            msgs, boundary = copy.deepcopy(messages), None
        if boundary is not None and msgs[boundary]["content"]:
            msgs[boundary]["content"][-1]["cache_control"] = CACHE
        last = msgs[-1]["content"]
        if isinstance(last, list) and last:
            last[-1]["cache_control"] = CACHE
        choice: JsonDict = (
            {"type": "tool", "name": self.phase.terminal} if forced else {"type": "any"}
        )
        return {**self.base, "tools": tools, "tool_choice": choice, "messages": msgs}

    # -- the loop -------------------------------------------------------------------

    def run(self, opening: list[str]) -> ResultT:
        messages: list[JsonDict] = [
            {"role": "user", "content": [{"type": "text", "text": t} for t in opening]}
        ]
        invalid = cut = 0
        term = self.phase.terminal
        while True:
            forced = self.run_tool is None or self.transcript.tool_calls >= self.phase.budget
            msg = self.send(self.request(messages, forced))
            self.transcript.turns += 1
            content = [b.model_dump(mode="json", exclude_none=True) for b in msg.content]
            uses: list[Use] = [b for b in msg.content if getattr(b, "type", "") == "tool_use"]
            if not uses and msg.stop_reason != "max_tokens":
                found = self._from_text(msg.content, forced)
                if found is not None:
                    content.append(found.block())
                    uses = [found]
            submit = next((b for b in uses if b.name == term), None)
            if msg.stop_reason == "max_tokens":
                cut += 1
                if cut > 1:
                    raise ProposalRejected(f"{term} answer cut by max_tokens twice; not used")
                note = (
                    f"Your answer was cut by the output limit (max_tokens) and was not used. "
                    f"Call {term} again, {self.phase.shorter_hint}."
                )
                messages += self._answer(content, uses, {}, note, "not used: answer cut")
                continue
            if submit is not None:
                try:
                    result = self._parse(submit)
                except (ValidationError, ValueError) as exc:
                    error = short_error(exc)
                else:
                    misses = self._review(result)
                    if misses is None:
                        return result
                    messages += self._answer(
                        content, uses, {submit.id: misses}, None, f"not run: {term} came first"
                    )
                    continue
                invalid += 1
                if invalid > 1:
                    raise ProposalRejected(
                        f"schema-invalid output after one corrective retry: {error}"
                    )
                errors = {
                    submit.id: f"The input did not match the schema: {error}. "
                    f"Call {term} again with corrected input."
                }
                messages += self._answer(content, uses, errors, None, f"not run: {term} came first")
                continue
            if not uses:
                invalid += 1
                if invalid > 1:
                    raise ProposalRejected(
                        f"answered in text twice without a {term} call (text only; no JSON "
                        "in it matched the tool's schema)"
                    )
                messages += [
                    {"role": "assistant", "content": content or "(no answer)"},
                    {
                        "role": "user",
                        "content": [
                            {
                                "type": "text",
                                "text": f"Answer only by calling tools; finish with {term}.",
                            }
                        ],
                    },
                ]
                continue
            if forced:
                raise ProposalRejected(
                    f"never called {term}: stopped at the budget of {self.phase.budget} tool "
                    f"calls (flagged: the model kept investigating)"
                )
            messages += self._investigate(content, uses, messages)

    def _review(self, result: ResultT) -> str | None:
        """The fix-up note for an accepted-as-valid submission, at most once per
        conversation: a second submission is taken as it is (the repair is bounded).
        The note ends with the budget left, as every tool answer does; the submission
        itself never counts against it."""
        if self.phase.review is None or self.transcript.fixups:
            return None
        misses = self.phase.review(result)
        if misses is None:
            return None
        self.transcript.fixups += 1
        budget = self.phase.budget
        left = max(0, budget - self.transcript.tool_calls)
        return misses + f"\n[budget: {left} of {budget} investigation tool calls left]"

    def _from_text(self, blocks: list[Any], forced: bool) -> TextCall | None:
        """The call a text-only answer spells out as JSON, if one qualifies: only the
        terminal tool when it was forced, else any tool this request offered."""
        offered = [] if forced or self.run_tool is None else self.tool_defs
        found = recover_call(
            blocks,
            offered,
            self.phase.terminal_def,
            self.phase.model,
            f"toolu_text_{self.transcript.turns}",
        )
        if found is not None:
            self.transcript.text_calls += 1
            costs.note(
                f"{found.name} read from the answer's text as JSON (the endpoint returned "
                "no tool call); validated like any call"
            )
        return found

    def room(
        self, messages: list[JsonDict], content: list[JsonDict], uses: list[Use]
    ) -> int | None:
        """Characters each answer to ``uses`` may take so the next request stays under
        the ceiling (None: no ceiling).  Measured on the next request with empty
        answers; a conversation that keeps its answers whole is measured folded when
        whole it would leave less than :data:`MIN_ROOM`."""
        if self.ceiling is None or not uses:
            return None
        blank = [_result(u.id, "", False) for u in uses]
        nxt = [
            *messages,
            {"role": "assistant", "content": content},
            {"role": "user", "content": blank},
        ]
        folds = [self.phase.fold] if self.phase.fold is not None else [None, self.overflow]
        room = 0
        for fold in folds:
            free = self.ceiling - body_size(self._build(nxt, False, fold))
            free -= ANSWER_OVERHEAD * len(uses) + 300  # the budget lines and spent note
            room = int(free / JSON_GROWTH) // len(uses)
            if room >= MIN_ROOM:
                break
        return max(FLOOR_ROOM, room)

    def _investigate(
        self, content: list[JsonDict], uses: list[Use], messages: list[JsonDict] | None = None
    ) -> list[JsonDict]:
        """Run the requested tools within the budget; answer every tool_use, each answer
        saying how much of the budget is left and sized to the room the next request
        leaves.  A call the tools' schema refuses is answered with why and does not
        count (the model corrects it for free)."""
        results = []
        budget = self.phase.budget
        room = self.room(messages or [], content, uses)
        refused: dict[str, str] = {}
        to_run: list[Use] = []
        for u in uses:
            why = self.refusal(u.name, u.input) if self.refusal is not None else None
            if why is not None:
                refused[u.id] = why + " (refused by the schema: not counted)"
            elif self.transcript.tool_calls + len(to_run) >= budget:
                refused[u.id] = f"not run: the budget of {budget} tool calls is spent"
            else:
                to_run.append(u)
        answers = self._run_sharing(to_run, None if room is None else room * len(uses))
        for u in uses:
            if u.id in refused:
                text, err = refused[u.id], True
            else:
                text, err, cap = answers[u.id]
                self.transcript.tool_calls += 1
                self.transcript.calls.append(u.name)
                self.transcript.inputs.append((u.name, u.input))
                self.transcript.rooms.append(cap)
            left = budget - self.transcript.tool_calls
            text += f"\n[budget: {left} of {budget} investigation tool calls left]"
            results.append(_result(u.id, text, err))
        if self.transcript.tool_calls >= budget:
            results.append(
                {
                    "type": "text",
                    "text": f"The budget of {budget} investigation tool calls is spent "
                    f"({self.phase.terminal} does not count against it). "
                    f"Call {self.phase.terminal} now with what you have verified.",
                }
            )
        return [{"role": "assistant", "content": content}, {"role": "user", "content": results}]

    def _run_sharing(
        self, uses: list[Use], total: int | None
    ) -> dict[str, tuple[str, bool, int | None]]:
        """(text, error, cap) of each call, the calls of one turn sharing ``total``
        characters: an answer shorter than an even share leaves the rest to the others,
        so one long page beside two short greps is not cut to a third of the room.
        Each call runs with the whole room first; those longer than the level at which
        the answers fit together run again capped at that level (the tools are
        deterministic, and a cut page says where to go on)."""
        if not uses:
            return {}
        run = self.run_tool
        assert run is not None
        if total is None:
            return {u.id: (*run(u.name, u.input), None) for u in uses}
        first = {u.id: run(u.name, u.input, total) for u in uses}
        level = max(FLOOR_ROOM, _level([len(t) for t, _ in first.values()], total))
        out: dict[str, tuple[str, bool, int | None]] = {}
        for u in uses:
            text, err = first[u.id]
            if len(text) > level:
                text, err = run(u.name, u.input, level)
                out[u.id] = (text, err, level)
            else:
                out[u.id] = (text, err, total)
        return out

    def _answer(
        self,
        content: list[JsonDict],
        uses: list[Use],
        errors: dict[str, str],
        note: str | None,
        default: str,
    ) -> list[JsonDict]:
        """The assistant turn as given, then an error tool_result for each of its calls."""
        results: list[JsonDict] = [_result(u.id, errors.get(u.id, default), True) for u in uses]
        if note:
            results.append({"type": "text", "text": note})
        return [
            {"role": "assistant", "content": content or "(no answer)"},
            {"role": "user", "content": results},
        ]

    def _parse(self, block: Any) -> ResultT:
        """The submitted answer, converted; raises ValidationError or ValueError."""
        return self.phase.convert(self.phase.model.model_validate(block.input))


def _level(sizes: list[int], total: int) -> int:
    """The largest cap L with sum(min(size, L)) <= total: answers under L keep their
    length and the longer ones share what is left evenly."""
    left, rest = total, len(sizes)
    for size in sorted(sizes):
        if size * rest > left:
            return left // rest
        left -= size
        rest -= 1
    return total


def body_size(request: JsonDict) -> int:
    """Bytes of a request's JSON body (an upper bound of what the SDK sends)."""
    return len(json.dumps(request, ensure_ascii=False).encode("utf-8"))


def _result(tool_use_id: str, text: str, is_error: bool) -> JsonDict:
    out: JsonDict = {"type": "tool_result", "tool_use_id": tool_use_id, "content": text}
    if is_error:
        out["is_error"] = True
    return out


def short_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        parts = [
            f"{'.'.join(str(x) for x in e['loc']) or '(root)'}: {e['msg']}"
            for e in exc.errors()[:5]
        ]
        return "; ".join(parts)
    # a converter's own check may name several problems, one per line
    return " ".join(str(exc).splitlines())[:1500]
