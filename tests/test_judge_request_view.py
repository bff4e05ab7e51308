"""What the judge reads: candidates' prose whole within a bounded budget and cut only
between lines, cross-references explained, repeated witnesses named once, and a
redacted saved draft's quotes read back from the repository at the revision."""

from __future__ import annotations

import dataclasses
from typing import Any

from eval_material import gold_records
from fakes import make_record, make_report

from drafter.snapshot import Snapshot
from evals.evaluate import verifier_locate
from evals.judge.quotes import restore_all
from evals.judge.request import (
    CANDIDATE_BODY_CHARS,
    CANDIDATES_BODY_BUDGET,
    body_shares,
    build_request,
    clip_lines,
    records_of_request,
    referenced,
)
from evals.witnesses import locate_report


def test_shares_keep_short_records_whole_and_the_total_bounded() -> None:
    lengths = [500, 800, 9_000, 20_000, 1_200]
    shares = body_shares(lengths, budget=10_000)
    assert shares[0] == 500 and shares[1] == 800 and shares[4] == 1_200
    assert sum(shares) <= 10_000
    assert all(s <= CANDIDATE_BODY_CHARS for s in shares)
    assert shares[2] == shares[3] == (10_000 - 2_500) // 2
    many = body_shares([5_000] * 20)
    assert sum(many) <= CANDIDATES_BODY_BUDGET


def test_prose_is_cut_between_fields_and_says_what_is_left_out() -> None:
    text = "Lead: one two three.\nSelection predicate: a >= b.\nActivation or effect: write."
    assert clip_lines(text, len(text)) == text
    cut = clip_lines(text, 50)
    kept = cut.splitlines()
    assert kept[:2] == text.splitlines()[:2]
    assert "Activation" not in cut and "more characters of this record not shown" in cut


def test_cross_references_get_their_labels_and_prefixes_do_not_match() -> None:
    rec = make_record("RT-RTE-loop", "Loop", body="Writes the state of RT-OBJ-store.")
    others = {"RT-OBJ-store": "The store", "RT-OBJ-store-index": "Index", "RT-RTE-loop": "Loop"}
    assert referenced(rec, others) == {"RT-OBJ-store": "The store"}


def _located(tiny_repo: Any) -> tuple[Any, Any, Any]:
    repo, rev, _ = tiny_repo
    gold = make_report(gold_records())
    with Snapshot(str(repo), rev) as snap:
        gw = locate_report(gold, verifier_locate(snap)).by_record
    return gold, gw, (repo, rev)


def test_a_candidate_witness_shown_in_the_reference_is_not_quoted_again(tiny_repo: Any) -> None:
    gold, gw, _ = _located(tiny_repo)
    i = next(k for k, ws in enumerate(gw) if ws)
    req = build_request("m", (gold.records[i], gw[i]), [(gold.records[i], gw[i])])
    view = records_of_request(req)
    assert view["candidates"][0]["witnesses"][0]["quote"] == "same as reference witness 1"
    assert view["reference"]["witnesses"][0]["quote"] == gw[i][0].witness.quote


def test_redacted_quotes_are_read_back_at_their_location(tiny_repo: Any) -> None:
    gold, gw, (repo, rev) = _located(tiny_repo)
    located = [lw for ws in gw for lw in ws if lw.span is not None]
    assert located
    redacted = [
        [
            dataclasses.replace(
                lw, witness=lw.witness.model_copy(update={"quote": "[redacted quote 0: x]"})
            )
            for lw in ws
        ]
        for ws in gw
    ]
    with Snapshot(str(repo), rev) as snap:
        back = restore_all(redacted, snap.read_str)
        for ws_back, ws in zip(back, gw, strict=True):
            for got, lw in zip(ws_back, ws, strict=True):
                if lw.span is None:
                    assert got.witness.quote.startswith("[redacted quote")
                    continue
                lines = snap.read_str(lw.path).splitlines()
                want = "\n".join(lines[lw.span.start - 1 : lw.span.end])
                assert got.witness.quote == want
                assert " ".join(lw.witness.quote.split()) in " ".join(want.split())
