"""Copied files in the witness and call-path parts of the score (evals.copies).

A reference report quotes one copy of a file repeated per benchmark folder, a draft
the same code in another copy.  Before, the witness part saw two unrelated files and
the call path two unrelated functions, so both read 0 on pairs an analyst links.
Constructed cases check the rule; the saved ADAS pairs check it where it was seen.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from drafter.errors import BadInput
from drafter.model import LineRange, Verification, VerifyStatus, Witness
from evals.alignment import Side, witness_matrix
from evals.copies import LineMap, find_copies, line_map
from evals.fit import LabelledPair, load_pair
from evals.similarity import backend
from evals.structure import CodeMap, credit_matrix, path_credit
from evals.structure import load as load_code_map
from evals.witnesses import LocatedWitness, fingerprint

DATA = Path(__file__).parent / "data" / "eval_labels"


def _body(tag: str, extra: list[str]) -> str:
    """A module of 30 distinct long lines, with ``extra`` lines inserted after line 10."""
    lines = [f"value_{k:02d} = compute_something({k}, label='shared')" for k in range(30)]
    return "\n".join([*lines[:10], *extra, *lines[10:], f"# {tag}"]) + "\n"


def test_copies_are_found_by_content_not_by_name() -> None:
    texts = {
        "one/search.py": _body("one", []),
        "two/two_search.py": _body("two", ["inserted_line_a = 1", "inserted_line_b = 2"]),
        "three/search.py": "\n".join(f"other_{k} = unrelated_function({k})" for k in range(40)),
    }
    copies = find_copies(texts)
    assert [(m.a, m.b) for m in copies] == [("one/search.py", "two/two_search.py")]
    m = copies[0]
    assert m.project(5) == 5  # before the insertion: same line
    assert m.project(11) == 13  # after it: shifted by the two inserted lines
    back = m.reversed()
    assert back.project(13) == 11
    assert 10 <= back.project(11) <= 11  # an inserted line maps into the gap
    assert LineMap.from_json(json.loads(json.dumps(m.to_json()))) == m


def test_files_sharing_a_few_lines_are_not_copies() -> None:
    a = _body("a", [])
    b = "\n".join([*a.splitlines()[:5], *(f"own_{k} = different({k}, 'x')" for k in range(30))])
    assert find_copies({"x/a.py": a, "y/b.py": b}) == []


def _lw(path: str, start: int, end: int | None = None, quote: str = "q = 1") -> LocatedWitness:
    lines = LineRange(start=start, end=end or start)
    v = Verification(status=VerifyStatus.verified, lines=lines, occurrences=1, revision="0" * 40)
    return LocatedWitness(
        Witness(quote=quote, path=path), "RT-CMP-x", "RT-CMP", v, 0, text=fingerprint(quote)
    )


def _two_copies() -> CodeMap:
    """one/search.py and two/two_search.py (two lines inserted after line 10), each a
    module (1-33 / 1-35) holding a function (5-20 / 5-22) that calls a helper in its
    own file (25-30 / 27-32)."""
    m = line_map(
        "one/search.py",
        _body("one", []),
        "two/two_search.py",
        _body("two", ["inserted_line_a = 1", "inserted_line_b = 2"]),
    )
    functions = [
        ("one/search.py", 1, 31),
        ("one/search.py", 5, 20),
        ("one/search.py", 25, 30),
        ("two/two_search.py", 1, 33),
        ("two/two_search.py", 5, 22),
        ("two/two_search.py", 27, 32),
    ]
    calls = [(0, 1), (0, 2), (1, 2), (3, 4), (3, 5), (4, 5)]
    return CodeMap(functions, calls, [m])


def test_call_path_sees_the_matching_function_of_a_copy() -> None:
    cmap = _two_copies()
    gold = [_lw("one/search.py", 15)]  # in one's function
    draft_same = [_lw("two/two_search.py", 17)]  # the same line of two's copy of it
    draft_helper = [_lw("two/two_search.py", 28)]  # two's helper: one call down
    assert path_credit(gold, draft_same, cmap) == 1.0
    assert path_credit(gold, draft_helper, cmap) == pytest.approx(1 - 1 / 5)
    no_copies = CodeMap(cmap.functions, cmap.calls)
    assert path_credit(gold, draft_same, no_copies) == 0.0
    assert path_credit(gold, draft_helper, no_copies) == 0.0
    # and from the other side: the gold record quotes the copy
    assert credit_matrix([draft_same], [gold], cmap) == [[1.0]]


def test_witness_overlap_lands_on_the_matching_lines_of_a_copy() -> None:
    cmap = _two_copies()
    gold = Side([], [[_lw("one/search.py", 15)]])
    draft = Side([], [[_lw("two/two_search.py", 17)], [_lw("two/two_search.py", 30)]])
    with_copies = witness_matrix(gold, draft, cmap)
    assert with_copies[0][0] == 1.0  # same lines of the copy
    near = with_copies[0][1]
    assert near is not None and 0.25 <= near < 1.0  # 13 lines away in the copy
    assert witness_matrix(gold, draft) == [[0.0, 0.0]]  # unrelated files without the map


def test_saved_code_map_without_copies_still_loads(tmp_path: Path) -> None:
    old = tmp_path / "old.codemap.json"
    old.write_text('{"revision": "abc", "functions": [["a.py", 1, 3]], "calls": []}')
    cmap, rev = load_code_map(old)
    assert (rev, cmap.copies) == ("abc", [])
    bad = tmp_path / "bad.codemap.json"
    bad.write_text('{"revision": "abc", "functions": [], "calls": [], "copies": [["a.py", 3]]}')
    with pytest.raises(BadInput, match="not a saved code map"):
        load_code_map(bad)


@pytest.fixture(scope="module")
def adas(gold_dir: Path) -> dict[str, LabelledPair]:
    sim = backend("lexical")  # witness and path do not depend on the text backend
    return {
        n: load_pair(DATA, n, "adas", gold_dir, sim)
        for n in ("adas-2702bee-model", "adas-2702bee-offline")
    }


def _part(pair: LabelledPair, part: str, gold: str, draft: str) -> float:
    return float(pair.parts.part(part)[pair.gold_ids.index(gold), pair.draft_ids.index(draft)])


@pytest.mark.parametrize(
    ("gold", "draft"),
    [
        ("RT-CMP-meta-model", "RT-CMP-meta-agent-model"),
        ("RT-OBJ-meta-prompts", "RT-OBJ-meta-agent-prompt-module"),
        ("RT-BAP-generated-forward", "RT-BAP-generated-code-exec"),
    ],
)
def test_adas_links_across_copies_score_on_witness_and_path(
    adas: dict[str, LabelledPair], gold: str, draft: str
) -> None:
    """The analyst links these; the reference quotes one benchmark folder's copy, the
    draft another's.  Both parts read 0.00 before."""
    pair = adas["adas-2702bee-model"]
    assert (gold, draft) in pair.labels.links
    assert _part(pair, "witness", gold, draft) > 0.2
    assert _part(pair, "path", gold, draft) > 0.5


@pytest.mark.parametrize("name", ["adas-2702bee-model", "adas-2702bee-offline"])
def test_no_adas_link_reads_zero_on_the_call_path(adas: dict[str, LabelledPair], name: str) -> None:
    """Before: 62 % and 70 % of the labelled links read path 0, 38 % and 50 % witness 0."""
    pair = adas[name]
    for part in ("witness", "path"):
        values = pair.parts.part(part)[pair.accepted]
        known = values[~np.isnan(values)]  # NaN: the part cannot say (documents only)
        assert (known == 0).sum() == 0, (part, known)


def test_line_recall_counts_the_same_text_in_a_copy_as_equivalent() -> None:
    """An equivalent hit needs the same text: a draft quote at the matching line of a
    copy counts, one on lines the copies do not share does not, and without the code
    map (file names differ) neither does."""
    from evals.metrics import witness_hits

    cmap = _two_copies()
    gold = [_lw("one/search.py", 15)]
    same_text = [_lw("two/two_search.py", 17)]
    inserted = [_lw("one/search.py", 11, quote="value_10 = 1"), _lw("two/two_search.py", 11)]
    assert witness_hits(gold, same_text, cmap).gold_equivalent == [True]
    assert witness_hits(gold, same_text).gold_equivalent == [False]
    # line 11 of two/two_search.py is an inserted line: no same text in one/search.py
    assert witness_hits(inserted[:1], inserted[1:], cmap).gold_equivalent == [False]


def test_adas_model_draft_equivalent_hits_across_copied_prompt_modules(
    adas: dict[str, LabelledPair], gold_dir: Path
) -> None:
    """The reference quotes one benchmark's prompt module, the draft another's (the
    files are named after their folders, so the same-file-name rule misses them)."""
    from evals.gold import load
    from evals.located import cached_fingerprint, cached_locate
    from evals.metrics import witness_hits
    from evals.witnesses import locate_report

    labels = adas["adas-2702bee-model"].labels
    gold = load(labels.gold_path(gold_dir), "gold")
    draft = load(labels.draft_path, "draft")
    saved = DATA / "adas-2702bee-model.locations.json"
    loc, text = cached_locate(saved), cached_fingerprint(saved)
    gw = locate_report(gold, loc, text=text).all()
    dw = locate_report(draft, loc, text=text).all()
    cmap, _ = load_code_map(DATA / "adas-2702bee.codemap.json")
    without, with_map = witness_hits(gw, dw), witness_hits(gw, dw, cmap)
    assert sum(with_map.gold_equivalent) > sum(without.gold_equivalent)
    prompts = [
        w.path
        for (w, _), e in zip(with_map.gold, with_map.gold_equivalent, strict=True)
        if e and w.path.endswith("_prompt.py")
    ]
    assert prompts, "no prompt-module quote counted in its copy"
