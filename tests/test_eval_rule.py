"""What a record is about (evals.about), the fitted decision rule (evals.rule), finding
the labelled pairs (evals.fit.discover) and the benchmark's gold folder, on small
constructed cases."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from fakes import make_record

from drafter.errors import BadInput
from drafter.model import LineRange, Verification, VerifyStatus
from evals.about import About, about, about_parts, effects_of, objects_of, quote_names
from evals.fit import discover, system_of
from evals.rule import (
    FAMILIES,
    Example,
    choose,
    decide,
    features,
    fit_family,
    kind_features,
    logistic,
)
from evals.structure import CodeMap, name_hash
from evals.structure import load as load_code_map
from evals.witnesses import LocatedWitness


def _located(rec_id: str, witnesses: list[tuple[str, str, int]]) -> list[LocatedWitness]:
    rec = make_record(rec_id, "x", witnesses=[(q, p) for q, p, _ in witnesses])
    out = []
    for w, (_, _, line) in zip(rec.witnesses, witnesses, strict=True):
        v = Verification(
            status=VerifyStatus("verified"),
            lines=LineRange(start=line, end=line),
            occurrences=1,
            revision="0" * 40,
        )
        out.append(LocatedWitness(w, rec_id, "RT-RTE", v, 0))
    return out


#: Two sibling copies of one file (same name, other folder) and a third file; function
#: 1 and 3 are the same function (same name) in the two copies, 2 is another one.
FUNCS = [("a/search.py", 1, 50), ("a/search.py", 10, 20), ("a/search.py", 30, 40)]
FUNCS += [("b/search.py", 10, 20), ("c/other.py", 1, 9)]
NAMES = [name_hash(n) for n in ("<module>", "search", "evaluate", "search", "search")]


def test_sibling_copies_of_one_function_are_one_function() -> None:
    cmap = CodeMap(FUNCS, [], names=NAMES)
    gold = make_record("RT-RTE-g", "g", witnesses=[("loop()", "a/search.py")])
    draft = make_record("RT-RTE-d", "d", witnesses=[("loop()", "b/search.py")])
    g = about(gold, _located("RT-RTE-g", [("loop()", "a/search.py", 12)]), cmap)
    d = about(draft, _located("RT-RTE-d", [("loop()", "b/search.py", 15)]), cmap)
    other = about(draft, _located("RT-RTE-d", [("loop()", "a/search.py", 35)]), cmap)
    elsewhere = about(draft, _located("RT-RTE-d", [("loop()", "c/other.py", 5)]), cmap)
    parts = about_parts([g], [d, other, elsewhere])
    # same function in the sibling copy: shared; another function, or the same name
    # in a file of another name: not
    assert parts["fn_draft"][0].tolist() == [1.0, 0.0, 0.0]
    assert parts["fn_gold"][0].tolist() == [1.0, 0.0, 0.0]
    # a map saved without names merges no copies
    bare = CodeMap(FUNCS, [])
    g0 = about(gold, _located("RT-RTE-g", [("loop()", "a/search.py", 12)]), bare)
    d0 = about(draft, _located("RT-RTE-d", [("loop()", "b/search.py", 15)]), bare)
    assert about_parts([g0], [d0])["fn_draft"][0, 0] == 0.0


def test_about_parts_cannot_say_without_a_set() -> None:
    empty = About(frozenset(), frozenset(), frozenset())
    full = About(frozenset({("x.py", "h")}), frozenset({"write"}), frozenset({"a.json"}))
    parts = about_parts([full], [empty])
    assert all(math.isnan(parts[k][0, 0]) for k in parts)
    half = About(
        frozenset({("x.py", "h"), ("y.py", "k")}), frozenset({"write", "read"}), frozenset()
    )
    p = about_parts([full], [half])
    assert (p["fn_draft"][0, 0], p["fn_gold"][0, 0]) == (0.5, 1.0)
    assert p["effect"][0, 0] == 0.5 and math.isnan(p["object"][0, 0])


def test_effects_and_objects_from_generic_names() -> None:
    assert effects_of(["client.chat.completions.create"]) == {"model"}
    assert "exec" in effects_of(["subprocess.run"])
    assert effects_of(["json.dump"]) == {"serial", "write"}
    assert "gate" in effects_of(["best_score"]) and "loop" in effects_of(["max_iterations"])
    assert effects_of(["some_name"]) == frozenset()
    assert objects_of(["writes runs/archive.jsonl and out/Scores.db", "no file"]) == {
        "archive.jsonl",
        "scores.db",
    }


def test_a_redacted_quote_keeps_what_about_reads() -> None:
    """Labelled drafts are redacted (evals.redact): their quotes keep only code names,
    and the about sets must come out the same from either."""
    from evals.redact import redact_quote

    quote = 'with open(os.path.join(out_dir, "archive.jsonl"), "a") as f:\n    json.dump(entry, f)'
    assert quote_names(redact_quote(quote)) == quote_names(quote)
    a = make_record("RT-OBJ-a", "x", witnesses=[(quote, "a.py")])
    b = make_record("RT-OBJ-a", "x", witnesses=[(redact_quote(quote), "a.py")])
    assert about(a, [], None) == about(b, [], None)
    assert about(a, [], None).effects >= {"serial", "write", "read"}


def test_kind_structure_of_a_pair() -> None:
    k = kind_features(["RT-RTE", "RT-OBJ", "RT-CMP"], ["RT-OBJ", "RT-RTE", "RT-CMP"])
    # part of a route: an object, boundary or claim under a gold route
    assert k["part_of_route"].tolist() == [[1, 0, 0], [0, 0, 0], [0, 0, 0]]
    assert k["route_to_other"].tolist() == [[0, 0, 0], [0, 1, 0], [0, 1, 0]]
    assert k["cross_other"].tolist() == [[0, 0, 1], [0, 0, 1], [1, 0, 0]]


def _feats(text: list[list[float]], code: list[list[float]] | None = None) -> dict[str, np.ndarray]:
    t = np.asarray(text, dtype=np.float64)
    c = t if code is None else np.asarray(code, dtype=np.float64)
    nan = np.full(t.shape, np.nan)
    parts = {"text": t, "code": c, "witness": nan, "path": nan}
    return features(parts, ["RT-RTE"] * t.shape[0], ["RT-RTE"] * t.shape[1])


def test_rank_features_and_no_candidate() -> None:
    f = _feats([[0.6, 0.0], [0.3, 0.0], [0.6, 0.0]])
    # draft 0: gold 0 and 2 tie for best, gold 1 has two better (1 / (1 + 2))
    assert f["rank_draft"][:, 0].tolist() == pytest.approx([1.0, 1 / 3, 1.0])
    assert f["gap_draft"][:, 0].tolist() == pytest.approx([0.0, -0.3, 0.0])
    # draft 1 shares nothing with any gold record: no candidate is "best"
    assert f["rank_draft"][:, 1].tolist() == [0.0, 0.0, 0.0]
    assert f["gap_draft"][:, 1].tolist() == [-1.0, -1.0, -1.0]
    assert f["text_gap"][:, 1].tolist() == [-1.0, -1.0, -1.0]


def test_decide_credits_a_draft_record_covering_two_gold_records_twice() -> None:
    prob = np.array([[0.90, 0.05], [0.85, 0.10], [0.40, 0.95], [0.20, 0.30]])
    made = decide(prob, threshold=0.5, margin=0.1)
    assert made.tolist() == [[True, False], [True, False], [False, True], [False, False]]
    assert made.any(axis=1).sum() == 3  # three gold records covered by two draft records
    assert decide(prob, 0.5, 0.0).sum() == 2  # no margin: one gold record each
    assert decide(prob, 0.99, 0.1).sum() == 0
    # from the gold side: gold 3's best draft record (0.30) when that reaches 0.25
    assert decide(prob, 0.5, 0.1, gold_threshold=0.25)[3].tolist() == [False, True]


def test_logistic_learns_the_sign_and_is_deterministic() -> None:
    x = np.array([[0.1], [0.2], [0.3], [0.7], [0.8], [0.9], [0.25], [0.75]])
    y = np.array([0, 0, 0, 1, 1, 1, 1, 0], dtype=np.float64)
    w = np.ones(len(y))
    beta = logistic(x, y, w, 0.1)
    assert beta[1] > 0
    assert np.array_equal(beta, logistic(x, y, w, 0.1))
    assert abs(logistic(x, y, w, 100.0)[1]) < abs(beta[1])  # a stronger penalty shrinks


def _example(system: str, seed: int) -> Example:
    """Gold x draft pairs where a link is text >= 0.5; code is noise."""
    rng = np.random.default_rng(seed)
    text = rng.uniform(0, 1, (6, 8))
    code = rng.uniform(0, 1, (6, 8))
    f = _feats(text.tolist(), code.tolist())
    return Example(f"{system}-x", system, f, text >= 0.5)


def test_choose_fits_a_rule_that_finds_the_links() -> None:
    def objective(items: list[tuple[np.ndarray, np.ndarray]]) -> tuple[float, float]:
        right = sum(int((m == a).sum()) for m, a in items)
        total = sum(m.size for m, _ in items)
        return right / total, 0.0

    train = [_example(s, i) for i, s in enumerate(("p", "q", "r"))]
    rule = choose(train, objective, ["parts", "parts+rank"], (0.1,))
    assert rule.family in FAMILIES
    test = _example("s", 9)
    assert (rule.links(test.feats) == test.accepted).mean() >= 0.9
    text_weight = rule.coef[rule.features.index("text")]
    assert text_weight > abs(rule.coef[rule.features.index("code")])
    # one system only: nothing to leave out, the first candidate is fitted
    one = choose(train[:1], objective, ["parts+rank", "parts"], (1.0,))
    assert one.family == "parts+rank"
    assert one == fit_family(train[:1], "parts+rank", 1.0, objective)


# -- finding the labelled pairs and the gold folder -----------------------------------


def test_system_of_a_pair_name() -> None:
    assert system_of("auto-harness-bf052bc-offline") == "auto-harness"
    assert system_of("adas-2702bee-model") == "adas"
    assert system_of("dgm-d88fdd6-model-2") == "dgm"
    assert system_of("sample-offline") == "sample"


def test_discover_finds_every_pair_and_keeps_controls_out_of_the_fit(tmp_path: Path) -> None:
    base = {"gold": "g.txt", "draft": "d.json", "revision": "0" * 40, "draft_records": {}}
    (tmp_path / "zeta-1234abc-offline.labels.json").write_text(json.dumps(base))
    control = base | {"control": "witnesses shuffled"}
    (tmp_path / "zeta-1234abc-shuffled.labels.json").write_text(json.dumps(control))
    (tmp_path / "alpha-offline.labels.json").write_text(json.dumps(base))
    (tmp_path / "notes.json").write_text("{}")
    found = [(f.name, f.system, f.fitted) for f in discover(tmp_path)]
    assert found == [
        ("alpha-offline", "alpha", True),
        ("zeta-1234abc-offline", "zeta", True),
        ("zeta-1234abc-shuffled", "zeta", False),
    ]
    (tmp_path / "bad-offline.labels.json").write_text("{")
    with pytest.raises(BadInput):
        discover(tmp_path)


def test_saved_labelled_pairs_are_all_found() -> None:
    data = Path(__file__).parent / "data" / "eval_labels"
    found = {f.name: f for f in discover(data)}
    assert {f.name for f in found.values()} == {
        p.name.removesuffix(".labels.json") for p in data.glob("*.labels.json")
    }
    assert not found["auto-harness-bf052bc-shuffled"].fitted
    assert found["auto-harness-bf052bc-offline"].system == "auto-harness"


def test_loso_finds_shared_gold_above_the_checkout(tmp_path: Path) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "loso", Path(__file__).parents[1] / "benchmarks" / "loso.py"
    )
    assert spec and spec.loader
    loso = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loso)
    (tmp_path / "shared" / "gold").mkdir(parents=True)
    main_checkout = tmp_path / "main"  # /work/main
    worktree = tmp_path / "wt" / "me"  # /work/wt/NAME
    main_checkout.mkdir()
    worktree.mkdir(parents=True)
    assert loso.default_gold_dir(main_checkout) == tmp_path / "shared" / "gold"
    assert loso.default_gold_dir(worktree) == tmp_path / "shared" / "gold"


def test_code_map_names_are_saved_and_checked(tmp_path: Path) -> None:
    cmap = CodeMap(FUNCS, [(0, 1)], names=NAMES)
    cmap.save(tmp_path / "m.json", "0" * 40)
    again, _ = load_code_map(tmp_path / "m.json")
    assert again.names == NAMES and again.identity(3) == ("search.py", name_hash("search"))
    data = json.loads((tmp_path / "m.json").read_text())
    data["names"] = NAMES[:2]
    (tmp_path / "m.json").write_text(json.dumps(data))
    with pytest.raises(BadInput):
        load_code_map(tmp_path / "m.json")


def test_help_and_defaults_say_what_the_shipped_rule_is() -> None:
    """The light constants ``drafter eval --help`` prints agree with the shipped rule."""
    from click.testing import CliRunner

    from evals.choices import DEFAULT_DECISION, HELD_OUT, RULE_THRESHOLD
    from evals.cli import eval_cmd
    from evals.coverage import COVERAGE
    from evals.methods import default_threshold
    from evals.rule import RULE

    assert RULE.threshold == RULE_THRESHOLD
    shipped = RULE if DEFAULT_DECISION == "rule" else COVERAGE
    assert default_threshold("coverage") == shipped.threshold
    out = CliRunner().invoke(eval_cmd, ["--help"], terminal_width=200).output
    flat = " ".join(out.split())
    for system, a in HELD_OUT.items():
        assert f"{system} {a['gold_p']:.2f}/{a['gold_r']:.2f}" in flat
    assert "coverage-mixed" in flat
