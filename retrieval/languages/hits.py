"""One finding at a call site, the way the ES and Go rules write them: the callee as
``call``, the rule's own keys, then the ``why`` that made it fire (in that order, so the
survey's JSON reads the same from every language)."""

from __future__ import annotations

from typing import cast

from retrieval.languages.facts import Call, SourceFile
from retrieval.survey.base import Hit
from retrieval.survey.details import AnyDetail
from retrieval.survey.model import Category, Kind


def call_hit(
    pf: SourceFile, c: Call, category: Category, kind: Kind, why: str, **detail: str | bool
) -> Hit:
    """A finding at call ``c`` of ``pf`` with detail ``{call, **detail, why}``."""
    full = {"call": c.callee, **detail, "why": why}
    return Hit.at_call(pf, c, category=category, kind=kind, detail=cast(AnyDetail, full))
