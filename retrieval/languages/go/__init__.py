"""Go: grammar, extractor, chunk and call-graph shapes, and a first set of rules."""

from __future__ import annotations

from functools import cache

import tree_sitter_go as tsgo
from tree_sitter import Language as Grammar

from retrieval.languages.facts import SourceFile
from retrieval.languages.go.extract import module_name, parse_go
from retrieval.languages.spec import ChunkShape, GraphShape, Language


@cache
def _go() -> Grammar:
    return Grammar(tsgo.language())


def _grammar(_: str) -> Grammar:
    return _go()


def _parse(path: str, text: str) -> SourceFile:
    return parse_go(path, text, _go())


LANGUAGE = Language(
    name="go",
    label="Go",
    suffixes=(".go",),
    grammar=_grammar,
    parse=_parse,
    chunks=ChunkShape(
        def_types=frozenset({"function_declaration", "method_declaration", "type_declaration"}),
        class_types=frozenset(),
        block_types=frozenset({"block", "statement_list"}),
    ),
    graph=GraphShape(self_names=(), constructor="", module_name=module_name, folder_packages=True),
    rules_module="retrieval.languages.go.rules",
    max_bytes=600_000,
    generated_suffixes=(".pb.go", "_gen.go", "_string.go"),
    text_names=(),
    output_dirs=frozenset(),
)
