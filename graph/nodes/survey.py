"""Run the static survey: the facts (entry points, model calls, effects, writes,
prompts) every proposer builds on.  Only counts go into the checkpoint; the survey
itself is recomputed on resume because it is deterministic and needs no model."""

from __future__ import annotations

from collections import Counter

from langgraph.runtime import Runtime

from graph.configuration import RunContext
from graph.jsontypes import JsonDict
from graph.state import DraftState


def survey(state: DraftState, runtime: Runtime[RunContext]) -> JsonDict:
    sv = runtime.context.resources.survey()
    findings = list(sv.findings)
    counts = Counter(f.category for f in findings)
    notices = list(sv.notices)
    return {
        "survey_info": {"findings": len(findings), "by_category": dict(counts)},
        "notes": notices,
    }
