"""The TypeScript survey rules: the ES rules of :mod:`retrieval.languages.javascript.rules`."""

from __future__ import annotations

from retrieval.languages.javascript.rules import register_es, register_es_repository
from retrieval.survey.registry import Registry


def register(rules: Registry) -> None:
    """Add the ES rules for TypeScript files to ``rules``."""
    register_es(rules, "typescript")
    register_es_repository(rules)
