"""Universal statements a record makes without a witnessed call behind them.

Why: a universal statement is the wrong statement a draft makes one read short ("every
tool call reaches the policy engine through the message bus", when the scheduler also
calls the engine directly).  A statement of the form "every X goes
through Y" is true only if some call makes it so; a record whose witnesses quote no
call at all (only declarations, documents or settings) has not shown that call.  The
verifier cannot decide such a statement, so it flags it for the reviewer instead.
"""

from __future__ import annotations

import re

from drafter.model import Flag, FlagKind, Paragraph, Record, WitnessBlock

#: A sentence that claims something of every case ("every X …", "all Y are …", "always").
_UNIVERSAL = re.compile(
    r"\b(every|all|always|never|each|any|no)\b[^.;:]{0,120}?"
    r"\b(goes?|go|pass(es)?|routes?|routed|reach(es)?|through|via|checked|gated|calls?"
    r"|called|sent|handled|enforced|validated|filtered)\b",
    re.I,
)
#: A call expression in a quote: a name, optionally dotted, then an opening bracket.
_CALL = re.compile(r"[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*\s*\(")
#: Words that open a definition rather than a call.
_DEFINITION = re.compile(r"^\s*(def|class|function|async\s+def|async\s+function)\b")
PREFIX = "universal statement without a witnessed call"


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]


def _has_call(quote: str) -> bool:
    return any(_CALL.search(line) and not _DEFINITION.match(line) for line in quote.splitlines())


def universal_flag(record: Record) -> Flag | None:
    """A note for the reviewer when the record's prose states something of every case
    and none of its witnesses quotes a call; None otherwise (or already flagged)."""
    if any(f.text.startswith(PREFIX) for f in record.flags):
        return None
    quotes = [b.witness.quote for b in record.blocks if isinstance(b, WitnessBlock)]
    if any(_has_call(q) for q in quotes):
        return None
    for b in record.blocks:
        if isinstance(b, Paragraph):
            for s in _sentences(b.text):
                if _UNIVERSAL.search(s):
                    short = s if len(s) <= 160 else s[:157] + "..."
                    return Flag(
                        kind=FlagKind.note,
                        text=f"{PREFIX}: {short!r}; no witness quotes the call that makes "
                        "it true, so check it against the code",
                    )
    return None
