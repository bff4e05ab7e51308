"""Classify single lines of the report text format.

Why a separate module: the document parser, the record parser and the proposers that
emit witness lines must agree on what one line means (witness, bullet, numbered item,
table row, record ID, section heading).  Keeping the rules in one place, as pure
functions of a line, makes that agreement testable line by line.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Literal

from drafter.model import RECORD_ID_RE, LineRange, Witness
from drafter.text import clip

#: What separates a quote from its path on a witness line.
WITNESS_SEP = " --- "

BULLET = "•"

LineKind = Literal["blank", "witness", "bad_witness", "table", "bullet", "numbered", "text"]

#: A witness whose path needs quoting: ``<quote> --- "<path with spaces>"[:a-b]``.
_QUOTED_RE = re.compile(
    r'^(?P<quote>.*?\S.*) --- (?P<path>"(?:[^"\\]|\\.)*")(?P<range>:\d+(?:-\d+)?)?$'
)
#: The tail of a line that was meant as a witness whose path has spaces in it: a few
#: words ending in something path-shaped (a file suffix or a folder separator).
_SPACED_PATH_RE = re.compile(
    r"^(?:[^\s,;!?]+ ){1,5}[^\s,;!?]*(?:\.[A-Za-z0-9_]{1,10}|/[^\s/]+)(?::\d+(?:-\d+)?)?$"
)
_ANCHOR_RANGE_RE = re.compile(r"^(?P<path>.+?):(?P<start>\d+)(?:-(?P<end>\d+))?$")
_BULLET_RE = re.compile(r"^(?P<indent>[ \t]*)•[ \t]*(?P<text>.*)$")
_NUMBERED_RE = re.compile(r"^(?P<indent>[ \t]*)(?P<number>\d{1,4})\.[ \t]+(?P<text>\S.*)$")
#: "Name: value" inside a bullet.  Names are short phrases without sentence punctuation,
#: so a bullet that is a sentence with a colon late in it stays unnamed.
_BULLET_NAME_RE = re.compile(
    r"^(?P<name>[A-Za-z][A-Za-z0-9 /()'’\-–]{0,59}?):[ \t]+(?P<value>\S.*)$"
)
#: Something that is meant as a record ID (validated strictly afterwards).
ID_LIKE_RE = re.compile(r"^[A-Z]{2,4}-[A-Z]{2,4}-\S+$")
#: Shape of a section title: "Operative objects", "Behavioral-authority paths".
_SECTION_TITLE_RE = re.compile(r"^[A-Z][a-z]+(?:[ -][A-Za-z][a-z]*){0,5}$")


@dataclass(frozen=True, slots=True)
class Line:
    """One classified line.  ``text`` is the content without indentation or marker."""

    kind: LineKind
    raw: str
    text: str = ""
    indent: str = ""
    number: int | None = None
    witness: Witness | None = None
    problem: str | None = None  # why a bad_witness is bad, or a note about the line


def parse_anchor(anchor: str) -> tuple[str, LineRange | None, str | None]:
    """Split ``path`` or ``path:start-end`` into (path, range, note).

    ``path:N`` is read as the single line N (with a note, since the format writes
    ranges as start-end).  A range that ends before it starts raises ValueError.
    """
    m = _ANCHOR_RANGE_RE.match(anchor)
    if not m:
        return anchor, None, None
    start = int(m.group("start"))
    end_s = m.group("end")
    end = int(end_s) if end_s is not None else start
    if start < 1:
        raise ValueError(f"line range in {anchor!r} starts before line 1")
    if end < start:
        raise ValueError(f"line range {start}-{end} ends before it starts")
    note = (
        None if end_s is not None else f"single line number in {anchor!r} read as {start}-{start}"
    )
    return m.group("path"), LineRange(start=start, end=end), note


def split_witness(line: str) -> Line | None:
    """Recognise ``<quote> --- <path>[:start-end]``; None when the line is no witness.

    The separator is the LAST " --- " on the line and it must be followed by one token
    (no spaces) ending the line, so a quote may itself contain " --- ".  A line whose
    last " --- " is followed by several words is prose using a dash, not a witness.
    """
    stripped = line.strip()
    if stripped.endswith(" ---") or stripped == "---":
        return Line(
            "bad_witness", line, stripped, problem="witness line has ' --- ' but no path after it"
        )
    idx = stripped.rfind(WITNESS_SEP)
    if idx < 0:
        if stripped.startswith("--- ") and len(stripped.split()) == 2:
            return Line(
                "bad_witness", line, stripped, problem="witness line has a path but no quote"
            )
        return None
    quoted = _quoted_witness(line, stripped)
    if quoted is not None:
        return quoted
    tail = stripped[idx + len(WITNESS_SEP) :].strip()
    quote = stripped[:idx].strip()
    if tail and any(c.isspace() for c in tail) and _SPACED_PATH_RE.match(tail):
        return Line(
            "bad_witness",
            line,
            stripped,
            problem=f"witness path {tail!r} has spaces; write it in double quotes "
            f'(<quote> --- "dir/a file.py")',
        )
    if not tail or any(c.isspace() for c in tail):
        return None
    if not quote:
        return Line("bad_witness", line, stripped, problem="witness line has a path but no quote")
    try:
        path, lines, note = parse_anchor(tail)
    except ValueError as exc:
        # a 5,000-digit line number is a ValueError too, with a message as long as it
        why = "line number too long" if "integer string conversion" in str(exc) else str(exc)
        return Line(
            "bad_witness", line, stripped, problem=f"witness anchor {clip(tail, 80)!r}: {why}"
        )
    indent = line[: len(line) - len(line.lstrip())]
    return Line(
        "witness",
        line,
        quote,
        indent=indent,
        witness=Witness(quote=quote, path=path, lines=lines),
        problem=note,
    )


def _quoted_witness(line: str, stripped: str) -> Line | None:
    """``<quote> --- "<path>"[:a-b]``: the form for paths with spaces (JSON string rules)."""
    m = _QUOTED_RE.match(stripped)
    if not m:
        return None
    try:
        path = json.loads(m.group("path"))
    except ValueError:
        return Line("bad_witness", line, stripped, problem="witness path in quotes is malformed")
    try:
        _, lines, note = parse_anchor("x" + (m.group("range") or ""))
        witness = Witness(quote=m.group("quote").strip(), path=path, lines=lines)
    except ValueError as exc:
        return Line("bad_witness", line, stripped, problem=f"witness: {_first_line(exc)}")
    indent = line[: len(line) - len(line.lstrip())]
    return Line("witness", line, witness.quote, indent=indent, witness=witness, problem=note)


def _first_line(exc: Exception) -> str:
    errs = getattr(exc, "errors", None)
    if callable(errs):
        return str(errs()[0].get("msg", exc))
    return str(exc).splitlines()[0]


def needs_quoting(path: str) -> bool:
    """Paths written in double quotes on a witness line: spaces, or a leading quote."""
    return any(c.isspace() for c in path) or path.startswith('"')


def classify(line: str) -> Line:
    """Classify one line of report text (without its newline)."""
    if not line.strip():
        return Line("blank", line)
    if "\t" in line.lstrip(" "):
        return Line("table", line, line.lstrip(" "))
    w = split_witness(line)
    if w is not None:
        return w
    m = _BULLET_RE.match(line)
    if m:
        return Line("bullet", line, m.group("text").strip(), indent=m.group("indent"))
    m = _NUMBERED_RE.match(line)
    if m:
        return Line(
            "numbered",
            line,
            m.group("text").strip(),
            indent=m.group("indent"),
            number=int(m.group("number")),
        )
    indent = line[: len(line) - len(line.lstrip())]
    return Line("text", line, line.strip(), indent=indent)


def split_bullet_name(text: str) -> tuple[str | None, str]:
    """``"Immediate return: x"`` -> ``("Immediate return", "x")``; unnamed -> ``(None, text)``."""
    m = _BULLET_NAME_RE.match(text)
    if not m:
        return None, text
    return m.group("name").strip(), m.group("value").strip()


def is_id_like(text: str) -> bool:
    """A line meant as a record ID (it may still fail strict validation)."""
    return bool(ID_LIKE_RE.match(text.strip()))


def is_valid_record_id(text: str) -> bool:
    return bool(RECORD_ID_RE.match(text.strip()))


def looks_like_section_title(text: str) -> bool:
    """Short capitalised phrase without punctuation: how section titles are written."""
    return bool(_SECTION_TITLE_RE.match(text.strip()))


def looks_like_subheading(text: str) -> bool:
    """A free sub-heading in an account: one short line that is not a sentence."""
    t = text.strip()
    if not t or len(t) > 80 or WITNESS_SEP in t or "\t" in t:
        return False
    if not (t[0].isupper() or t[0].isdigit()):
        return False
    if t[-1] in ".:;,!?)]\"'”’" or ". " in t:
        return False
    return len(t.split()) <= 10


def format_witness(w: Witness, indent: str = "") -> str:
    """The one-line text form of a witness (a path with spaces goes in double quotes)."""
    if needs_quoting(w.path):
        anchor = json.dumps(w.path, ensure_ascii=False) + (f":{w.lines}" if w.lines else "")
        return f"{indent}{w.quote} {WITNESS_SEP.strip()} {anchor}"
    return f"{indent}{w.quote} {WITNESS_SEP.strip()} {w.anchor}"
