"""TypeScript (``.ts``, ``.mts``, ``.cts``) and TSX: two grammars of one package, the ES
extractor and rules shared with JavaScript.  Declaration files (``.d.ts``) are types,
not code: file roles list them apart and the survey does not read them."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import tree_sitter_typescript as tsts
from tree_sitter import Language as Grammar

from retrieval.languages import javascript
from retrieval.languages.facts import SourceFile
from retrieval.languages.javascript.extract import parse_ecmascript


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


#: The JavaScript entry with TypeScript's suffixes, grammars and rules: the rest (chunk
#: and graph shapes, size cap, manifests, output folders) is the ES toolchain's, shared.
LANGUAGE = replace(
    javascript.LANGUAGE,
    name="typescript",
    label="TypeScript",
    suffixes=(".ts", ".tsx", ".mts", ".cts"),
    grammar=_grammar,
    parse=_parse,
    rules_module="retrieval.languages.typescript.rules",
    generated_suffixes=(),
)
