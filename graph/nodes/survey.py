"""Run the static survey: the facts (entry points, model calls, effects, writes,
prompts) every proposer builds on.  Only counts go into the checkpoint; the survey
itself is recomputed on resume because it is deterministic and needs no model."""

from __future__ import annotations

from collections import Counter
from typing import Any

from langgraph.runtime import Runtime

from graph.configuration import RunContext
from graph.state import DraftState


def survey(state: DraftState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    sv = runtime.context.resources.survey()
    findings = list(getattr(sv, "findings", []) or [])
    counts = Counter(getattr(f, "category", "?") for f in findings)
    notices = list(getattr(sv, "notices", []) or [])
    return {
        "survey_info": {"findings": len(findings), "by_category": dict(counts)},
        "notes": notices,
    }
