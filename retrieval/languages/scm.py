"""The ``.scm`` tree-sitter queries each language folder ships (``<lang>/queries/``).

Why queries for some facts and a walk for others: a query names a shape once, in the
grammar's own terms, and is the easiest form to read and extend; but a fact that needs
its enclosing symbol (a call, a definition, a string) would need a parent lookup per
match, which tree-sitter answers by walking from the root.  So the module-level shapes
(imports, a Go file's package) are queries, and the scoped ones are one walk.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from tree_sitter import Language as Grammar
from tree_sitter import Node, Query, QueryCursor

#: One query's matches: ``(pattern index, {capture name: nodes})``.
Matches = list[tuple[int, dict[str, list[Node]]]]


@cache
def _query(package: str, name: str, grammar: Grammar) -> Query:
    src = resources.files(package).joinpath("queries", f"{name}.scm")
    return Query(grammar, src.read_text("utf-8"))


def matches(
    package: str, name: str, grammar: Grammar, root: Node, max_start_depth: int | None = None
) -> Matches:
    """The matches of ``<package>/queries/<name>.scm`` under ``root``, in tree order;
    with ``max_start_depth``, only those starting that close to the root (a module-level
    shape need not be looked for in every function body)."""
    cursor = QueryCursor(_query(package, name, grammar))
    if max_start_depth is not None:
        cursor.set_max_start_depth(max_start_depth)
    found = cursor.matches(root)
    return sorted(found, key=lambda m: min(n.start_byte for ns in m[1].values() for n in ns))
