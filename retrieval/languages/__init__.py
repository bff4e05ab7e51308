"""The language table: every language drafter reads, and the language of a path.

Adding a language is one folder (``retrieval/languages/<name>/`` holding its grammar
binding, ``.scm`` queries, extractor and ``rules.py``) and one line below.  The survey,
the chunker, the call graph, file roles and the survey cache ask this table; none of
them names a language's suffix or node types.
"""

from __future__ import annotations

from retrieval.languages import go, javascript, python, typescript
from retrieval.languages.spec import Language

#: The registered languages, in the order their survey rules run.
LANGUAGES: tuple[Language, ...] = (
    python.LANGUAGE,
    typescript.LANGUAGE,
    javascript.LANGUAGE,
    go.LANGUAGE,
)


def for_path(path: str) -> Language | None:
    """The language whose suffix ``path`` has (as written: ``A.PY`` is not surveyed), or
    None for a file of no surveyed language."""
    for lang in LANGUAGES:
        if path.endswith(lang.suffixes):
            return lang
    return None


def chunked_language(path: str) -> Language | None:
    """The language whose syntax the chunker cuts ``path`` along (its sources and stubs)."""
    low = path.lower()
    for lang in LANGUAGES:
        if low.endswith(lang.suffixes + lang.chunk_only_suffixes):
            return lang
    return None


def by_name(name: str) -> Language:
    """The table entry named ``name`` (a :class:`KeyError` for an unknown one)."""
    for lang in LANGUAGES:
        if lang.name == name:
            return lang
    raise KeyError(name)


def source_suffixes() -> tuple[str, ...]:
    """Every suffix a registered language owns."""
    return tuple(s for lang in LANGUAGES for s in lang.suffixes)


def generated_suffixes() -> tuple[str, ...]:
    """Name endings of generated sources, across languages."""
    return tuple(s for lang in LANGUAGES for s in lang.generated_suffixes)


def text_names() -> tuple[str, ...]:
    """Manifest names the languages' text rules read (``pyproject.toml``, ...)."""
    return tuple(dict.fromkeys(n for lang in LANGUAGES for n in lang.text_names))


def is_package_folder(parent: str, paths: frozenset[str]) -> bool:
    """Does a language's package marker (``__init__.py``) sit in folder ``parent``?"""
    prefix = f"{parent}/" if parent else ""
    return any(
        f"{prefix}{marker}" in paths for lang in LANGUAGES for marker in lang.package_markers
    )


def is_package_main(path: str) -> bool:
    """Is ``path`` the module its language runs when a package is started as a whole?"""
    lang = for_path(path)
    return lang is not None and path.rsplit("/", 1)[-1] in lang.package_main_names


#: Source languages drafter recognises but does not survey, by suffix: counted with their
#: share so a draft can say plainly what it did not read.
UNSUPPORTED: dict[str, str] = {
    ".rs": "Rust",
    ".java": "Java",
    ".kt": "Kotlin",
    ".scala": "Scala",
    ".c": "C",
    ".h": "C",
    ".cc": "C++",
    ".cpp": "C++",
    ".hpp": "C++",
    ".cs": "C#",
    ".rb": "Ruby",
    ".php": "PHP",
    ".swift": "Swift",
    ".lua": "Lua",
    ".dart": "Dart",
    ".ex": "Elixir",
    ".r": "R",
    ".jl": "Julia",
}


def unsupported_label(path: str) -> str | None:
    """The name of a recognised source language the survey does not read, if any."""
    if for_path(path) is not None:
        return None
    dot = path.rfind(".")
    return UNSUPPORTED.get(path[dot:].lower()) if dot > path.rfind("/") else None
