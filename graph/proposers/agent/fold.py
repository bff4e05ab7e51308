"""Older tool answers of a conversation, folded to a line that says what they showed.

Why: every request of a tool loop is rebuilt from the whole conversation, so each turn
re-sent every earlier tool answer.  The planner reads the most (whole pages of entry
modules, repository-wide greps), and with a reasoner playing the model through the
relay dgm's last planning request had grown to 209 KB.  A record conversation already
starts from a folded form of what the planner read (its notes and the ranges, see
:func:`graph.proposers.agent.context.notes_section`); this does the same inside a
conversation: the newest tool-answer turn stays whole, and every earlier answer is
replaced by one bracketed line saying what it was (path and line range, or pattern and
hit count), that the model's own words about it are in its turn above, and the exact
call that shows it again.

Rules that keep the loop's guarantees:

- The conversation itself is never changed: folding is a pure function of it, applied
  when a request is built, so the run's records (the ``read_file`` inputs behind a
  plan's "ranges read") and a resumed run's byte-identical requests are untouched.
- An answer, once folded, is folded the same way on every later turn.  So request
  ``n+1`` repeats request ``n`` up to the last turn request ``n`` folded; the loop puts
  a cache breakpoint there (:func:`fold_messages` returns where), and each turn reads
  the folded history from the prompt cache and writes only the turn just folded and
  the new one.
- Error answers and answers no longer than their folded line stay whole.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from drafter.sanitize import frame_escape
from graph.jsontypes import JsonDict

#: ``span(input)`` gives the (path, first, last line) a ``read_file`` input shows, or None.
SpanFn = Callable[[Any], "tuple[str, int, int] | None"]

#: Characters of an answer's first line kept in its folded form.
HEAD_CHARS = 300
#: Files a folded grep answer names (with their hit counts); the rest are counted.
GREP_FILES = 6
_GREP_HIT = re.compile(r"^(.+?):(\d+): ", re.MULTILINE)


@dataclass(frozen=True)
class Folding:
    """How a conversation's older tool answers are folded."""

    #: Newest tool-answer turns kept whole.
    keep: int = 1
    #: The page a ``read_file`` input shows (the proposer's tools); without it the
    #: folded line repeats the call as the model made it.
    span: SpanFn | None = None


def _safe(text: str) -> str:
    """Repository paths and model-written patterns outside a data block still cannot
    open or close one."""
    return frame_escape(text, "repository_data")


def call_text(name: str, raw: Any) -> str:
    """A tool call written the way the model can repeat it: ``grep(pattern="x", …)``."""
    if not isinstance(raw, dict) or not raw:
        return f"{name}()"
    args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in raw.items())
    return f"{name}({args})"


def _again(name: str, raw: Any, span: SpanFn | None) -> str:
    """The exact call that shows the folded answer again."""
    if name == "read_file" and span is not None:
        got = span(raw)
        if got is not None:
            path, start, end = got
            return call_text("read_file", {"path": path, "start_line": start, "end_line": end})
    if name == "check_quotes":
        return "check_quotes with the quotes you still need"
    return call_text(name, raw)


def _grep_files(text: str) -> str:
    """Which files a grep answer's hits were in, most hits first."""
    counts: dict[str, int] = {}
    for m in _GREP_HIT.finditer(text):
        counts[m.group(1)] = counts.get(m.group(1), 0) + 1
    if not counts:
        return ""
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    shown = ", ".join(f"{p} ({n})" for p, n in ranked[:GREP_FILES])
    more = f" and {len(ranked) - GREP_FILES} more files" if len(ranked) > GREP_FILES else ""
    return f"; hits in {shown}{more}"


def folded_answer(name: str, raw: Any, text: str, span: SpanFn | None) -> str:
    """The one line an older tool answer is replaced by."""
    head = text.split("\n", 1)[0][:HEAD_CHARS]
    what = head + (_grep_files(text) if name == "grep" else "")
    return _safe(
        f"[folded {name} answer: {what}. Its text is no longer in this conversation "
        "(older tool answers are folded to keep requests small; your notes on it, if you "
        f"took any, are in your own turns). To see it again: {_again(name, raw, span)}]"
    )


def _calls(messages: list[JsonDict]) -> dict[str, tuple[str, Any]]:
    """(tool name, input) of every tool_use in the conversation, by its ID."""
    out: dict[str, tuple[str, Any]] = {}
    for m in messages:
        if m["role"] != "assistant" or not isinstance(m["content"], list):
            continue
        for b in m["content"]:
            if b.get("type") == "tool_use":
                out[str(b["id"])] = (str(b["name"]), b.get("input"))
    return out


def _answer_turns(messages: list[JsonDict]) -> list[int]:
    """Indexes of the user turns that answer tool calls, oldest first."""
    return [
        i
        for i, m in enumerate(messages)
        if m["role"] == "user"
        and isinstance(m["content"], list)
        and any(b.get("type") == "tool_result" for b in m["content"])
    ]


def fold_messages(messages: list[JsonDict], folding: Folding) -> tuple[list[JsonDict], int | None]:
    """A copy of ``messages`` with the tool answers of all but the newest ``keep``
    answer turns folded, and the index of the last folded turn (None: none folded)."""
    out = copy.deepcopy(messages)
    turns = _answer_turns(out)
    older = turns[: max(0, len(turns) - max(1, folding.keep))]
    if not older:
        return out, None
    calls = _calls(out)
    for i in older:
        for b in out[i]["content"]:
            if b.get("type") != "tool_result" or b.get("is_error"):
                continue
            content = b.get("content")
            if not isinstance(content, str):
                continue
            name, raw = calls.get(str(b.get("tool_use_id")), ("tool", None))
            short = folded_answer(name, raw, content, folding.span)
            if len(short) < len(content):
                b["content"] = short
    return out, older[-1]
