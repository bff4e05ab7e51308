"""The eval's HTML page says what was done and what the numbers mean (#34 point 16):
the alignment actually used, a legend of every column, per-kind rows that credit no
match across kinds, a comment when a baseline beats the draft, and the trust caveat.
"""

from __future__ import annotations

from eval_material import gold_records
from fakes import make_report

from drafter.snapshot import Snapshot
from evals.evaluate import evaluate
from evals.html import render_html


def _card(tiny_repo, gold, draft, **kw):
    repo, rev1, _ = tiny_repo
    with Snapshot(repo, rev1) as snap:
        return evaluate(gold, draft, snap, similarity="lexical", **kw)


def test_a_kind_row_credits_no_match_of_another_kind(tiny_repo) -> None:
    """The gold results object answered by a draft route with the same text and witness:
    overall it is found, but the objects row finds nothing and the routes row covers
    nothing of its own kind."""
    g = gold_records()
    as_route = g[1].model_copy(update={"id": "RT-RTE-results"})
    card = _card(tiny_repo, make_report(g), make_report([g[0], g[2], g[3], as_route]))
    pairs = [p for ka in card.alignment.values() for p in ka.pairs]
    assert any(p.cross_kind and p.gold.id == "RT-OBJ-results" for p in pairs), pairs
    obj, rte = card.kinds["RT-OBJ"], card.kinds["RT-RTE"]
    assert (obj.gold_records, obj.gold_matched, obj.gold_cross_matched) == (1, 0, 1)
    assert obj.recall == 0.0
    assert (rte.draft_records, rte.draft_matched, rte.draft_cross_matched) == (3, 2, 1)
    assert card.overall.gold_matched == 4 and card.overall.recall == 1.0
    page = render_html(card)
    assert "Matched only by a record of another kind" in page and "RT-OBJ: 1 gold" in page


def test_the_page_describes_the_alignment_used_and_defines_every_column(tiny_repo) -> None:
    from evals.html import COLUMNS

    g = gold_records()
    card = _card(tiny_repo, make_report(g), make_report(g))
    page = render_html(card)
    assert "Alignment: coverage-mixed: a draft record covers every gold record" in page
    assert "weight 0.5" not in page
    for column, _ in COLUMNS:
        assert f"<dt>{column}</dt>" in page and f"<th>{column}</th>" in page
    assert "How far to trust record P and R" in page
    one = _card(tiny_repo, make_report(g), make_report(g), method="one-to-one")
    assert "Alignment: one-to-one: optimal one-to-one pairing within each kind" in render_html(one)


def test_a_baseline_that_beats_the_draft_is_said(tiny_repo) -> None:
    g = gold_records()
    card = _card(tiny_repo, make_report(g), make_report([g[0], g[2]]))
    assert card.overall.recall == 0.75 and card.overall.status_agreement == 1.0
    assert "baseline beats the draft" not in render_html(card)
    card.baselines = {
        "entry-point": {"recall": 0.9, "precision": 0.1, "line_recall": 0.95},
        "constant status": {"status_agreement": 1.01},
    }
    page = render_html(card)
    assert (
        "The entry-point baseline beats the draft on R 0.90 against the draft&#x27;s 0.75" in page
    )
    assert "line R 0.95" in page and "P 0.10" not in page
    assert "The constant status baseline beats the draft on status agr 1.01" in page
