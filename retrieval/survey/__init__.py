"""Static survey of a pinned revision: the facts an analyst hunts for first.

``run_survey(snapshot)`` returns a :class:`Survey` of findings (entry points, model
calls, tool dispatch, execution effects, persistence, prompts, model loops, gating,
configuration reads, claims) with exact source anchors, plus a best-effort call
graph of the repository's own functions.

``run_survey`` is imported on first use: the runner builds the rule registry, which
imports each language's rules, which import this package's rule helpers; importing it
here eagerly would make a language's rules module unimportable on its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from retrieval.survey.model import CATEGORIES, CallGraph, Category, Finding, FunctionNode, Survey

if TYPE_CHECKING:
    from retrieval.survey.runner import run_survey

__all__ = ["CATEGORIES", "CallGraph", "Category", "Finding", "FunctionNode", "Survey", "run_survey"]


def __getattr__(name: str) -> Any:
    if name == "run_survey":
        from retrieval.survey.runner import run_survey

        return run_survey
    raise AttributeError(name)
