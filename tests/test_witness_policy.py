"""One witness policy: a failing witness is dropped with one flag kind in every workflow."""

from __future__ import annotations

from fakes import make_record, make_report

from drafter.model import (
    Block,
    FlagKind,
    LineRange,
    Paragraph,
    Verification,
    VerifyStatus,
    Witness,
    WitnessBlock,
)
from graph.outcome import witness_counts
from graph.witness_policy import drop_unverified, settle_inline


def _w(quote: str, ok: bool, lines: LineRange | None = None) -> Witness:
    status = VerifyStatus.verified if ok else VerifyStatus.not_found
    return Witness(quote=quote, path="a.py", verification=Verification(status=status, lines=lines))


def test_a_record_dropped_without_repair_is_counted_like_one_dropped_after_it() -> None:
    rec = make_record("EPI-OBJ-x", "x", witnesses=[_w("good", True), _w("gone", False)])
    rt = make_record("RT-CLM-y", "y", witnesses=[_w("gone too", False)])
    epi = drop_unverified(rec, "without repair")
    run = drop_unverified(rt, "after 2 repair round(s)")
    assert [w.quote for w in epi.witnesses] == ["good"]
    (flag,) = epi.flags_of(FlagKind.witness_dropped)
    assert flag.text == "witness dropped (not_found without repair): 'gone' --- a.py"
    assert not epi.flags_of(FlagKind.no_verified_witness)
    assert run.flags_of(FlagKind.no_verified_witness)  # nothing left to support it
    counts = {row[0]: row[1:] for row in witness_counts(make_report([run]))}
    assert counts["Claims"] == (1, 0, 1)  # proposed, kept, dropped


def test_inline_witnesses_are_dropped_by_name_and_keep_their_true_lines() -> None:
    found = _w("x = 1", True, LineRange(start=7, end=7)).model_copy(
        update={"lines": LineRange(start=3, end=3)}
    )
    blocks: list[Block] = [
        Paragraph(text="p"),
        WitnessBlock(witness=found),
        WitnessBlock(witness=_w("no", False)),
    ]
    kept, dropped, notes = settle_inline(blocks, lambda w: w.verification, "account")
    assert dropped == 1 and len(kept) == 2
    assert isinstance(kept[1], WitnessBlock) and kept[1].witness.lines == LineRange(start=7, end=7)
    assert notes == [
        "account witness lines corrected: a.py 3-3 → 7-7",
        "account witness dropped (not_found): 'no' --- a.py",
    ]
