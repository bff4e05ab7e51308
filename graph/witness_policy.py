"""What a workflow does with a witness the verifier did not find: one policy, one flag.

A failing witness is never kept.  In a record it is dropped and the record carries a
``witness_dropped`` flag per witness (and ``no_verified_witness`` when none is left),
whether the runtime workflow dropped it after its repair rounds or the epistemic one
without any; so counts (:func:`graph.outcome.witness_counts`), the review and the exit
rule read one flag kind for both report types.  An inline witness of prose (the runtime
account, the epistemic sections) is dropped with a note that names it, and a quote
found once at other lines keeps its true lines (:func:`drafter.verify.settle_lines`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from drafter.model import Block, Flag, FlagKind, Record, Verification, Witness, WitnessBlock
from drafter.verify import settle_lines

#: Longest quote a record's drop flag repeats; a prose note repeats 60 characters.
FLAG_QUOTE_CHARS = 80
NOTE_QUOTE_CHARS = 60


def _status(w: Witness) -> str:
    return str(w.verification.status) if w.verification else "unchecked"


def drop_unverified(record: Record, why: str) -> Record:
    """``record`` without its unverified witnesses, each dropped one flagged with its
    status and ``why`` (e.g. "after 2 repair round(s)")."""
    blocks: list[Block] = []
    flags = list(record.flags)
    for b in record.blocks:
        if isinstance(b, WitnessBlock) and not b.witness.verified:
            q = b.witness.quote
            quote = q if len(q) <= FLAG_QUOTE_CHARS else q[: FLAG_QUOTE_CHARS - 3] + "..."
            text = f"witness dropped ({_status(b.witness)} {why}): {quote!r} --- {b.witness.path}"
            flags.append(Flag(kind=FlagKind.witness_dropped, text=text))
            continue
        blocks.append(b)
    if not any(isinstance(b, WitnessBlock) for b in blocks):
        flags.append(
            Flag(
                kind=FlagKind.no_verified_witness,
                text="no verified witness: every statement of this record is unsupported",
            )
        )
    return record.model_copy(update={"blocks": blocks, "flags": flags})


def settle_inline(
    blocks: Sequence[Block], verdict: Callable[[Witness], Verification | None], where: str
) -> tuple[list[Block], int, list[str]]:
    """Prose blocks with their failing inline witnesses dropped: (blocks, dropped, notes).

    ``verdict`` checks one witness (or returns the verdict it already carries); the notes
    name each dropped quote and each corrected line range, prefixed by ``where``."""
    out: list[Block] = []
    notes: list[str] = []
    dropped = 0
    for b in blocks:
        if not isinstance(b, WitnessBlock):
            out.append(b)
            continue
        v = verdict(b.witness)
        if v is None or not v.ok:
            dropped += 1
            status = str(v.status) if v is not None else "unchecked"
            notes.append(
                f"{where} witness dropped ({status}): "
                f"{b.witness.quote[:NOTE_QUOTE_CHARS]!r} --- {b.witness.path}"
            )
            continue
        w, corrected = settle_lines(b.witness, v)
        if corrected is not None:
            notes.append(f"{where} witness {corrected}")
        out.append(WitnessBlock(witness=w))
    return out, dropped, notes
