"""Prompts: natural-language instructions the system ships to a model or an agent.

Prompt files (a prompts/ directory, ``*prompt*`` names, Markdown/text addressed to an
agent with "You are ..."; in documentation and housekeeping folders only when the code
names the file), long instruction strings in code, and system messages.
The hit anchors the most distinctive instruction line, which makes a good witness.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from retrieval.survey.base import Hit, clip
from retrieval.survey.model import Category
from retrieval.survey.source import PyFile

_INSTRUCTION = re.compile(
    r"\b(you are|you're an?|your (?:task|goal|job|role)|you (?:must|should|will|can)|"
    r"respond (?:with|in|only)|do not|don't|always|never|instructions?:|rules:|step by step|"
    r"return (?:only|a json)|output format)\b",
    re.I,
)
_PROMPT_NAME = re.compile(r"(prompt|instruction|system|template|persona|guideline)", re.I)
PROMPT_EXT = (".md", ".txt", ".j2", ".jinja", ".jinja2", ".prompt", ".tmpl", ".yaml", ".yml")
_SYSTEM_MSG = re.compile(r"""['"]role['"]\s*:\s*['"]system['"]""")


def _best_line(lines: list[str], start: int, end: int) -> int:
    """First line in ``start..end`` that reads like an instruction, else the first prose line."""
    first = None
    for ln in range(start, end + 1):
        s = lines[ln - 1].strip() if ln - 1 < len(lines) else ""
        if not s or s.startswith(("#", "```", "---", "|")):
            continue
        if first is None and len(s) > 3:
            first = ln
        if _INSTRUCTION.search(s) and len(s) >= 20:
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
    pull-request template, ``docs/configuration.md``) is a prompt only when the code
    names it (``named_in_code(path)``), i.e. when the system may send it to a model:
    "you must …" in a guide for people is not an instruction to a model."""
    name = path.rsplit("/", 1)[-1]
    if _DOC_DIR.search(path) and not (named_in_code is not None and named_in_code(path)):
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
    if not (in_prompt_dir or _PROMPT_NAME.search(name) or addressed):
        return []
    if name.lower().endswith((".yaml", ".yml")) and not (
        in_prompt_dir or _PROMPT_NAME.search(name)
    ):
        return []
    if not text.strip():
        return []
    ln = _best_line(lines, 1, min(len(lines), 80))
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


#: Names that hold an in-context example (a sample exchange shown to the model), not
#: an instruction: its lines are a made-up conversation, never the system's rules.
_EXAMPLE_NAME = re.compile(r"example|sample|few_?shot|demonstration|demo_", re.I)


def _held_by(pf: PyFile, start: int, end: int) -> list[str]:
    """The names the assignments around lines ``start..end`` bind (a string inside a
    ``TOOL_EXAMPLES = {...}`` dict is held by ``TOOL_EXAMPLES``)."""
    return [
        a.extra.get("lhs", "") for a in pf.assigns if a.start_line <= start and end <= a.end_line
    ]


def in_context_example(pf: PyFile, name: str | None, start: int, end: int) -> bool:
    """Whether a string is an in-context example: its own name or an enclosing
    assignment's says so (``EXAMPLE``, ``few_shot``, ``sample_…``)."""
    names = [name or "", *_held_by(pf, start, end)]
    return any(_EXAMPLE_NAME.search(n) for n in names if n)


def prompt_strings(pf: PyFile) -> list[Hit]:
    hits: list[Hit] = []
    for s in pf.strings:
        if s.is_docstring:
            continue
        if in_context_example(pf, s.assigned_to, s.start_line, s.end_line):
            continue
        literal_text = re.sub(r"\{[^{}]*\}", "", s.value) if s.is_fstring else s.value
        named = (
            bool(s.assigned_to and _PROMPT_NAME.search(s.assigned_to)) and len(literal_text) >= 40
        )
        long_enough = len(s.value) >= 200 or (
            s.end_line - s.start_line >= 3 and len(s.value) >= 120
        )
        instr = _INSTRUCTION.search(s.value) is not None
        if not ((long_enough and instr) or named):
            continue
        ln = _best_line(pf.lines, s.start_line, s.end_line)
        hits.append(
            Hit.at_line(
                pf.path,
                ln,
                symbol=s.symbol,
                category=Category.PROMPT,
                kind="instruction_string",
                detail={
                    "name": s.assigned_to or "",
                    "string_lines": f"{s.start_line}-{s.end_line}",
                    "chars": len(s.value),
                    "fstring": s.is_fstring,
                },
            )
        )
        group = f"str:{pf.path}:{s.assigned_to or f'{s.symbol}:{ln}'}"
        for r in rule_lines(pf.lines, s.start_line, s.end_line, ln):
            hits.append(
                Hit.at_line(
                    pf.path,
                    r,
                    symbol=s.symbol,
                    category=Category.PROMPT,
                    kind="prompt_rule",
                    detail={"of": group},
                )
            )
    for d in pf.dicts:
        if _SYSTEM_MSG.search(d.text):
            m = re.search(r"""['"]content['"]\s*:\s*([^,}\n]+)""", d.text)
            hits.append(
                Hit.at_line(
                    pf.path,
                    d.start_line,
                    symbol=d.symbol,
                    category=Category.PROMPT,
                    kind="system_message",
                    detail={"content": clip(m.group(1), 80) if m else ""},
                )
            )
    for c in pf.calls:
        if "system" in c.kwargs and re.search(
            r"(messages\.create|messages\.stream|Agent|LlmAgent|completion)", c.callee
        ):
            arg = "system"
        elif "instruction" in c.kwargs and re.search(r"Agent$", c.callee):
            arg = "instruction"
        else:
            continue
        hits.append(
            Hit.at_line(
                pf.path,
                c.stmt_start,
                symbol=c.symbol,
                category=Category.PROMPT,
                kind="system_message",
                detail={"content": clip(c.kwargs[arg], 80)},
            )
        )
    return hits
