"""What the offline recipes ask about a path's language, in one place.

Why: a suffix test (``path.endswith(".py")``) for "code the survey read", or an
interpreter written into every entry point's command, would skip a TypeScript or Go
system's code and name its routes after an interpreter it does not use.  The recipes
ask the language table (:mod:`retrieval.languages`); nothing here names a suffix.
"""

from __future__ import annotations

from retrieval.languages import for_path


def is_source(path: str) -> bool:
    """Is ``path`` a source file of a language the survey reads?"""
    return for_path(path) is not None


def module_of(path: str) -> str | None:
    """The module name the path's language gives it (``pkg.mod``), or None for a file
    of no surveyed language."""
    lang = for_path(path)
    return lang.graph.module_name(path) if lang is not None else None


def language_of(path: str) -> str | None:
    """The table name of the path's language (``python``, ``typescript``), or None."""
    lang = for_path(path)
    return lang.name if lang is not None else None


def label_of(path: str) -> str | None:
    """How the path's language is printed (``TypeScript`` for ``.ts`` and ``.tsx``)."""
    lang = for_path(path)
    return lang.label if lang is not None else None
