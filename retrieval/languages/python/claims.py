"""Claims in Python code: docstrings that state what a function guarantees, and tool
descriptions handed to a model (the sentence finders are the survey's, shared with
documentation claims)."""

from __future__ import annotations

import re

from retrieval.roles import is_repo_tooling
from retrieval.survey.base import Hit, clip
from retrieval.survey.claims import MAX_CLAIMS_PER_FILE, PROMISE
from retrieval.survey.model import Category
from retrieval.survey.source import PyFile


def docstring_claims(pf: PyFile) -> list[Hit]:
    hits: list[Hit] = []
    if is_repo_tooling(pf.path):  # scripts of the repository's CI or coding agents
        return hits
    for d in pf.defs:
        if not d.docstring or not d.docstring_lines:
            continue
        ds_start, ds_end = d.docstring_lines
        for off, raw in enumerate(pf.lines[ds_start - 1 : ds_end]):
            s = raw.strip().strip('"').strip("'").strip()
            if (
                30 <= len(s) <= 240
                and PROMISE.search(s)
                and not s.startswith((">>>", "Args", "Returns", ":"))
            ):
                hits.append(
                    Hit.at_line(
                        pf.path,
                        ds_start + off,
                        symbol=d.symbol,
                        category=Category.CLAIM,
                        kind="docstring",
                        detail={"sentence": clip(s, 240), "function": d.symbol},
                    )
                )
                break
    return hits


def tool_description_claims(pf: PyFile) -> list[Hit]:
    hits: list[Hit] = []
    for i, line in enumerate(pf.lines, 1):
        m = re.search(r"""['"]description['"]\s*:\s*['"]([^'"]{20,})['"]""", line)
        if m and re.search(r"""['"]name['"]\s*:""", "\n".join(pf.lines[max(0, i - 4) : i + 3])):
            hits.append(
                Hit.at_line(
                    pf.path,
                    i,
                    symbol="<module>",
                    category=Category.CLAIM,
                    kind="tool_description",
                    detail={"sentence": m.group(1)},
                )
            )
    return hits[:MAX_CLAIMS_PER_FILE]
