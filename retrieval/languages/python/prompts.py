"""Prompts in Python code: long instruction strings, strings named as prompts, system
messages and ``system=``/``instruction=`` arguments (in-context examples left out).
The hit anchors the most distinctive instruction line, found as for prompt files."""

from __future__ import annotations

import re

from retrieval.survey.base import Hit, clip
from retrieval.survey.model import Category
from retrieval.survey.prompts import INSTRUCTION, PROMPT_NAME, best_line, rule_lines
from retrieval.survey.source import PyFile

_SYSTEM_MSG = re.compile(r"""['"]role['"]\s*:\s*['"]system['"]""")


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
            bool(s.assigned_to and PROMPT_NAME.search(s.assigned_to)) and len(literal_text) >= 40
        )
        long_enough = len(s.value) >= 200 or (
            s.end_line - s.start_line >= 3 and len(s.value) >= 120
        )
        instr = INSTRUCTION.search(s.value) is not None
        if not ((long_enough and instr) or named):
            continue
        ln = best_line(pf.lines, s.start_line, s.end_line)
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
