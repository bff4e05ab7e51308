"""Prompts: natural-language instructions the system ships to a model or an agent.

Prompt files (a prompts/ directory, ``*prompt*`` names, Markdown/text addressed to an
agent with "You are ..."; in documentation and housekeeping folders only when the code
names the file), long instruction strings in code, and system messages.
The hit anchors the most distinctive instruction line, which makes a good witness.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from retrieval.roles import is_repo_tooling
from retrieval.survey.base import Hit, clip
from retrieval.survey.model import Category

INSTRUCTION = re.compile(
    r"\b(you are|you're an?|your (?:task|goal|job|role)|you (?:must|should|will|can)|"
    r"respond (?:with|in|only)|do not|don't|always|never|instructions?:|rules:|step by step|"
    r"return (?:only|a json)|output format)\b",
    re.I,
)
PROMPT_NAME = re.compile(r"(prompt|instruction|system|template|persona|guideline)", re.I)
PROMPT_EXT = (".md", ".txt", ".j2", ".jinja", ".jinja2", ".prompt", ".tmpl", ".yaml", ".yml")


def best_line(lines: list[str], start: int, end: int) -> int:
    """First line in ``start..end`` that reads like an instruction, else the first prose line."""
    first = None
    for ln in range(start, end + 1):
        s = lines[ln - 1].strip() if ln - 1 < len(lines) else ""
        if not s or s.startswith(("#", "```", "---", "|")):
            continue
        if first is None and len(s) > 3:
            first = ln
        if INSTRUCTION.search(s) and len(s) >= 20:
            return ln
    return first or start


_RULE = re.compile(
    r"\b(never|always|must|only|do not|don't|stop|revert|commit|at most|no more than|forbidden|"
    r"not allowed|required|when you are done|one [\w ]{0,20} per)\b",
    re.I,
)
MAX_RULES = 3


def rule_lines(lines: list[str], start: int, end: int, skip: int) -> list[int]:
    """Lines in ``start..end`` that state a rule (never/always/must/only/stop...), for witnesses."""
    out: list[int] = []
    for ln in range(start, min(end, len(lines)) + 1):
        s = lines[ln - 1].strip()
        if ln == skip or len(s) < 25 or s.startswith(("#", "```", "|")):
            continue
        if _RULE.search(s):
            out.append(ln)
            if len(out) >= MAX_RULES:
                break
    return out


#: Folders of documentation and repository housekeeping (issue and pull-request
#: templates): their files address a reader, not a model.
_DOC_DIR = re.compile(r"(^|/)(\.github|\.gitlab|docs?|documentation|website|site)/", re.I)


def prompt_file(
    path: str, text: str, named_in_code: Callable[[str], bool] | None = None
) -> list[Hit]:
    """A shipped prompt file.  A file in a documentation or housekeeping folder (a
    pull-request template, ``docs/configuration.md``) or about developing the repository
    (a coding agent's ``AGENTS.md``, a skill under ``.agents/``) is a prompt only when the code
    names it (``named_in_code(path)``), i.e. when the system may send it to a model:
    "you must …" in a guide for people is not an instruction to a model."""
    name = path.rsplit("/", 1)[-1]
    docs_or_tooling = _DOC_DIR.search(path) is not None or is_repo_tooling(path)
    if docs_or_tooling and not (named_in_code is not None and named_in_code(path)):
        return []
    if not name.lower().endswith(PROMPT_EXT) or name.lower().startswith(
        ("readme", "license", "changelog", "contributing", "code_of_conduct", "requirements")
    ):
        return []
    in_prompt_dir = bool(
        re.search(r"(^|/)(prompts?|templates?|instructions?|program_templates)(/|$)", path, re.I)
    )
    lines = text.split("\n")
    head = "\n".join(lines[:60])
    addressed = re.search(r"\b(you are|your task|you will|you must)\b", head, re.I) is not None
    if not (in_prompt_dir or PROMPT_NAME.search(name) or addressed):
        return []
    if name.lower().endswith((".yaml", ".yml")) and not (in_prompt_dir or PROMPT_NAME.search(name)):
        return []
    if not text.strip():
        return []
    ln = best_line(lines, 1, min(len(lines), 80))
    hits = [
        Hit.at_line(
            path,
            ln,
            symbol="<file>",
            category=Category.PROMPT,
            kind="prompt_file",
            detail={
                "file": path,
                "lines": len(lines),
                "first_instruction": clip(lines[ln - 1], 160),
            },
        )
    ]
    for r in rule_lines(lines, 1, len(lines), ln):
        hits.append(
            Hit.at_line(
                path,
                r,
                symbol="<file>",
                category=Category.PROMPT,
                kind="prompt_rule",
                detail={"of": f"file:{path}"},
            )
        )
    return hits
