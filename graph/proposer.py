"""The contract every proposer (Claude, offline rules, scripted test doubles) fulfils.

The workflow asks a proposer three things: an outline of records to write (plan), one
record at a time from its own context (draft_record, and repair_record when the
verifier found misses), and the runtime-account narrative (account).  Keeping this
contract small is what lets the offline proposer and the Claude proposer run through
the very same LangGraph nodes.

Everything else the workflow may ask is declared on :class:`RuntimeProposer` with a
default, so a new proposer overrides only what it needs and the nodes never probe
for optional methods: the capability ``wants_chunks``, the :meth:`ProposerBase.start`
hook that receives the run's handles (every workflow's proposer has it), and
:meth:`RuntimeProposer.prepare`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, field_validator
from pydantic.json_schema import SkipJsonSchema

from drafter import defaults
from drafter.defaults import DEFAULT_RECORD_CONTEXT_BYTES
from drafter.model import KIND_ORDER, AccountSection, Passage, Record, Witness
from graph.jsontypes import JsonDict
from retrieval.survey import Finding, Survey

if TYPE_CHECKING:  # type-only: the proposer contract loads neither sqlite nor the index
    from graph.journal import CallJournal
    from graph.resources import Resources

#: Reading notes a plan item may carry, and the characters all of them share: a note
#: takes what it needs and the long ones share what the short ones leave, so one key
#: finding can take the item's whole share while six long notes still get
#: :data:`NOTE_CHARS` each.  Sized so the item's notes fit its record request's notes
#: share at the default budget (``graph.proposers.agent.context.NOTES_SHARE``).
MAX_NOTES = 6
ITEM_NOTE_CHARS = 2_400
NOTE_CHARS = ITEM_NOTE_CHARS // MAX_NOTES
#: The mark a cut note ends with (``{kept}`` and ``{total}`` characters).
CUT_MARK = " [note cut: {kept} of {total} characters kept]"
_CUT_RE = re.compile(r" \[note cut: \d+ of (\d+) characters kept\]$")


def clip_note(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters, cut after its last whole sentence that fits
    (else its last whole word) and saying it was cut; never mid-word."""
    if len(text) <= limit:
        return text
    # a note cut before (on its own, then within its item) keeps its first length
    before = _CUT_RE.search(text)
    total = int(before.group(1)) if before else len(text)
    text = text[: before.start()] if before else text
    mark = CUT_MARK.format(kept=limit, total=total)
    room = max(0, limit - len(mark))
    head = text[: room + 1]
    ends = [m.end() for m in re.finditer(r"[.!?;:](?=\s)", head)]
    cut = ends[-1] if ends and ends[-1] >= room // 2 else head.rfind(" ")
    if cut <= 0:
        cut = room
    kept = text[:cut].rstrip()
    return kept + CUT_MARK.format(kept=len(kept), total=total)


def shares(sizes: list[int], total: int) -> list[int]:
    """How many characters each of ``sizes`` may keep so they add up to ``total`` at
    most: the smallest first take all they need, the rest split what is left evenly."""
    out = [0] * len(sizes)
    left = total
    order = sorted(range(len(sizes)), key=lambda i: sizes[i])
    for n, i in enumerate(order):
        fair = left // (len(sizes) - n)
        out[i] = min(sizes[i], fair)
        left -= out[i]
    return out


class ReadingNote(BaseModel):
    """What the planner read for an item and what it showed, so the record's drafter
    starts from it instead of re-reading the same lines."""

    path: str = Field(max_length=500, description="Repository path that was read.")
    start_line: int = Field(ge=1, description="First line read.")
    end_line: int = Field(ge=1, description="Last line read.")
    showed: str = Field(
        description="What those lines showed (names, calls, values, the finding that"
        f" matters); the item's notes share {ITEM_NOTE_CHARS} characters, a longer note"
        " is cut after its last whole sentence.",
    )

    @field_validator("showed")
    @classmethod
    def _clip(cls, v: str) -> str:
        """An optional note never costs the plan: a long one is cut, not refused."""
        return clip_note(v, ITEM_NOTE_CHARS)


class ReadRange(BaseModel):
    """Lines of one file a conversation of this run has already read (``read_file``)."""

    path: str
    start_line: int
    end_line: int


class PlanItem(BaseModel):
    """One record the proposer intends to write."""

    id: str = Field(description="Record ID, e.g. RT-RTE-gate-admission (PREFIX-KIND-slug).")
    kind: str = Field(description=f"One of {', '.join(KIND_ORDER)}.")
    label: str = Field(description="Short title.")
    files: list[str] = Field(
        default_factory=list, description="Repository paths the record must read."
    )
    rationale: str = Field(default="", description="Why this record matters, one sentence.")
    facts: list[str] = Field(
        default_factory=list,
        description="IDs of survey findings it builds on, exactly as the survey gives them, "
        "or locations at the revision written path:first-last (lines you read, or a "
        "promise's line).",
    )
    notes: list[ReadingNote] = Field(
        default_factory=list,
        description=f"Optional, at most {MAX_NOTES}: what you read for this record (path, "
        "lines) and what it showed; the record's drafter receives these notes.",
    )

    @field_validator("notes")
    @classmethod
    def _few(cls, v: list[ReadingNote]) -> list[ReadingNote]:
        """At most :data:`MAX_NOTES`, sharing :data:`ITEM_NOTE_CHARS` characters."""
        kept = v[:MAX_NOTES]
        room = shares([len(n.showed) for n in kept], ITEM_NOTE_CHARS)
        return [
            n if len(n.showed) <= r else n.model_copy(update={"showed": clip_note(n.showed, r)})
            for n, r in zip(kept, room, strict=True)
        ]

    # Typed meaning for rule-based proposers: which record builder drafts the item and
    # its parameters.  Checkpointed with the plan (so a resumed run drafts the same
    # records) but hidden from a model's tool schema, which has no use for them.
    recipe: SkipJsonSchema[str] = Field(default="", description="Record builder to use.")
    hints: SkipJsonSchema[JsonDict] = Field(
        default_factory=dict, description="Parameters for the record builder."
    )


class Plan(BaseModel):
    system: str = Field(description="Name of the system analysed.")
    items: list[PlanItem] = Field(default_factory=list)
    # What the planning conversation read, filled in by the proposer (not the model):
    # checkpointed with the plan, so every record's request, in any process, lists the
    # same ranges.
    reads: SkipJsonSchema[list[ReadRange]] = Field(
        default_factory=list, description="Ranges the planner read."
    )


class Miss(BaseModel):
    """A witness the verifier rejected, with real passages offered for repair."""

    witness: Witness
    status: str
    nearest: list[Passage] = Field(default_factory=list)


class PlanContext(BaseModel):
    """What the planner sees: the survey and repository overview."""

    system: str
    repository: str
    revision: str
    files: list[str]
    survey: Survey | None = None
    max_records: int = defaults.MODEL_MAX_RECORDS


class RecordContext(BaseModel):
    """What one record's drafter sees."""

    item: PlanItem
    plan: Plan
    findings: list[Finding] = Field(default_factory=list)
    chunks: list[Any] = Field(default_factory=list)
    file_texts: dict[str, str] = Field(default_factory=dict)
    repair_round: int = Field(default=0, description="1-based repair round when repairing, else 0.")
    #: Bytes of per-record text the first request may carry (``record_context_bytes``).
    context_bytes: int = DEFAULT_RECORD_CONTEXT_BYTES


class AccountContext(BaseModel):
    plan: Plan
    records: list[Record]
    survey: Survey | None = None


@dataclass(frozen=True)
class RunHandles:
    """What a run hands its proposer when it starts, once per process (a resumed run
    starts again in its new process): the live handles, never checkpointed."""

    #: This process's snapshot, index, survey and verifier of the pinned revision.
    resources: Resources
    #: The run's call journal (answered calls are replayed, not paid again); None for a
    #: run that keeps none.
    journal: CallJournal | None = None
    #: Records are drafted one at a time, in plan order (concurrency 1): a record's
    #: request may then name the labels its predecessors were drafted under.
    sequential: bool = False


class ProposerBase:
    """Base of every proposer of every workflow: what the one runner asks of any.

    The runner (:func:`graph.engine.run`) starts a proposer with the run's handles and
    reads its ``name`` for the draft's metadata; each workflow's spec
    (:class:`graph.engine.Workflow`) names the protocol its nodes ask on top of this
    one: :class:`RuntimeProposer` (four calls), the epistemic workflow's
    :class:`graph.epistemic.proposer.EpistemicProposer` (one)."""

    #: Shown in the draft's metadata (``generator``); a class attribute or a property.
    name: str = "proposer"

    def start(self, run: RunHandles) -> None:
        """Called once by the run, in each process, before the first node, with the
        run's resources and call journal (every run keeps one: answered calls are
        replayed, not paid again): a proposer that reads the repository itself or
        journals its calls keeps the handles; one that does neither ignores them."""


class RuntimeProposer(ProposerBase):
    """The runtime workflow's proposer: the four calls, plus declared defaults.

    A subclass sets ``name`` and implements :meth:`plan`, :meth:`draft_record`,
    :meth:`repair_record` and :meth:`account`; it overrides the rest only when it
    differs from the default (see the README, "a new proposer")."""

    #: Capability: the workflow searches the index for each record and hands the hits
    #: in :attr:`RecordContext.chunks`.  A proposer that does its own retrieval says
    #: False, so no record waits for the index.
    wants_chunks: bool = True

    def prepare(self, ctx: PlanContext) -> None:
        """Called before each model-facing node (plan, record, repair, account) with the
        planner's view of the run, so a proposer with shared per-run context (Claude's
        cached block) rebuilds the same one in any process.  Default: nothing."""

    def plan(self, ctx: PlanContext) -> Plan:
        raise NotImplementedError

    def draft_record(self, ctx: RecordContext) -> Record | None:
        raise NotImplementedError

    def repair_record(
        self, ctx: RecordContext, record: Record, misses: list[Miss]
    ) -> Record | None:
        raise NotImplementedError

    def account(self, ctx: AccountContext) -> list[AccountSection]:
        raise NotImplementedError


#: The name the runtime workflow's types use: its proposers are :class:`RuntimeProposer`.
Proposer = RuntimeProposer


class ProposalRejected(Exception):
    """A proposer's output could not be used (e.g. still schema-invalid after one
    corrective retry).  The workflow drops that record and keeps ``reason`` so the
    analyst sees why it is missing."""

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(reason)
