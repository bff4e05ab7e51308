"""What ``submit_record`` answers before it takes a record: its misses, once.

Why at submission and not through ``check_quotes``: a model told to check its quotes
before submitting spent about one paid call per record on a check that almost always
passed.  Here the submission itself is checked the way the verifier will check it; a
record that passes costs nothing more, and one with misses gets a single fix-up turn
whose answer names each miss with the nearest real lines (what ``check_quotes`` would
have said).  The check only *reports*: no witness is marked verified here; the
workflow's verifier still checks every witness of the record it keeps.

Besides witnesses that miss, a record with no witness at all is sent back the same
way: the witness count the prompt asks for (one to five) is otherwise a preference.
"""

from __future__ import annotations

from drafter.model import Record, WitnessBlock
from graph.proposers.agent.schema import RECORD_TOOL
from graph.proposers.agent.tools import SnapshotTools


def submission_misses(tools: SnapshotTools, record: Record) -> str | None:
    """The fix-up note for a submitted record (its witnesses that do not verify, or no
    witness at all), or None when it passes."""
    witnesses = [b.witness for b in record.blocks if isinstance(b, WitnessBlock)]
    parts: list[str] = []
    if not witnesses:
        parts.append(
            "The record has no witness: add at least one verbatim excerpt (with its path)"
            " that supports the lead."
        )
    else:
        ok, rows = tools.verdicts(witnesses, misses_only=True)
        if rows:
            parts.append(
                f"{len(witnesses) - ok} of the {len(witnesses)} witnesses do not verify"
                " (numbered by their place in your list):\n" + "\n".join(rows)
            )
    if not parts:
        return None
    return (
        "Not taken yet. "
        + "\n\n".join(parts)
        + f"\n\nCall {RECORD_TOOL} again with the whole record: replace each missing quote"
        " with an exact excerpt of a real passage (the nearest lines above, or lines you"
        " read) with its path, or remove it and soften what it supported; keep the"
        " witnesses that verified.  This is the one fix-up: the next submission is taken"
        " as it is, and a witness that still does not verify is repaired later or dropped."
    )
