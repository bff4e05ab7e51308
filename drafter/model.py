"""The typed report model: the one shape every part of drafter reads and writes.

A report (hand-written gold or machine draft) is kept as ordered blocks so that the
text format round-trips without loss: the analyst's order of paragraphs, bullets and
witnesses carries meaning.  Derived views (statuses, the nine route fields, the lead
fields, witnesses) are computed from the blocks on demand rather than stored twice, so
they can never disagree with the text.

The JSON form of :class:`Report` (``Report.to_json`` / ``Report.from_json``) is the
canonical draft file; it carries ``schema_version`` so older files can be refused
clearly instead of being misread.  Version 1 kept machine flags as bare strings and
counted dropped account witnesses only in prose notes; version 2 keeps both as data
(:class:`Flag`, :class:`DraftCounts`).  A version-1 file is still read: it is upgraded
once, on load (:func:`upgrade_v1`), the only place that reads outcome prose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

from drafter import kinds as _kinds
from drafter.sanitize import json_safe

SCHEMA_VERSION = 2
#: Draft schema versions this drafter reads (older ones are upgraded on load).
READABLE_SCHEMA_VERSIONS = (1, 2)

# -- vocabulary ---------------------------------------------------------------------

#: Record IDs, kind order, sections and lead labels: built from the table in
#: :mod:`drafter.kinds` and named here for the modules that read the report model.
RECORD_ID_RE = _kinds.RECORD_ID_RE
CITED_ID_RE = _kinds.CITED_ID_RE
KIND_ORDER = _kinds.KIND_ORDER
RUNTIME_SECTIONS = _kinds.section_titles()
EPISTEMIC_SECTIONS = _kinds.section_titles(epistemic=True)
#: Which record kind lives in which section.
SECTION_KIND = {k.section: k.code for k in _kinds.RECORD_KINDS}
KIND_SECTION = {v: k for k, v in SECTION_KIND.items()}

#: The nine named bullet fields every route record carries.
ROUTE_FIELDS = (
    "Immediate return",
    "Later read-back",
    "Delegated visibility",
    "Selection predicate",
    "Invalidation or expiry",
    "Activation or effect",
    "Evidence limits",
)
STATUS_FIELDS = ("implementation conclusion status", "operation conclusion status")
#: All nine: seven named fields plus the two conclusion statuses.
NINE_ROUTE_FIELDS = STATUS_FIELDS + ROUTE_FIELDS

#: Status values seen in real reports.  The set is open: others are kept and flagged.
KNOWN_STATUS_VALUES = frozenset({"wired", "afforded", "claimed", "uninspected"})

#: Lead-field labels by kind, in the order they appear in the body's first paragraph.
LEAD_LABELS: dict[str, tuple[str, ...]] = {k.code: k.lead_labels for k in _kinds.RECORD_KINDS}

RUNTIME_TYPE_PATH = "agentic-system-analyses/types/agentic-system-runtime-report.md"
EPISTEMIC_TYPE_PATH = "agentic-system-analyses/types/agentic-system-epistemic-report.md"


class ReportType(StrEnum):
    runtime = "runtime"
    epistemic = "epistemic"


class VerifyStatus(StrEnum):
    """Outcome of checking one witness against the pinned revision."""

    unchecked = "unchecked"
    verified = "verified"
    not_found = "not_found"
    path_missing = "path_missing"
    ambiguous = "ambiguous"


class MatchKind(StrEnum):
    """Which normalisation a verified quote needed (report-format.md)."""

    exact = "exact"
    whitespace = "whitespace"
    markup = "markup"


class _Base(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=False)


# -- witnesses ----------------------------------------------------------------------


class LineRange(_Base):
    """A 1-based inclusive line span."""

    start: int = Field(ge=1)
    end: int = Field(ge=1)

    @model_validator(mode="after")
    def _ordered(self) -> LineRange:
        if self.end < self.start:
            raise ValueError(f"line range {self.start}-{self.end} ends before it starts")
        return self

    def overlaps(self, other: LineRange) -> bool:
        return self.start <= other.end and other.start <= self.end

    def __str__(self) -> str:
        return f"{self.start}-{self.end}"


class Passage(_Base):
    """A real excerpt of a file, offered to repair a missed quote."""

    path: str
    lines: LineRange
    text: str
    score: float = 0.0


class Anchor(StrEnum):
    """A witness carried to a new revision (``drafter reverify``): where it landed."""

    unchanged = "unchanged"
    moved = "moved"
    stale = "stale"


class Verification(_Base):
    """The verifier's verdict on one witness; never set by a proposer."""

    status: VerifyStatus = VerifyStatus.unchecked
    match_kind: MatchKind | None = None
    lines: LineRange | None = None
    occurrences: int = 0
    revision: str | None = None
    nearest: list[Passage] = Field(default_factory=list)
    message: str = ""
    #: set by reverify when the witness moved or went stale (the TUI tags it)
    anchor: Anchor | None = None

    @model_serializer(mode="wrap")
    def _omit_no_anchor(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # a witness never carried is written as before, key for key
        data: dict[str, Any] = handler(self)
        if self.anchor is None:
            data.pop("anchor", None)
        return data

    @property
    def ok(self) -> bool:
        return self.status == VerifyStatus.verified


class Witness(_Base):
    """A verbatim quote from the source and where it is.

    ``quote`` is kept exactly as written in the report (prose rendering: collapsed
    whitespace, markup dropped, list items as ``•``); the verifier, not the parser,
    decides whether it is really there.
    """

    quote: str = Field(
        description="Verbatim excerpt of the file, whitespace may be collapsed to single spaces."
    )
    path: str = Field(description="Repository-relative path of the file the quote comes from.")
    lines: LineRange | None = Field(
        default=None, description="Optional 1-based line span that picks one occurrence."
    )
    verification: Verification | None = None

    @field_validator("quote")
    @classmethod
    def _non_empty_quote(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("witness quote is empty")
        return v

    @field_validator("path")
    @classmethod
    def _non_empty_path(cls, v: str) -> str:
        # spaces inside a path are legal in git (the text format quotes such paths), and
        # other control characters are carried as ⟨U+XXXX⟩; line breaks and tabs are not
        if not v.strip() or v != v.strip() or any(c.isspace() and c != " " for c in v):
            raise ValueError(
                f"witness path {v!r} is empty, has surrounding spaces or a line break/tab"
            )
        return v

    @property
    def anchor(self) -> str:
        return f"{self.path}:{self.lines}" if self.lines else self.path

    @property
    def verified(self) -> bool:
        return self.verification is not None and self.verification.ok


# -- blocks -------------------------------------------------------------------------


class Paragraph(_Base):
    type: Literal["paragraph"] = "paragraph"
    text: str


class Heading(_Base):
    """A free sub-heading inside an account section."""

    type: Literal["heading"] = "heading"
    text: str


class NumberedItem(_Base):
    """An item of a numbered list ("forcing cases")."""

    type: Literal["numbered"] = "numbered"
    number: int
    text: str


class Bullet(_Base):
    """A ``•`` line.  ``name`` is set when the bullet reads ``Name: value``."""

    type: Literal["bullet"] = "bullet"
    name: str | None = None
    value: str

    @property
    def text(self) -> str:
        return f"{self.name}: {self.value}" if self.name is not None else self.value


class WitnessBlock(_Base):
    type: Literal["witness"] = "witness"
    witness: Witness


class Table(_Base):
    """A TAB-separated table: one header row, then rows."""

    type: Literal["table"] = "table"
    header: list[str]
    rows: list[list[str]] = Field(default_factory=list)


Block = Annotated[
    Paragraph | Heading | NumberedItem | Bullet | WitnessBlock | Table,
    Field(discriminator="type"),
]


# -- statuses -----------------------------------------------------------------------


class Status(_Base):
    """A conclusion status line, bullet or inline ("Implementation conclusion status: wired.")."""

    name: str
    value: str
    inline: bool = False

    @property
    def known(self) -> bool:
        return self.value.lower() in KNOWN_STATUS_VALUES


_STATUS_RE = re.compile(
    r"(?P<name>[A-Za-z][A-Za-z0-9 \-–]*? conclusion status):\s*(?P<value>[A-Za-z][A-Za-z\-]*)"
)


def statuses_in(text: str, inline: bool) -> list[Status]:
    """Every "X conclusion status: value" in ``text``."""
    # cheap pre-check: the lazy name pattern backtracks on every word of long prose
    if "conclusion status" not in text:
        return []
    return [
        Status(name=m.group("name").strip(), value=m.group("value"), inline=inline)
        for m in _STATUS_RE.finditer(text)
    ]


# -- citations ----------------------------------------------------------------------


@dataclass(frozen=True)
class DanglingID:
    """A record ID named at ``where`` (a record ID or an account section) that no record
    answers to: in this report (``cross`` False) or in the report it builds on."""

    where: str
    id: str
    cross: bool = False

    def __str__(self) -> str:
        whose = "the report it builds on" if self.cross else "this report"
        return f"{self.where}: cites {self.id}, which is not a record of {whose}"


# -- machine flags ------------------------------------------------------------------


class FlagKind(StrEnum):
    """What a machine flag says, so code counts and filters by kind, never by wording."""

    witness_dropped = "witness_dropped"  # verifier dropped a witness after repair rounds
    no_verified_witness = "no_verified_witness"  # the drop left the record without any
    no_witness = "no_witness"  # the proposer gave the record no witness at all
    lines_corrected = "lines_corrected"
    repair_dropped = "repair_dropped"  # a proposer's own repair dropped witnesses
    witnesses_not_found = "witnesses_not_found"  # older epistemic drafts (now witness_dropped)
    stale_witness = "stale_witness"  # reverify: a witness gone at the new revision
    stale_reference = "stale_reference"  # reverify: a line named in prose is gone
    redrafted = "redrafted"
    renamed = "renamed"  # duplicate record ID renamed
    dangling_citation = "dangling_citation"
    part_of_removed = "part_of_removed"
    ids_scrubbed = "ids_scrubbed"
    unsupported_label = "unsupported_label"
    model_rejected = "model_rejected"
    not_drafted = "not_drafted"
    note = "note"  # anything else a reviewer should read


class Flag(BaseModel):
    """One machine note on a record: its kind (for code) and its text (for the reviewer;
    rendered exactly as before)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: FlagKind = FlagKind.note
    text: str

    def __str__(self) -> str:
        return self.text


#: How a version-1 flag's wording maps to its kind (read only when upgrading a v1 file).
_V1_FLAG_PREFIXES: tuple[tuple[str, FlagKind], ...] = (
    ("witness dropped", FlagKind.witness_dropped),
    ("no verified witness", FlagKind.no_verified_witness),
    ("no witness given", FlagKind.no_witness),
    ("lines corrected", FlagKind.lines_corrected),
    ("offline repair dropped", FlagKind.repair_dropped),
    ("stale witness", FlagKind.stale_witness),
    ("stale line reference", FlagKind.stale_reference),
    ("redrafted after review", FlagKind.redrafted),
    ("renamed from duplicate ID", FlagKind.renamed),
    ("cites ", FlagKind.dangling_citation),
    ("part-of ", FlagKind.part_of_removed),
    ("label names what no witness shows", FlagKind.unsupported_label),
    ("model: ", FlagKind.model_rejected),
    ("invented record ID(s) removed", FlagKind.ids_scrubbed),
    ("not drafted by the model", FlagKind.not_drafted),
)
_V1_NOT_FOUND = re.compile(r"\d+ witness\(es\) dropped: not found")


def _v1_flag(text: str) -> dict[str, str]:
    if _V1_NOT_FOUND.match(text):
        return {"kind": FlagKind.witnesses_not_found, "text": text}
    for prefix, kind in _V1_FLAG_PREFIXES:
        if text.startswith(prefix):
            return {"kind": kind, "text": text}
    return {"kind": FlagKind.note, "text": text}


def _v1_anchor(block: Any) -> None:
    """Version 1 told a carried witness's anchor only in its verification message."""
    w = block.get("witness") if isinstance(block, dict) else None
    v = w.get("verification") if isinstance(w, dict) else None
    if isinstance(v, dict) and "anchor" not in v and isinstance(v.get("message"), str):
        for a in (Anchor.moved, Anchor.stale):
            if v["message"].startswith(f"{a.value}:"):
                v["anchor"] = a


def upgrade_v1(data: dict[str, Any]) -> dict[str, Any]:
    """A version-1 draft (raw JSON) as version 2: string flags become :class:`Flag`
    objects and dropped account witnesses, then only told in notes, are counted.

    Why here: version 1 stored outcomes as prose, so this upgrade is the one place the
    wording is read; everything after it works on kinds and counters."""
    out = dict(data)
    for sec in [*(out.get("account") or []), *(out.get("sections") or [])]:
        for r in sec.get("records", [sec]) if isinstance(sec, dict) else []:
            for b in r.get("blocks") or [] if isinstance(r, dict) else []:
                _v1_anchor(b)
    sections = []
    for sec in out.get("sections") or []:
        if isinstance(sec, dict) and isinstance(sec.get("records"), list):
            recs = []
            for r in sec["records"]:
                if isinstance(r, dict) and isinstance(r.get("flags"), list):
                    flags = [_v1_flag(f) if isinstance(f, str) else f for f in r["flags"]]
                    r = {**r, "flags": flags}
                recs.append(r)
            sec = {**sec, "records": recs}
        sections.append(sec)
    if "sections" in out:
        out["sections"] = sections
    meta = out.get("meta")
    if isinstance(meta, dict) and "counts" not in meta:
        notes = [n for n in meta.get("notes") or [] if isinstance(n, str)]
        dropped = sum(1 for n in notes if n.startswith("account witness dropped"))
        out["meta"] = {**meta, "counts": {"account_witnesses_dropped": dropped}}
    out["schema_version"] = SCHEMA_VERSION
    return out


# -- records ------------------------------------------------------------------------


class Record(_Base):
    """One shared record: component, object, route, claim or behavioral-authority path."""

    id: str = Field(
        description="Record ID of the form PREFIX-KIND-slug, e.g. RT-RTE-gate-admission."
    )
    label: str = Field(description="Short title of the record.")
    part_of: str | None = Field(
        default=None, description="ID of the record this one is part of, if any."
    )
    blocks: list[Block] = Field(default_factory=list)
    flags: list[Flag] = Field(
        default_factory=list,
        description="Machine notes for the reviewer (dropped witnesses, unknown statuses).",
    )

    def flags_of(self, kind: FlagKind) -> list[Flag]:
        return [f for f in self.flags if f.kind == kind]

    @field_validator("id")
    @classmethod
    def _valid_id(cls, v: str) -> str:
        if not RECORD_ID_RE.match(v):
            raise ValueError(f"record ID {v!r} is not of the form {_kinds.ID_FORM}")
        return v

    @field_validator("label")
    @classmethod
    def _valid_label(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("record label is empty")
        return v

    @field_validator("part_of")
    @classmethod
    def _valid_part_of(cls, v: str | None) -> str | None:
        if v is not None and not RECORD_ID_RE.match(v):
            raise ValueError(f"part-of {v!r} is not a record ID")
        return v

    # derived views ---------------------------------------------------------------

    @property
    def prefix(self) -> str:
        return self.id.split("-", 2)[0]

    @property
    def kind(self) -> str:
        return self.id.split("-", 2)[1]

    @property
    def slug(self) -> str:
        return self.id.split("-", 2)[2]

    @property
    def witnesses(self) -> list[Witness]:
        return [b.witness for b in self.blocks if isinstance(b, WitnessBlock)]

    @property
    def paragraphs(self) -> list[str]:
        return [b.text for b in self.blocks if isinstance(b, Paragraph)]

    @property
    def statuses(self) -> list[Status]:
        """Statuses in order: bullets and inline mentions inside paragraphs."""
        out: list[Status] = []
        for b in self.blocks:
            if isinstance(b, Bullet):
                out.extend(statuses_in(b.text, inline=False))
            elif isinstance(b, Paragraph):
                out.extend(statuses_in(b.text, inline=True))
        return out

    def status(self, name: str) -> str | None:
        """The first value of a status by case-insensitive name."""
        for s in self.statuses:
            if s.name.lower() == name.lower():
                return s.value
        return None

    @property
    def fields(self) -> dict[str, str]:
        """Named bullet fields (``• Name: value``), first occurrence wins."""
        out: dict[str, str] = {}
        for b in self.blocks:
            if isinstance(b, Bullet) and b.name is not None and b.name not in out:
                out[b.name] = b.value
        return out

    @property
    def route_fields_present(self) -> dict[str, bool]:
        """For each of the nine route fields: is it given (bullet or inline status)?"""
        fields = {k.lower() for k in self.fields}
        stats = {s.name.lower() for s in self.statuses}
        return {f: (f.lower() in fields or f.lower() in stats) for f in NINE_ROUTE_FIELDS}

    @property
    def lead(self) -> dict[str, str]:
        """Kind-specific lead fields read from the body paragraphs."""
        return extract_lead(self.kind, self.paragraphs)

    def warnings(self) -> list[str]:
        """Things a reviewer should see: unknown status values, missing route fields."""
        out = [
            f"{self.id}: unknown status value {s.value!r} for {s.name!r}"
            for s in self.statuses
            if not s.known
        ]
        return out

    def body_text(self) -> str:
        """All prose of the record (paragraphs and bullets), for similarity measures."""
        parts: list[str] = []
        for b in self.blocks:
            if isinstance(b, Paragraph | Heading | NumberedItem):
                parts.append(b.text)
            elif isinstance(b, Bullet):
                parts.append(b.text)
        return "\n".join(parts)


def extract_lead(kind: str, paragraphs: list[str]) -> dict[str, str]:
    """Split "Label: value. Label: value." lead text into a dict, per kind's labels."""
    labels = LEAD_LABELS.get(kind, ())
    if not labels:
        return {}
    text = " ".join(paragraphs)
    pattern = re.compile(r"\b(" + "|".join(re.escape(lab) for lab in labels) + r"):\s*")
    hits = list(pattern.finditer(text))
    out: dict[str, str] = {}
    for i, m in enumerate(hits):
        end = hits[i + 1].start() if i + 1 < len(hits) else len(text)
        value = text[m.end() : end].strip()
        # a lead value ends at its sentence, unless the next label follows directly
        if i + 1 == len(hits):
            value = _first_sentence(value)
        if m.group(1) not in out:
            out[m.group(1)] = value.rstrip()
    return out


def _first_sentence(text: str) -> str:
    m = re.search(r"(?<=[.;])\s+(?=[A-Z])", text)
    return text[: m.start()] if m else text


# -- sections and report ------------------------------------------------------------


class RecordSection(_Base):
    """A titled list of records in the "Shared records" part."""

    title: str
    records: list[Record] = Field(default_factory=list)
    #: Text standing in for records, e.g. "none declared in this member".
    note: str | None = None


class AccountSection(_Base):
    """A top-level prose section: "Runtime account", "Coverage", "Bounded conclusion"…"""

    title: str
    blocks: list[Block] = Field(default_factory=list)

    @property
    def witnesses(self) -> list[Witness]:
        return [b.witness for b in self.blocks if isinstance(b, WitnessBlock)]

    @property
    def tables(self) -> list[Table]:
        return [b for b in self.blocks if isinstance(b, Table)]


class Source(_Base):
    """SRC-1: the repository at the pinned revision."""

    id: str = "SRC-1"
    repository: str = Field(
        description="Repository identity, e.g. github:owner/name or a local path."
    )
    revision: str | None = Field(
        default=None, description="Full 40-hex commit SHA the witnesses verify at."
    )
    location: str | None = Field(
        default=None,
        description="Absolute path of the repository on the machine that drafted the report: "
        "where reverify, redraft, eval and verify look when --repo is not given.  Not part "
        "of the report's text or of its review identity.",
    )


class Usage(_Base):
    """Token and cost accounting for one workflow node.

    A cache figure is None when the server never reported one (an Anthropic-compatible
    local server has no prompt cache), and the cost None when the model has no known
    price: "not reported" is kept apart from 0."""

    node: str
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int | None = 0
    cache_read_input_tokens: int | None = 0
    cost_usd: float | None = 0.0


class DraftCounts(_Base):
    """Outcomes counted while drafting, kept as numbers so no one counts messages.

    (A record's dropped witnesses are its :attr:`FlagKind.witness_dropped` flags; the
    account has no flags, so its drops are counted here.)"""

    account_witnesses_dropped: int = 0
    #: The proposer gave no plan, so the draft has no record for that reason (the
    #: reason is one of :attr:`DraftMeta.missing`).
    plan_failed: bool = False

    @model_serializer(mode="wrap")
    def _omit_unset_flag(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # drafts whose plan did not fail are written as before, key for key
        data: dict[str, Any] = handler(self)
        if not self.plan_failed:
            data.pop("plan_failed", None)
        return data


class DraftMeta(_Base):
    """Provenance of a machine draft; absent on hand-written reports."""

    generator: str = ""
    model: str | None = None
    created: str | None = None
    drafter_version: str | None = None
    usage: list[Usage] = Field(default_factory=list)
    missing: list[str] = Field(
        default_factory=list, description="What a partial draft did not get to."
    )
    notes: list[str] = Field(default_factory=list)
    extra: dict[str, Any] = Field(default_factory=dict)
    counts: DraftCounts = Field(default_factory=lambda: DraftCounts())

    @model_serializer(mode="wrap")
    def _omit_zero_counts(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # a draft with nothing counted is written as before, key for key
        data: dict[str, Any] = handler(self)
        if self.counts == DraftCounts():
            data.pop("counts", None)
        return data


class Report(_Base):
    """A whole runtime or epistemic report."""

    schema_version: int = SCHEMA_VERSION
    system: str
    type: ReportType
    type_path: str | None = None
    source: Source | None = None
    account: list[AccountSection] = Field(default_factory=list)
    sections: list[RecordSection] = Field(default_factory=list)
    annotations: str | None = None
    meta: DraftMeta | None = None

    @model_validator(mode="before")
    @classmethod
    def _upgrade(cls, data: Any) -> Any:
        version = data.get("schema_version") if isinstance(data, dict) else None
        if type(version) is int and version == 1:  # not True, not 1.0: those are refused
            return upgrade_v1(data)
        return data

    @field_validator("schema_version")
    @classmethod
    def _known_schema(cls, v: int) -> int:
        if v not in READABLE_SCHEMA_VERSIONS:
            known = ", ".join(map(str, READABLE_SCHEMA_VERSIONS))
            raise ValueError(f"schema_version {v} is not supported (this drafter reads {known})")
        return v

    # access ----------------------------------------------------------------------

    @property
    def records(self) -> list[Record]:
        return [r for s in self.sections for r in s.records]

    def record(self, record_id: str) -> Record | None:
        for r in self.records:
            if r.id == record_id:
                return r
        return None

    def section(self, title: str) -> RecordSection | None:
        for s in self.sections:
            if s.title == title:
                return s
        return None

    def records_of_kind(self, kind: str) -> list[Record]:
        return [r for r in self.records if r.kind == kind]

    @property
    def witnesses(self) -> list[Witness]:
        """Every witness: account first, then records, in document order."""
        return [w for _, w in self.located_witnesses()]

    def located_witnesses(self) -> list[tuple[str, Witness]]:
        """Every witness with where it sits (account section title or record ID), in the
        same order as ``witnesses``."""
        out: list[tuple[str, Witness]] = []
        for a in self.account:
            out.extend((a.title, w) for w in a.witnesses)
        for r in self.records:
            out.extend((r.id, w) for w in r.witnesses)
        return out

    @property
    def tables(self) -> list[Table]:
        return [t for a in self.account for t in a.tables]

    def warnings(self) -> list[str]:
        out: list[str] = []
        seen: set[str] = set()
        for r in self.records:
            if r.id in seen:
                out.append(f"{r.id}: duplicate record ID")
            seen.add(r.id)
            out.extend(r.warnings())
        out.extend(str(d) for d in self.dangling())
        return out

    # citations -------------------------------------------------------------------

    @property
    def own_prefix(self) -> str:
        """The ID prefix of this report's own records: RT for runtime, EPI for epistemic."""
        return _kinds.ID_PREFIXES[self.type]

    def citations(self) -> list[tuple[str, str]]:
        """(where, record ID) for every record ID the report names, in document order.

        Read from account prose and table cells, record labels, ``Part of`` and record
        prose.  Not from witness quotes (repository text may name anything), the
        annotations (an analyst's note on a rejected record names it on purpose) or
        machine flags.
        """
        out: list[tuple[str, str]] = []

        def scan(where: str, text: str) -> None:
            if "-" in text:
                out.extend((where, m) for m in CITED_ID_RE.findall(text))

        for a in self.account:
            for b in a.blocks:
                if isinstance(b, Table):
                    for row in [b.header, *b.rows]:
                        for cell in row:
                            scan(a.title, cell)
                elif not isinstance(b, WitnessBlock):
                    scan(a.title, b.text)
        for r in self.records:
            scan(r.id, r.label)
            if r.part_of:
                out.append((r.id, r.part_of))
            scan(r.id, r.body_text())
        return out

    def companion_ids(self) -> set[str] | None:
        """IDs of the report this one builds on, when the draft recorded them (an
        epistemic draft keeps its runtime input's IDs in ``meta.extra["runtime_ids"]``)."""
        ids = self.meta.extra.get("runtime_ids") if self.meta else None
        if isinstance(ids, list) and all(isinstance(i, str) for i in ids):
            return set(ids)
        return None

    def dangling(self, companion: set[str] | None = None) -> list[DanglingID]:
        """Record IDs the report names that no record answers to, once per place.

        An ID of the report's own prefix (``RT-`` in a runtime report) must be one of
        its records.  An ID of the other prefix is a cross-report reference (an
        epistemic report cites the runtime report of the same system): it is checked
        against ``companion`` (the other report's IDs) when that is known -- given by the
        caller or recorded in the draft (:meth:`companion_ids`) -- and left alone
        otherwise, since the other report is not at hand.
        """
        own = {r.id for r in self.records}
        other = companion if companion is not None else self.companion_ids()
        out: list[DanglingID] = []
        seen: set[tuple[str, str]] = set()
        for where, rid in self.citations():
            if (where, rid) in seen or rid in own:
                continue
            seen.add((where, rid))
            if rid.startswith(self.own_prefix + "-"):
                out.append(DanglingID(where, rid, cross=False))
            elif other is not None and rid not in other:
                out.append(DanglingID(where, rid, cross=True))
        return out

    # JSON ------------------------------------------------------------------------

    def to_json(self) -> str:
        # C1 controls stay raw in pydantic's JSON; written as \u escapes they cannot
        # drive a terminal that shows the file, and the data read back is the same
        return json_safe(self.model_dump_json(indent=2, exclude_none=False)) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Report:
        return cls.model_validate_json(text)
