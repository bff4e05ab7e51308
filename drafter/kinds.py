"""The record kinds of a report, declared once.

Every record ID pattern, section order, section title and lead-field label elsewhere
in drafter is built from :data:`RECORD_KINDS`, so a kind is added by one row here (plus
the proposer pieces that draft it: an offline recipe, a lead hint for the model). A copy
of this vocabulary written out by hand elsewhere drifts the day a kind is added;
``benchmarks/arch_check.py`` reports any such copy.

This module imports nothing of drafter: :mod:`drafter.model` builds its vocabulary
from it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RecordKind:
    """One kind of record: its ID code, its report section and its lead fields.

    ``lead_labels`` are the labels of the body's first paragraph, in the order they
    appear (``Label: value.``); ``epistemic`` says whether an epistemic report has a
    section of this kind too.  The kind's place in a report is its row's place in
    :data:`RECORD_KINDS`.
    """

    code: str
    section: str
    lead_labels: tuple[str, ...]
    epistemic: bool = False


#: The record kinds, in the order their sections appear in a report.
RECORD_KINDS: tuple[RecordKind, ...] = (
    RecordKind(
        "CMP",
        "Components",
        ("Source-native identity", "Representational form", "Storage substrate"),
    ),
    RecordKind(
        "OBJ",
        "Operative objects",
        ("Source-native identity", "Representational form", "Storage substrate"),
        epistemic=True,
    ),
    RecordKind("RTE", "Routes", ("Endpoints/progression", "Endpoints"), epistemic=True),
    RecordKind("CLM", "Claims", ("Claimed operation",)),
    RecordKind("BAP", "Behavioral-authority paths", ("Consumer", "Channel", "Force", "Horizon")),
)

#: Runtime sections that hold no records of a kind, each with the kind whose section
#: it comes before.
KINDLESS_SECTIONS: tuple[tuple[str, str], ...] = (("Evidenced absences", "BAP"),)

#: The record ID prefix of each report type (``ReportType`` values).
ID_PREFIXES: dict[str, str] = {"runtime": "RT", "epistemic": "EPI"}

#: Kind codes in report order.
KIND_ORDER: tuple[str, ...] = tuple(k.code for k in RECORD_KINDS)
#: Kind code -> its row.
BY_CODE: dict[str, RecordKind] = {k.code: k for k in RECORD_KINDS}


def _alternation(names: tuple[str, ...] | list[str]) -> str:
    return "|".join(re.escape(n) for n in names)


#: ``RT|EPI`` and ``CMP|OBJ|…`` as regular-expression alternations.
PREFIX_PATTERN = _alternation(list(ID_PREFIXES.values()))
KIND_PATTERN = _alternation(KIND_ORDER)
#: How a record ID looks, for messages that refuse one.
ID_FORM = f"{PREFIX_PATTERN}-{KIND_PATTERN}-slug"

#: A whole record ID, with named groups ``prefix``, ``kind`` and ``slug``.
RECORD_ID_RE = re.compile(
    rf"^(?P<prefix>{PREFIX_PATTERN})-(?P<kind>{KIND_PATTERN})-(?P<slug>[a-z0-9][a-z0-9-]*)$"
)
#: A record ID named in prose or a table cell: RECORD_ID_RE unanchored, where a hyphen
#: that ends the match is punctuation ("see RT-RTE-loop-"), not part of the slug.
CITED_ID_RE = re.compile(
    rf"\b(?:{PREFIX_PATTERN})-(?:{KIND_PATTERN})-[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\b"
)


def section_titles(epistemic: bool = False) -> tuple[str, ...]:
    """Titles of the "Shared records" sections of a report type, in report order."""
    out: list[str] = []
    for kind in RECORD_KINDS:
        if epistemic and not kind.epistemic:
            continue
        if not epistemic:
            out.extend(title for title, before in KINDLESS_SECTIONS if before == kind.code)
        out.append(kind.section)
    return tuple(out)


def order_of(code: str) -> int:
    """A kind's place in report order; an unknown code sorts after every kind."""
    return KIND_ORDER.index(code) if code in BY_CODE else len(KIND_ORDER)
