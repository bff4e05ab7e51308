"""TypeScript (``.ts``, ``.mts``, ``.cts``) and TSX: two grammars of one package, the ES
extractor and rules shared with JavaScript.  Declaration files (``.d.ts``) are types,
not code: file roles list them apart and the survey does not read them."""

from __future__ import annotations

from functools import cache

import tree_sitter_typescript as tsts
from tree_sitter import Language as Grammar

from retrieval.languages.facts import SourceFile
from retrieval.languages.javascript import ES_CHUNKS, ES_GRAPH, OUTPUT_DIRS
from retrieval.languages.javascript.extract import parse_ecmascript
from retrieval.languages.spec import Language


@cache
def _ts() -> Grammar:
    return Grammar(tsts.language_typescript())


@cache
def _tsx() -> Grammar:
    return Grammar(tsts.language_tsx())


def _grammar(path: str) -> Grammar:
    return _tsx() if path.lower().endswith(".tsx") else _ts()


def _parse(path: str, text: str) -> SourceFile:
    return parse_ecmascript(path, text, _grammar(path), "typescript")


LANGUAGE = Language(
    name="typescript",
    label="TypeScript",
    suffixes=(".ts", ".tsx", ".mts", ".cts"),
    grammar=_grammar,
    parse=_parse,
    chunks=ES_CHUNKS,
    graph=ES_GRAPH,
    rules_module="retrieval.languages.typescript.rules",
    max_bytes=400_000,
    text_names=("package.json",),
    max_line_chars=1_000,
    output_dirs=OUTPUT_DIRS,
)
