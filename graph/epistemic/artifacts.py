"""Truth-apt artifacts: what a system writes, returns or extracts that could be true.

Four rules, each generic:
- **persisted**: a survey persistence finding (a write) whose snippet or function
  names truth-apt content (score, report, grade, prediction...);
- **report keys**: a dict-key line naming a score or grade (``"accuracy": ...``)
  inside a function that writes such an artifact or checks truth-apt values — the
  source-native identity of the reported proposition;
- **model answers**: an assignment to a prediction/answer variable after a model
  call in the same function — the candidate answer a model produced;
- **check outputs**: the first ``return`` of a check site that persists nothing.
"""

from __future__ import annotations

import re
from typing import Any

from graph.epistemic.scan import (
    Artifact,
    CheckSite,
    ObjectClass,
    TextOf,
    skip_path,
    truth_class,
)
from graph.proposers.offline.deciding import deciding_quote
from retrieval.survey import Survey
from retrieval.survey.model import Category

_FORMS = (
    (re.compile(r"json", re.I), "symbolic JSON"),
    (re.compile(r"csv", re.I), "tabular CSV"),
    (re.compile(r"insert|sqlite|execute", re.I), "SQL table rows"),
    (re.compile(r"pickle|torch\.save|np\.save", re.I), "binary serialisation"),
)
_NAME_LITERAL = re.compile(r"[\"']([A-Za-z0-9_./-]{3,60})[\"']")
_WRITE_HINT = re.compile(r"write|dump|save|insert|append|to_csv|to_json|commit", re.I)
_KEY_LINE = re.compile(r"^[\"'](\w{3,60})[\"']\s*:\s*\S")
_ANSWER_ASSIGN = re.compile(r"^(\w*(?:pred|answer|verdict|grade)\w*)\s*=(?!=)\s*(.+)$", re.I)
#: A right-hand side that is only a literal initialises a variable; it extracts nothing.
_LITERAL = re.compile(r"^(?:None|True|False|-?\d[\d.]*|\"[^\"]*\"|'[^']*'|\[\]|\{\})$")
MAX_KEYS_PER_FUNCTION = 4


def _form(text: str) -> str:
    for pat, form in _FORMS:
        if pat.search(text):
            return form
    return "text file"


def _persisted(survey: Survey) -> list[Artifact]:
    out: list[Artifact] = []
    for f in survey.index().category(Category.PERSISTENCE):
        if skip_path(f.path):
            continue
        head = f.snippet.strip().splitlines()[0].strip() if f.snippet.strip() else ""
        context = f"{f.snippet} {f.symbol} {f.kind}"
        cls = truth_class(context)
        if cls is None or not head or not _WRITE_HINT.search(f"{f.kind} {f.snippet}"):
            continue
        names = [m for m in _NAME_LITERAL.findall(f.snippet) if truth_class(m)]
        out.append(Artifact(cls, f.path, f.symbol, f.start_line, head, True, _form(context), names))
    return out


def _function(survey: Survey, path: str, symbol: str) -> Any:
    return survey.call_graph.functions.get(f"{path}::{symbol}")


def _report_keys(
    survey: Survey, owners: set[tuple[str, str]], persisted: set[tuple[str, str]], text_of: TextOf
) -> list[Artifact]:
    out: list[Artifact] = []
    for path, symbol in sorted(owners):
        fn, lines = _function(survey, path, symbol), text_of(path)
        if fn is None or lines is None:
            continue
        found = 0
        for n in range(fn.start_line, min(fn.end_line, len(lines)) + 1):
            m = _KEY_LINE.match(lines[n - 1].strip())
            cls = truth_class(m.group(1)) if m else None
            if m is None or cls not in (ObjectClass.scores, ObjectClass.grades):
                continue
            stored = (path, symbol) in persisted
            form = "symbolic JSON" if stored else "in-process mapping"
            out.append(
                Artifact(cls, path, symbol, n, lines[n - 1].strip(), stored, form, [m.group(1)])
            )
            found += 1
            if found >= MAX_KEYS_PER_FUNCTION:
                break
    return out


def _model_answers(survey: Survey, text_of: TextOf) -> list[Artifact]:
    out: list[Artifact] = []
    for f in survey.index().category(Category.MODEL_CALL):
        if skip_path(f.path):
            continue
        fn, lines = _function(survey, f.path, f.symbol), text_of(f.path)
        if fn is None or lines is None or f.symbol.startswith("<"):
            continue
        for n in range(f.end_line + 1, min(fn.end_line, len(lines)) + 1):
            raw = lines[n - 1].strip()
            m = _ANSWER_ASSIGN.match(raw)
            if m and not _LITERAL.match(m.group(2).strip()):
                out.append(
                    Artifact(
                        ObjectClass.predictions,
                        f.path,
                        f.symbol,
                        n,
                        raw,
                        False,
                        "model output",
                        [m.group(1)],
                    )
                )
                break
    return out


def _check_outputs(sites: list[CheckSite], text_of: TextOf) -> list[Artifact]:
    out: list[Artifact] = []
    for s in sites:
        lines = text_of(s.path) or []
        for n in range(s.start, min(s.end, len(lines)) + 1):
            raw = lines[n - 1].strip()
            if raw.startswith("return ") and deciding_quote(raw):
                cls = truth_class(f"{raw} {s.symbol}") or ObjectClass.scores
                out.append(Artifact(cls, s.path, s.symbol, n, raw, False, "return value"))
                break
    return out


def find_artifacts(survey: Survey, sites: list[CheckSite], text_of: TextOf) -> list[Artifact]:
    """Every truth-apt artifact the four rules find, persisted ones first."""
    persisted = _persisted(survey)
    stored = {(a.path, a.symbol) for a in persisted}
    owners = stored | {(s.path, s.symbol) for s in sites}
    keys = _report_keys(survey, owners, stored, text_of)
    return [*persisted, *keys, *_model_answers(survey, text_of), *_check_outputs(sites, text_of)]
