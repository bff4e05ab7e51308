"""Prompt text and repository-data framing for the Claude proposer.

Prompts live as files in ``prompts/`` (one per node) and are loaded with
``importlib.resources`` so they ship with the package and can be edited without
touching code.  Repository text is always wrapped in ``<repository_data>`` elements
whose tags cannot be forged from inside: any opening or closing ``repository_data`` tag
in the data, in any letter case, is escaped (see :func:`drafter.sanitize.frame_escape`),
so text in an analysed file can never end the data block and speak as the prompt.
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from typing import Any

from drafter.model import LEAD_LABELS
from drafter.sanitize import frame_escape
from graph.proposers.agent.map import (
    MAX_FILE_LINES,
    RECORD_FILE_LINES,
    file_map,
    survey_summary,
)
from retrieval.survey import Finding, Survey

PROMPT_NAMES = ("system", "plan", "record", "repair", "account")
_TAG = "repository_data"

LEAD_HINTS = {
    "CMP": "Source-native identity: … Representational form: … Storage substrate: …",
    "OBJ": "Source-native identity: … Representational form: … Storage substrate: …",
    "RTE": "Endpoints/progression: a → b → c",
    "CLM": "Claimed operation: …",
    "BAP": (
        "Consumer: who acts on it (a model, the interpreter, a scorer) … Channel: how it"
        " gets there (system prompt, user message, tool description, import, exec,"
        " selection by score) … Force: executable (code that runs or is imported),"
        " instruction (text a model is asked to follow; its effect is probabilistic),"
        " selective (a fixed predicate or score decides what is kept, chosen or rerun) or"
        " advisory (in-context guidance nothing enforces), with what decides it …"
        " Horizon: a single call, one attempt or run, or later invocations while what"
        " carries it persists (a file, an archive, the system's own code) …"
    ),
}
assert set(LEAD_HINTS) == set(LEAD_LABELS)

#: What a record of each kind must also say (the record prompt's ``kind_hint``).
KIND_HINTS = {
    "CLM": (
        "A claim record tests a documented promise against the code. Say what was"
        " promised and where (the document, help text or prompt, with its path), then"
        " what the code does. Give at least one witness from the document that makes the"
        " promise and one from the code that keeps, weakens or breaks it. Add the field"
        ' "claim status" with one of: `wired` (the code does what was promised), `partly`'
        " (it does, with exceptions or only on some paths: name them), `not wired` (no"
        " code you read does it: say what you read), `contradicted` (the code does"
        " otherwise: quote it). The implementation conclusion status stays as the system"
        " prompt defines it."
    ),
    "OBJ": (
        "An object record describes state: what the store or structure holds and its"
        " form, where it lives (memory, file, database), how an entry is admitted (who"
        " writes it, under what check), evicted or replaced, and how entries are"
        " selected for use; quote the write, the check and the read."
    ),
}


@cache
def load_prompt(name: str) -> str:
    if name not in PROMPT_NAMES:
        raise KeyError(name)
    return files("prompts").joinpath(f"{name}.md").read_text(encoding="utf-8")


def render(name: str, **values: Any) -> str:
    return load_prompt(name).format(**values)


def _escape(text: str) -> str:
    """Tag-like text of either form, any case, and control characters are escaped."""
    return frame_escape(text, _TAG)


def framed_size(text: str) -> int:
    """Characters ``text`` takes inside a data block (escaping can lengthen it)."""
    return len(_escape(text))


def _attr(value: str) -> str:
    return json.dumps(_escape(value), ensure_ascii=False)


def data_block(kind: str, body: str, **attrs: str) -> str:
    """One delimited piece of repository data."""
    extra = "".join(f" {k}={_attr(str(v))}" for k, v in attrs.items())
    return f'<repository_data kind="{kind}"{extra}>\n{_escape(body)}\n</repository_data>'


def finding_line(f: Finding) -> str:
    """A compact, deterministic line per survey finding."""
    first = f.snippet.strip().splitlines()
    snippet = first[0][:160] if first else ""
    where = f"{f.path}:{f.start_line}-{f.end_line}"
    return f"{f.id} | {f.category}/{f.kind} | {where} | {f.symbol} | {snippet}"


def shared_context(
    system: str,
    repository: str,
    revision: str,
    paths: list[str],
    survey: Survey | None,
    brief: bool = False,
) -> str:
    """The block every call of a run shares (and caches): a map of the repository.

    A map, not the whole survey: this block is re-read on every turn of every tool loop,
    while the ``survey`` tool lists any finding on request and each record's request
    carries the findings of its own files in full (see :mod:`graph.proposers.agent.map`).
    ``brief``: the record conversations' map (a shorter file list, the survey's counts
    and entry units): a record's request carries its own findings and the files of its
    own folders, so the planner's whole map would only take room from the item's text.
    """
    summary, total, busy = survey_summary(survey, finding_line, brief)
    lines = RECORD_FILE_LINES if brief else MAX_FILE_LINES
    files, folded, hidden = file_map(paths, keep=busy, budget=lines)
    what = (
        "counts per category and kind and the entry units; the record's own findings"
        " are in its request"
        if brief
        else "counts per category and kind, the entry units, a few findings per category"
        " chosen by how much of the code reaches them, and the files where findings gather"
    )
    folding = (
        f" Past {lines} lines, {folded} folders holding {hidden} of the paths are"
        " folded into one line each (folder/, file count, extensions);"
        " `list_files` with the glob `folder/*` lists one."
        if folded
        else ""
    )
    return "\n\n".join(
        [
            f"System: {system}\nRepository: {repository}\nRevision: {revision}\nSource ID: SRC-1",
            f"The repository's files ({len(paths)} paths).{folding}",
            data_block("file_list", "\n".join(files), count=str(len(paths))),
            f"A summary of the static survey ({total} findings): {what}. The `survey`"
            " tool lists the rest: `survey(category=...)` for one category,"
            " `survey(path=...)` for one file. Each record's request also carries the"
            " findings of its own files in full.",
            data_block("survey_summary", summary, count=str(total)),
        ]
    )
