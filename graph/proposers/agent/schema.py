"""Structured-output models for the Claude proposer and their tool definitions.

The model answers only through forced tool use; each tool's ``input_schema`` is
generated from a pydantic model here, whose ``Field(description=...)`` texts are what
the model reads.  The shapes are deliberately flatter than ``drafter.model.Record``
(lead, fields, paragraphs, witnesses) so they are easy to fill correctly; conversion
to the report model happens here and raises ``ValueError`` on anything the report
model refuses, which the proposer treats as schema-invalid output.
"""

from __future__ import annotations

import copy
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from drafter.model import (
    RECORD_ID_RE,
    ROUTE_FIELDS,
    AccountSection,
    Block,
    Bullet,
    Flag,
    FlagKind,
    Heading,
    LineRange,
    NumberedItem,
    Paragraph,
    Record,
    Witness,
    WitnessBlock,
)
from drafter.sanitize import unescape
from graph.jsontypes import JsonDict
from graph.proposer import Plan

PLAN_TOOL = "submit_plan"
RECORD_TOOL = "submit_record"
ACCOUNT_TOOL = "submit_account"


class WitnessDraft(BaseModel):
    quote: str = Field(
        description="Verbatim excerpt of the file; whitespace may be collapsed to single spaces."
    )
    path: str = Field(description="Repository-relative path of the file the quote is copied from.")
    start_line: int | None = Field(
        default=None,
        ge=1,
        description=(
            "First line of the excerpt. Optional when the quote occurs once in the file (it "
            "verifies at its true lines); needed when it occurs more than once, since an "
            "ambiguous quote is not verified."
        ),
    )
    end_line: int | None = Field(
        default=None, ge=1, description="Last line of the excerpt (as for start_line)."
    )


class FieldDraft(BaseModel):
    name: str = Field(
        description='Field name, e.g. "implementation conclusion status" or "Immediate return".'
    )
    value: str = Field(description='Field value, e.g. "wired" or a sentence.')


class RecordDraft(BaseModel):
    label: str = Field(description="Short title of the record.")
    part_of: str | None = Field(
        default=None,
        description=(
            "ID of the record this one is a step or element of (e.g. a model call made inside "
            "a route names that route), or null."
        ),
    )
    lead: str = Field(description="The kind-specific lead paragraph.")
    fields: list[FieldDraft] = Field(
        default_factory=list,
        description=(
            'Named bullet fields. Every record, of every kind: "implementation conclusion '
            'status" and "operation conclusion status" (wired / afforded / claimed / '
            "uninspected). Routes also the seven route fields: "
            + ", ".join(ROUTE_FIELDS)
            + ' (nine fields with the two statuses). Claims (CLM) also "claim status": wired'
            " (the code does what was promised), partly (with exceptions or on some paths),"
            " not wired (no code found does it), contradicted (the code does otherwise)."
        ),
    )
    paragraphs: list[str] = Field(default_factory=list, description="Explanatory paragraphs.")
    witnesses: list[WitnessDraft] = Field(
        default_factory=list, description="Verbatim quotes supporting the record."
    )


#: Line hints of a witness given among prose items (account items, epistemic section
#: items): one definition, so both schemas tell the model the same thing.
ItemStartLine = Annotated[
    int | None,
    Field(
        ge=1,
        description=(
            "For a witness: first line of the quote. Optional when the quote occurs once in "
            "the file; needed when it occurs more than once (an ambiguous quote is dropped)."
        ),
    ),
]
ItemEndLine = Annotated[
    int | None,
    Field(ge=1, description="For a witness: last line of the quote (as start_line)."),
]


class AccountItemDraft(BaseModel):
    type: Literal["heading", "paragraph", "numbered", "witness"] = Field(
        description="What this item is."
    )
    text: str = Field(
        description="Heading, paragraph or numbered-item text; for a witness the verbatim quote."
    )
    path: str | None = Field(
        default=None, description="For a witness: the path of the quoted file; else null."
    )
    start_line: ItemStartLine = None
    end_line: ItemEndLine = None


class AccountSectionDraft(BaseModel):
    title: str = Field(description='Sub-heading, e.g. "Scope and ordinary invocation".')
    items: list[AccountItemDraft] = Field(default_factory=list)


class AccountDraft(BaseModel):
    sections: list[AccountSectionDraft] = Field(default_factory=list)


# -- schemas ----------------------------------------------------------------------


def inline_schema(model: type[BaseModel]) -> JsonDict:
    """The model's JSON schema with ``$ref``s inlined, so the tool schema is
    self-contained (the shapes here are not recursive)."""
    schema = model.model_json_schema()
    defs = schema.pop("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                target = copy.deepcopy(defs[node["$ref"].split("/")[-1]])
                return walk(target)
            return {k: walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    resolved: JsonDict = walk(schema)  # walk keeps a dict a dict; it is typed Any
    return resolved


def tool(name: str, description: str, model: type[BaseModel]) -> JsonDict:
    return {"name": name, "description": description, "input_schema": inline_schema(model)}


PLAN_TOOL_DEF = tool(PLAN_TOOL, "Submit the outline of records to draft.", Plan)
RECORD_TOOL_DEF = tool(RECORD_TOOL, "Submit one drafted record.", RecordDraft)
ACCOUNT_TOOL_DEF = tool(ACCOUNT_TOOL, "Submit the runtime account.", AccountDraft)


# -- conversion -------------------------------------------------------------------


def model_witness(quote: str, path: str, lines: LineRange | None = None) -> Witness:
    """A witness from the model's words, its ``⟨U+XXXX⟩`` escapes read back.

    Every request shows control characters of repository text in their visible form
    (:func:`drafter.sanitize.frame_escape`), so a model copying a line that really holds
    an ESC byte writes ``⟨U+001B⟩``; unescaped, the quote matches the file's bytes.
    """
    return Witness(quote=unescape(quote), path=unescape(path.strip()), lines=lines)


def hint_lines(start: int | None, end: int | None) -> LineRange | None:
    """The model's optional line hint as a range (a lone start is one line; no start,
    no hint).  Raises ValueError when the end comes before the start."""
    if start is None:
        return None
    return LineRange(start=start, end=end or start)


def to_witness(w: WitnessDraft) -> Witness:
    return model_witness(w.quote, w.path, hint_lines(w.start_line, w.end_line))


def to_record(draft: RecordDraft, record_id: str) -> Record:
    """Build the report record; raises ValueError (pydantic) on refused content."""
    blocks: list[Block] = []
    if draft.lead.strip():
        blocks.append(Paragraph(text=draft.lead.strip()))
    for f in draft.fields:
        blocks.append(Bullet(name=f.name.strip(), value=f.value.strip()))
    blocks.extend(Paragraph(text=p.strip()) for p in draft.paragraphs if p.strip())
    blocks.extend(WitnessBlock(witness=to_witness(w)) for w in draft.witnesses)
    flags: list[Flag] = []
    part_of = draft.part_of
    if part_of is not None and not RECORD_ID_RE.match(part_of):
        flags.append(
            Flag(
                kind=FlagKind.part_of_removed,
                text=f"part-of {part_of!r} was not a record ID and was removed",
            )
        )
        part_of = None
    return Record(id=record_id, label=draft.label, part_of=part_of, blocks=blocks, flags=flags)


def from_record(record: Record) -> RecordDraft:
    """The record in the tool's own shape, shown to the model when it repairs it."""
    lead = ""
    paragraphs: list[str] = []
    fields: list[FieldDraft] = []
    witnesses: list[WitnessDraft] = []
    for b in record.blocks:
        if isinstance(b, Paragraph):
            if not lead and not paragraphs:
                lead = b.text
            else:
                paragraphs.append(b.text)
        elif isinstance(b, Bullet):
            fields.append(FieldDraft(name=b.name or "", value=b.value))
        elif isinstance(b, WitnessBlock):
            w = b.witness
            witnesses.append(
                WitnessDraft(
                    quote=w.quote,
                    path=w.path,
                    start_line=w.lines.start if w.lines else None,
                    end_line=w.lines.end if w.lines else None,
                )
            )
    return RecordDraft(
        label=record.label,
        part_of=record.part_of,
        lead=lead,
        fields=fields,
        paragraphs=paragraphs,
        witnesses=witnesses,
    )


def to_account(draft: AccountDraft) -> list[AccountSection]:
    out: list[AccountSection] = []
    for sec in draft.sections:
        blocks: list[Block] = []
        number = 0
        for it in sec.items:
            if it.type == "heading":
                blocks.append(Heading(text=it.text))
            elif it.type == "paragraph":
                blocks.append(Paragraph(text=it.text))
            elif it.type == "numbered":
                number += 1
                blocks.append(NumberedItem(number=number, text=it.text))
            else:
                if not it.path:
                    raise ValueError(f"account witness {it.text[:40]!r} has no path")
                lines = hint_lines(it.start_line, it.end_line)
                blocks.append(WitnessBlock(witness=model_witness(it.text, it.path, lines)))
        out.append(AccountSection(title=sec.title, blocks=blocks))
    return out
