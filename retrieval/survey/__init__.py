"""Static survey of a pinned revision: the facts an analyst hunts for first.

``run_survey(snapshot)`` returns a :class:`Survey` of findings (entry points, model
calls, tool dispatch, execution effects, persistence, prompts, model loops, gating,
configuration reads, claims) with exact source anchors, plus a best-effort call
graph of the repository's own functions.
"""

from retrieval.survey.model import CATEGORIES, CallGraph, Category, Finding, FunctionNode, Survey
from retrieval.survey.runner import run_survey

__all__ = ["CATEGORIES", "CallGraph", "Category", "Finding", "FunctionNode", "Survey", "run_survey"]
