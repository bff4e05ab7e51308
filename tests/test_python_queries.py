"""The Python extractor runs its queries as one: each query's matches must come back as
its own cursor gives them (the facts, and so the survey's order, depend on it)."""

from __future__ import annotations

from tree_sitter import Node, QueryCursor

from retrieval.languages.python.extract import (
    EXTRACTORS,
    _matches_by_query,
    _parser,
    parse_python,
    query,
)

SOURCE = '''\
"""Module docstring."""
import os, json as j
from .pkg import a as b, c

PROMPT = ("You are a reviewer. " "Answer in one line.")


@decorator(x=1)
class Outer(Base):
    """Outer docstring."""

    def method(self, x: int = 3) -> dict:
        def inner(y):
            while y > 0.5:
                y = y - 1
            return {"run": inner, "y": y}
        for k in range(x):
            os.system(f"echo {k}")
        return {"a": self.method}


if "__main__" == __name__:
    Outer().method(2)
'''


def _key(matches: list[tuple[int, dict[str, list[Node]]]]) -> list[object]:
    return [
        (i, sorted((k, [(n.start_byte, n.end_byte) for n in v]) for k, v in caps.items()))
        for i, caps in matches
    ]


def test_one_combined_query_gives_each_query_its_own_matches() -> None:
    root = _parser().parse(SOURCE.encode()).root_node
    names = tuple(name for name, _ in EXTRACTORS)
    combined = _matches_by_query(root, names)
    assert len(combined) == len(names)
    for name, got in zip(names, combined, strict=True):
        assert _key(got) == _key(QueryCursor(query(name)).matches(root)), name
    assert all(combined), "every query matches something in the sample"


def test_the_facts_of_the_sample() -> None:
    pf = parse_python("pkg/mod.py", SOURCE)
    assert [d.symbol for d in pf.defs] == ["Outer", "Outer.method", "Outer.method.inner"]
    assert pf.main_guard == (22, 23)
    assert pf.imports["j"] == "json" and pf.imports["b"] == "pkg.pkg.a"
    assert [s.value for s in pf.strings if s.is_docstring] == [
        "Module docstring.",
        "Outer docstring.",
    ]
    assert len(pf.loops) == 2 and len(pf.dicts) == 2
