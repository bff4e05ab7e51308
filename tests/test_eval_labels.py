"""Record alignment checked against hand labels (tests/data/eval_labels/).

Each labelled pair is a saved offline draft (our own output, kept so that a changed
drafter cannot silently change what was labelled; drafts of public repositories are
redacted to code names by ``python -m evals.redact``), a gold report and an analyst's
answer for every draft record: which gold record(s) it answers, or none.  Witness
locations were saved from the real verifier at the pinned revision, so these tests
need no clone of the repositories; for the shipped sample the saved locations are
checked against the verifier itself.

The best-gold method's weights, penalty and threshold were chosen on the sample pair
only; the other pairs are held out.  Figures are printed so a run shows them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from drafter.errors import BadInput
from drafter.model import Report
from drafter.sample import SAMPLE_SHA, materialize
from drafter.snapshot import Snapshot
from evals.alignment import (
    NEAR_LINES,
    SAME_FILE,
    Side,
    draft_witness_score,
    near_hit,
)
from evals.evaluate import verifier_locate
from evals.gold import load
from evals.labels import (
    LabelSet,
    check_alignment,
    check_complete,
    load_labels,
    predicted_links,
)
from evals.located import cached_locate
from evals.methods import align_with
from evals.similarity import backend
from evals.structure import CodeMap
from evals.structure import load as load_code_map
from evals.witnesses import LocatedWitness, locate_report

DATA = Path(__file__).parent / "data" / "eval_labels"
PAIRS = (
    "sample-offline",
    "auto-harness-bf052bc-offline",
    "dgm-d88fdd6-offline",
    "auto-harness-bf052bc-shuffled",
)
TUNED_ON = "sample-offline"

#: Measured with embed similarity; "before" is the original one-to-one method at 0.35,
#: "after" the best-gold default: near-line witness credit (NEAR_LINES) and, with the
#: saved code map of the revision, the call-path part (evals.structure; PATH_WEIGHT,
#: UP_HOPS/DOWN_HOPS, threshold 0.25), all chosen on the sample pair.  Floors sit just
#: below "after".
#:                   before P / R          after P / R
#: sample            0.94 / 0.62           0.96 / 0.96   (tuning pair; two labels
#:                                                       corrected in the second follow-up)
#: auto-harness      1.00 / 0.45           0.86 / 0.55
#: dgm               1.00 / 0.22           0.74 / 0.52
#: auto-harness with its witnesses moved between records at random (same prose and
#: labels; only quotes the draft already carries):
#:                   0.78 / 0.21           0.72 / 0.39
#: Without the call path (threshold 0.3, the first follow-up's default) "after" read
#: 1.00/0.88 (sample, corrected labels), 0.89/0.52, 1.00/0.44 and 0.80/0.36.
#: Against the adjudicated labels (two blind labellings and a third reader; merged after
#: the figures above) "after" reads 0.88/1.00 (sample), 0.86/0.62, 0.63/0.67, 0.72/0.45:
#: the adjudication accepts fewer dgm links, so precision fell and recall rose.
FLOOR = {
    "sample-offline": (0.85, 0.95),
    "auto-harness-bf052bc-offline": (0.8, 0.5),
    "dgm-d88fdd6-offline": (0.6, 0.6),
    "auto-harness-bf052bc-shuffled": (0.65, 0.35),
}


def _code_map(name: str) -> CodeMap:
    """The saved code map of the pair's revision (``python -m evals.structure``)."""
    cmap, _ = load_code_map(DATA / f"{name.rsplit('-', 1)[0]}.codemap.json")
    return cmap


def _pair(name: str, gold_dir: Path) -> tuple[LabelSet, Report, Report, Side, Side]:
    labels = load_labels(DATA / f"{name}.labels.json")
    gold = load(labels.gold_path(gold_dir), "gold")
    draft = load(labels.draft_path, "draft")
    check_complete(labels, gold, draft)
    locate = cached_locate(DATA / f"{name}.locations.json")
    gw, dw = locate_report(gold, locate), locate_report(draft, locate)
    return labels, gold, draft, Side(gold.records, gw.by_record), Side(draft.records, dw.by_record)


@pytest.mark.parametrize("name", PAIRS)
def test_alignment_against_labels(
    name: str, gold_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels, _, draft, g, d = _pair(name, gold_dir)
    assert labels.revision == draft.source.revision  # the labels are tied to this draft
    sim = backend("embed")
    before = check_alignment(labels, predicted_links(align_with("one-to-one", g, d, sim)))
    cmap = _code_map(name)
    after = check_alignment(
        labels, predicted_links(align_with("best-gold", g, d, sim, code_map=cmap))
    )
    with capsys.disabled():
        tag = " (tuning pair)" if name == TUNED_ON else " (held out)"
        print(
            f"\n{name}{tag}: before P {before.precision:.2f} R {before.recall:.2f} "
            f"gold R {before.gold_recall:.2f}; after P {after.precision:.2f} "
            f"R {after.recall:.2f} gold R {after.gold_recall:.2f}"
        )
    p_floor, r_floor = FLOOR[name]
    assert after.precision is not None and after.recall is not None
    assert after.precision >= p_floor and after.recall >= r_floor, after.to_dict()
    assert after.recall > (before.recall or 0.0)


def test_saved_sample_locations_match_the_verifier(tmp_path: Path, gold_dir: Path) -> None:
    labels, gold, draft, _, _ = _pair("sample-offline", gold_dir)
    cached = cached_locate(DATA / "sample-offline.locations.json")
    repo = materialize(tmp_path / "sample")
    with Snapshot(repo.path, SAMPLE_SHA) as snap:
        real = verifier_locate(snap)
        for w in [*gold.witnesses, *draft.witnesses]:
            a, b = cached(w), real(w)
            assert (a.status, a.lines) == (b.status, b.lines), w.anchor


def test_cached_locate_refuses_an_unknown_witness() -> None:
    from drafter.model import Witness

    locate = cached_locate(DATA / "sample-offline.locations.json")
    with pytest.raises(BadInput, match="no saved location"):
        locate(Witness(quote="never quoted", path="nowhere.py"))


def _labels(tmp_path: Path, answers: dict[str, list[str]]) -> LabelSet:
    import json

    f = tmp_path / "x.labels.json"
    f.write_text(
        json.dumps(
            {
                "name": "x",
                "gold": "sample",
                "draft": "d.json",
                "revision": "0" * 40,
                "draft_records": {k: {"gold": v} for k, v in answers.items()},
            }
        )
    )
    return load_labels(f)


def test_check_alignment_by_hand(tmp_path: Path) -> None:
    labels = _labels(
        tmp_path,
        {"d1": ["g1"], "d2": ["g1"], "d3": ["g2", "g3"], "d4": [], "d5": ["g4"]},
    )
    made = {("g1", "d1"), ("g3", "d3"), ("g1", "d4"), ("g2", "d5")}
    c = check_alignment(labels, made)
    # right: (g1,d1), (g3,d3); wrong: (g1,d4) [d4 has none], (g2,d5) [d5 wants g4]
    assert (c.made, c.correct) == (4, 2) and c.precision == 0.5
    # answering draft records d1 d2 d3 d5; found d1 d3 -> 2/4
    assert c.recall == 0.5
    # gold answered g1 g2 g3 g4; reached by a right link: g1 g3 -> 2/4
    assert c.gold_recall == 0.5
    assert c.missed == ("d2", "d5") and ("g1", "d4") in c.wrong


def test_label_file_must_cover_every_draft_record(tmp_path: Path, gold_dir: Path) -> None:
    _, gold, draft, _, _ = _pair("sample-offline", gold_dir)
    labels = _labels(tmp_path, {r.id: [] for r in draft.records[1:]})
    with pytest.raises(BadInput, match="unlabelled draft ID"):
        check_complete(labels, gold, draft)
    labels = _labels(tmp_path, {**{r.id: [] for r in draft.records}, "RT-CMP-x": []})
    with pytest.raises(BadInput, match="unknown draft ID"):
        check_complete(labels, gold, draft)
    labels = _labels(tmp_path, {r.id: ["RT-CMP-nope"] for r in draft.records})
    with pytest.raises(BadInput, match="unknown gold ID"):
        check_complete(labels, gold, draft)


def test_embedding_cache_returns_what_the_model_returns() -> None:
    from evals import similarity
    from retrieval.embeddings import embed

    texts = ["the gate keeps a prompt that scores at least the best", "run_task calls the model"]
    first = similarity.embed_cached(texts)
    size = len(similarity._EMBEDDED)
    again = similarity.embed_cached(list(reversed(texts)))
    assert len(similarity._EMBEDDED) == size  # nothing embedded twice
    assert np.allclose(first, np.asarray(embed(texts), dtype=np.float64), atol=1e-6)
    assert np.allclose(again[::-1], first)


def _lw(path: str, start: int, end: int) -> LocatedWitness:
    from drafter.model import LineRange, Verification, VerifyStatus, Witness

    v = Verification(
        status=VerifyStatus("verified"),
        lines=LineRange(start=start, end=end),
        occurrences=1,
        revision="0" * 40,
    )
    return LocatedWitness(Witness(quote="q", path=path), "RT-RTE-x", "RT-RTE", v)


def test_near_hit_by_hand() -> None:
    gold = [_lw("a.py", 100, 110)]
    assert near_hit(_lw("a.py", 105, 120), gold) == 1.0  # overlapping lines
    assert near_hit(_lw("a.py", 120, 125), gold) == pytest.approx(1 - 10 / NEAR_LINES)
    assert near_hit(_lw("a.py", 60, 90), gold) == pytest.approx(1 - 10 / NEAR_LINES)
    assert near_hit(_lw("a.py", 400, 401), gold) == SAME_FILE  # far away: same file only
    assert near_hit(_lw("b.py", 100, 110), gold) == 0.0
    # draft-side score: one draft witness 10 lines off, one in another file
    draft = [_lw("a.py", 120, 125), _lw("b.py", 1, 2)]
    g_to_d = 1 - 10 / NEAR_LINES
    d_to_g = (1 - 10 / NEAR_LINES + 0.0) / 2
    assert draft_witness_score(gold, draft) == pytest.approx(max((g_to_d + d_to_g) / 2, d_to_g))


def test_code_map_by_hand() -> None:
    """Call path and credit of evals.structure on a four-function map:
    0 = a.py module (1-40), 1 = a.py f (5-10), 2 = a.py g (12-20), 3 = b.py h (1-9);
    calls f -> g, g -> h and module -> f, module -> g (containment)."""
    from evals.structure import path_credit

    cmap = CodeMap(
        [("a.py", 1, 40), ("a.py", 5, 10), ("a.py", 12, 20), ("b.py", 1, 9)],
        [(0, 1), (0, 2), (1, 2), (2, 3)],
    )
    assert cmap.enclosing("a.py", 7) == 1  # innermost, not the module
    assert cmap.enclosing("a.py", 30) == 0
    assert cmap.enclosing("README.md", 3) is None
    assert cmap.reach({3}, up=0, down=2) == {3: 0}
    assert cmap.reach({1}, up=0, down=2) == {1: 0, 2: 1, 3: 2}
    # up to g's callers (f and the module), then down from each: h is 1 call below g
    assert cmap.reach({2}, up=1, down=1) == {2: 0, 1: 1, 0: 1, 3: 1}
    assert cmap.reach({3}, up=1, down=1) == {3: 0, 2: 1}  # h's caller g; g's callee is h
    # gold quotes f; draft quotes h (2 calls down: 1 - 2/5) and README (not code)
    gold = [_lw("a.py", 6, 6)]
    draft = [_lw("b.py", 2, 2), _lw("README.md", 1, 1)]
    assert path_credit(gold, draft, cmap, up=2, down=2) == pytest.approx(1 - 2 / 5)
    # a draft quoting only a document: the call graph cannot say
    assert path_credit(gold, [_lw("README.md", 1, 1)], cmap) is None
    # off the path within the hops: h seen from f with no calls followed
    assert path_credit(gold, [_lw("b.py", 2, 2)], cmap, up=0, down=0) == 0.0


def test_saved_sample_code_map_matches_the_survey(tmp_path: Path) -> None:
    from evals.structure import from_survey
    from retrieval.survey.runner import run_survey

    saved, revision = load_code_map(DATA / "sample.codemap.json")
    repo = materialize(tmp_path / "sample")
    assert revision == SAMPLE_SHA
    with Snapshot(repo.path, SAMPLE_SHA) as snap:
        live = from_survey(run_survey(snap), snap)
    assert (live.functions, live.calls, live.copies) == (saved.functions, saved.calls, saved.copies)
    assert live.names == saved.names  # the name hashes that merge sibling copies
