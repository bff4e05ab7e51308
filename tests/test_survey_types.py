"""The survey's types: categories that stay their strings in JSON, hits built by name,
one index per survey that answers what a scan of the findings answers, and queries
whose capture names say what they found."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fakes import make_finding

from drafter.sample import materialize
from drafter.snapshot import Snapshot
from retrieval.survey import CATEGORIES, Category, Finding, Survey, run_survey
from retrieval.survey.base import Hit
from retrieval.survey.source import parse_python


@pytest.fixture(scope="module")
def sample_survey(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Survey]:
    repo = materialize(tmp_path_factory.mktemp("sample") / "tinkerbot")
    snap = Snapshot(repo.path, repo.sha)
    yield run_survey(snap)
    snap.close()


# -- Category -----------------------------------------------------------------------


def test_category_is_its_string_in_json_and_back() -> None:
    f = make_finding(Category.MODEL_CALL)
    data = json.loads(f.model_dump_json())
    assert data["category"] == "model_call"
    assert f.model_dump_json() == make_finding("model_call").model_dump_json()
    back = Finding.model_validate_json(f.model_dump_json())
    assert back.category is Category.MODEL_CALL
    assert back == f


def test_unknown_category_is_refused() -> None:
    with pytest.raises(ValueError):
        make_finding("modelcall")


def test_categories_keep_the_table_order() -> None:
    assert CATEGORIES[0] == "entry_point" and CATEGORIES[-1] == "claim"
    assert CATEGORIES == tuple(c.value for c in Category)
    assert len(set(CATEGORIES)) == 12
    # in-memory state sits beside what is written and read back
    assert CATEGORIES.index("state") == CATEGORIES.index("read_back") + 1


def test_survey_json_of_the_sample_uses_plain_category_strings(sample_survey: Survey) -> None:
    data = json.loads(sample_survey.model_dump_json())
    cats = {f["category"] for f in data["findings"]}
    assert cats <= set(CATEGORIES) and "entry_point" in cats
    assert Survey.model_validate_json(sample_survey.model_dump_json()) == sample_survey


# -- Hit ----------------------------------------------------------------------------


def test_hit_is_built_by_keyword_only() -> None:
    with pytest.raises(TypeError):
        Hit(Category.CLAIM, "docstring", "a.py", 1, 1, "f", {})  # positional: refused
    h = Hit(
        category=Category.CLAIM,
        kind="docstring",
        path="a.py",
        start_line=1,
        end_line=1,
        symbol="f",
        detail={"sentence": "s"},
    )
    assert h.view is h.detail  # the typed view is the same dict, not a copy


# -- index --------------------------------------------------------------------------


def test_index_answers_what_a_scan_answers(sample_survey: Survey) -> None:
    sv = sample_survey
    ix = sv.index()
    assert ix is sv.index()  # built once per survey
    for cat in Category:
        assert ix.category(cat) == [f for f in sv.findings if f.category == cat]
        assert sv.by_category(cat) == [f for f in sv.findings if f.category == cat]
    for f in sv.findings:
        assert sv.finding(f.id) is f
        assert ix.at(f.node) == [g for g in sv.findings if g.node == f.node]
        assert sv.in_file(f.path) == [g for g in sv.findings if g.path == f.path]
    for node in sv.call_graph.functions:
        scan = sorted(s for s, dsts in sv.call_graph.edges.items() if node in dsts)
        assert sorted(ix.callers.get(node, ())) == scan
    files = sorted({f.path for f in sv.findings})[:2]
    ids = [sv.findings[-1].id, "no-such-id"]
    assert ix.related(files, ids) == [f for f in sv.findings if f.path in files or f.id in ids]
    assert sv.finding("no-such-id") is None


def test_index_follows_a_replaced_findings_list(sample_survey: Survey) -> None:
    sv = sample_survey.model_copy(deep=True)
    before = sv.index()
    sv.findings = [f for f in sv.findings if f.category == Category.ENTRY_POINT]
    assert sv.index() is not before
    assert sv.by_category(Category.MODEL_CALL) == []
    assert sv.by_category(Category.ENTRY_POINT) == sv.findings


# -- capture names ------------------------------------------------------------------

SOURCE = """\
import os as system_os
from .sibling import helper


class Tool:
    def run(self):
        if __name__ == "__main__":
            pass  # not module level: no guard


def main():
    for i in range(3):
        helper(i)
    while False:
        pass


if "__main__" == __name__:
    main()
"""


def test_queries_name_definitions_imports_loops_and_the_main_guard() -> None:
    pf = parse_python("pkg/mod.py", SOURCE)
    assert [(d.symbol, d.kind) for d in pf.defs] == [
        ("Tool", "class"),
        ("Tool.run", "function"),
        ("main", "function"),
    ]
    assert pf.main_guard == (18, 19)  # the module-level guard, operands in either order
    assert pf.imports["system_os"] == "os"
    assert pf.imports["helper"] == "pkg.sibling.helper"
    assert [lp.extra["type"] for lp in pf.loops] == ["for", "while"]
    assert [c.callee for c in pf.calls if c.symbol == "<main>"] == ["main"]


def test_a_guard_comparing_other_names_is_no_guard() -> None:
    pf = parse_python("m.py", 'if __file__ == "__main__":\n    pass\n')
    assert pf.main_guard is None


def test_strings_query_names_docstrings_and_concatenation_parts() -> None:
    src = (
        '"""Module doc."""\n'
        "def f():\n"
        '    """Function doc."""\n'
        '    x = "plain"\n'
        '    "a statement, not first"\n'
        '    y = ("joined " "pieces")\n'
    )
    pf = parse_python("m.py", src)
    got = {(s.value, s.is_docstring, s.assigned_to) for s in pf.strings}
    assert got == {
        ("Module doc.", True, None),
        ("Function doc.", True, None),
        ("plain", False, "x"),
        ("a statement, not first", False, None),
    }  # the two pieces of "joined " "pieces" are no strings of their own
