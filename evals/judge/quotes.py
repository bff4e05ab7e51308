"""Real quoted lines for the judge, where a labelled pair's saved draft is redacted.

Why: the labelled drafts kept in tests/data carry each witness quote as
``[redacted quote <hash>: names]`` (:mod:`evals.redact`), because the project does not
carry other repositories' code.  The judge reads quotes to tell which mechanism a
record points at, and names alone often cannot say.  Where the pair's repository is at
hand at the pinned revision, the quoted lines are read back from its git objects at the
place the verifier found them, in memory only, and shown to the judge instead; nothing
is written.  Redacted prose (``[redacted code: names]``) cannot be restored this way:
the redaction kept only the names and no location, so the judge is told what it is.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from evals.witnesses import LocatedWitness

REDACTED_QUOTE = "[redacted quote "
#: A restored quote longer than this is cut (the request clips quotes further).
MAX_LINES = 40

#: Text of the file at ``path`` at the pair's revision, or None when it cannot be read.
ReadFile = Callable[[str], str | None]


def restore(located: Sequence[LocatedWitness], read: ReadFile) -> list[LocatedWitness]:
    """``located`` with each redacted quote replaced by the lines it stands for, where
    the verifier located it (path and line span) and the file can be read; other
    witnesses unchanged."""
    out: list[LocatedWitness] = []
    for lw in located:
        span = lw.span
        if not lw.witness.quote.startswith(REDACTED_QUOTE) or span is None:
            out.append(lw)
            continue
        text = read(lw.path)
        lines = text.splitlines() if text is not None else []
        if span.end > len(lines):
            out.append(lw)
            continue
        end = min(span.end, span.start + MAX_LINES - 1)
        quote = "\n".join(lines[span.start - 1 : end])
        witness = lw.witness.model_copy(update={"quote": quote})
        out.append(dataclasses.replace(lw, witness=witness))
    return out


def restore_all(
    by_record: Sequence[Sequence[LocatedWitness]], read: ReadFile
) -> list[list[LocatedWitness]]:
    """:func:`restore` for each record's witnesses."""
    return [restore(ws, read) for ws in by_record]
