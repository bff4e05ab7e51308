"""Claims: sentences where the repository promises behaviour.

README and docs sentences ("has no internet access", "state is persistent",
"never modifies ..."), docstrings that state what a function guarantees, and tool
descriptions handed to a model.  These become claim records that an analyst then
checks against the code; the survey only finds and anchors them.
"""

from __future__ import annotations

import re

from retrieval.survey.base import Hit
from retrieval.survey.model import Category

PROMISE = re.compile(
    r"\b(never|always|ensures?|guarantee[sd]?|only|must|cannot|can't|will not|won't|"
    r"no (?:internet|network|access)|persist(?:s|ent|ed)?|sandbox(?:ed)?|isolated?|"
    r"automatically|prevents?|safe(?:ly)?|restrict(?:s|ed)?|read-only|immutable|"
    r"deterministic|reproducib\w+|counts? as|scores?|rollback|revert(?:s|ed)?|"
    r"untrusted|saved|by default|unlikely|risks?)\b",
    re.I,
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*\"'(])")
MAX_CLAIMS_PER_FILE = 12
#: An MDX page's module lines (``import Code from "..."``, ``export const x = ...``): code
#: of the docs site, not prose.
_MDX_CODE = re.compile(r"^(import|export)\s+[\w{*]")


def _paragraphs(lines: list[str]) -> list[tuple[int, int]]:
    """Line spans of prose paragraphs/list items outside fenced code blocks and tables."""
    spans: list[tuple[int, int]] = []
    fenced = False
    start = None
    for i, raw in enumerate(lines, 1):
        s = raw.strip()
        if s.startswith(("```", "~~~")):
            fenced = not fenced
            if start is not None:
                spans.append((start, i - 1))
                start = None
            continue
        prose = (
            bool(s)
            and not fenced
            and not s.startswith(("#", "|", "<", "![", "[!", ">", "{/*"))
            and not _MDX_CODE.match(s)
            and not s.startswith("    ")
        )
        item = re.match(r"^([-*+]|\d+\.)\s+", s) is not None
        if not prose or item:
            if start is not None:
                spans.append((start, i - 1))
                start = None
            if prose and item:
                start = i
            continue
        if start is None:
            start = i
    if start is not None:
        spans.append((start, len(lines)))
    return spans


def _sentences(lines: list[str], start: int, end: int) -> list[tuple[str, int, int]]:
    """Sentences of a paragraph with the lines they span (whitespace collapsed)."""
    text = ""
    offsets: list[tuple[int, int]] = []  # (char offset where line starts, line number)
    for ln in range(start, end + 1):
        piece = lines[ln - 1].strip()
        if ln == start:
            piece = re.sub(r"^([-*+]|\d+\.)\s+", "", piece)
        if text:
            text += " "
        offsets.append((len(text), ln))
        text += piece
    out = []
    pos = 0
    for part in _SENTENCE_END.split(text):
        idx = text.find(part, pos)
        pos = idx + len(part)
        first = max(ln for off, ln in offsets if off <= idx)
        last = max(ln for off, ln in offsets if off <= max(idx, pos - 1))
        out.append((part.strip(), first, last))
    return out


def _quoted_lines(lines: list[str]) -> list[tuple[int, str]]:
    """Blockquote lines (``> text``, GitHub alerts skipped) with their text after the marker."""
    out = []
    for i, raw in enumerate(lines, 1):
        m = re.match(r"^\s*>\s?(.*)$", raw)
        if m and m.group(1).strip() and not m.group(1).strip().startswith("[!"):
            out.append((i, m.group(1).strip()))
    return out


def doc_claims(path: str, text: str, limit: int = MAX_CLAIMS_PER_FILE) -> list[Hit]:
    lines = text.split("\n")
    hits: list[Hit] = []
    # blockquotes (warnings, notes): sentences within one line only, since a sentence
    # running across lines would include the "> " markers of the source
    for ln, body in _quoted_lines(lines):
        for part in _SENTENCE_END.split(body):
            sent = part.strip()
            if 30 <= len(sent) <= 300 and PROMISE.search(sent):
                hits.append(
                    Hit.at_line(
                        path,
                        ln,
                        symbol="<doc>",
                        category=Category.CLAIM,
                        kind="doc_sentence",
                        detail={"sentence": sent},
                    )
                )
    for a, b in _paragraphs(lines):
        for sent, first, last in _sentences(lines, a, b):
            if not (30 <= len(sent) <= 300) or not PROMISE.search(sent):
                continue
            if "http" in sent or sent.count("`") > 4 or sent.count("|") > 1:
                continue
            hits.append(
                Hit(
                    category=Category.CLAIM,
                    kind="doc_sentence",
                    path=path,
                    start_line=first,
                    end_line=last,
                    symbol="<doc>",
                    detail={"sentence": sent},
                )
            )
            if len(hits) >= limit:
                return hits
    return hits


#: Rule sentences in instruction files: what the program tells an agent the system does
#: or forbids, which the code is then supposed to enforce.
_RULE = re.compile(
    r"\b(must|never|always|only|counts? as|do not|don't|is not saved|are not saved|"
    r"automatically|required?|forbidden|at most|at least|regardless)\b|≥|≤|>=|<=",
    re.I,
)


def instruction_rules(path: str, text: str) -> list[Hit]:
    """Rule sentences of an instruction/program file (a prompt file in Markdown or text).

    README sentences describe a system to people; an instruction file states the rules an
    agent is told the system holds it to ("val_score must be >= the best recorded",
    "timeouts count as failures").  Those are claims about code too: the gate either
    enforces them or it does not.
    """
    rules = [
        Hit(
            category=Category.CLAIM,
            kind="instruction_rule",
            path=h.path,
            start_line=h.start_line,
            end_line=h.end_line,
            symbol=h.symbol,
            detail=h.detail,
        )
        for h in doc_claims(path, text, limit=40)
        if _RULE.search(h.view.get("sentence", ""))
    ]
    return rules[:24]
