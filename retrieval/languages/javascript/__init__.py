"""JavaScript (``.js``, ``.jsx``, ``.mjs``, ``.cjs``): grammar, extractor, shapes, rules.

The extractor and rules are shared with TypeScript (:mod:`retrieval.languages.typescript`),
whose grammar extends this one; each language registers the rules under its own name.
"""

from __future__ import annotations

from functools import cache

import tree_sitter_javascript as tsjs
from tree_sitter import Language as Grammar

from retrieval.languages.facts import SourceFile
from retrieval.languages.javascript.extract import module_name, package_modules, parse_ecmascript
from retrieval.languages.spec import ChunkShape, GraphShape, Language

#: Folders of build output and package caches of the JavaScript toolchain.
OUTPUT_DIRS = frozenset({"node_modules", "dist", "build", "out", ".next", "coverage"})

#: The syntax the chunker cuts ES modules along (JavaScript and TypeScript alike).
ES_CHUNKS = ChunkShape(
    def_types=frozenset(
        {
            "function_declaration",
            "generator_function_declaration",
            "class_declaration",
            "abstract_class_declaration",
            "method_definition",
            "interface_declaration",
        }
    ),
    class_types=frozenset({"class_declaration", "abstract_class_declaration"}),
    block_types=frozenset({"statement_block", "class_body"}),
    wrapper_types=frozenset({"export_statement"}),
    wrapper_field="declaration",
)
ES_GRAPH = GraphShape(
    self_names=("this",),
    constructor="constructor",
    module_name=module_name,
    reexports=True,
    typed_dispatch=True,
    package_modules=package_modules,
    closures=True,
)


@cache
def _grammar_js() -> Grammar:
    return Grammar(tsjs.language())


def _grammar(_: str) -> Grammar:
    return _grammar_js()


def _parse(path: str, text: str) -> SourceFile:
    return parse_ecmascript(path, text, _grammar_js(), "javascript")


LANGUAGE = Language(
    name="javascript",
    label="JavaScript",
    suffixes=(".js", ".jsx", ".mjs", ".cjs"),
    grammar=_grammar,
    parse=_parse,
    chunks=ES_CHUNKS,
    graph=ES_GRAPH,
    rules_module="retrieval.languages.javascript.rules",
    max_bytes=400_000,
    generated_suffixes=(".min.js", ".bundle.js", ".chunk.js"),
    text_names=("package.json",),
    max_line_chars=1_000,
    output_dirs=OUTPUT_DIRS,
)
