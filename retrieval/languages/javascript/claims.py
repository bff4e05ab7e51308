"""Claims in ES code: documentation comments that state what an API guarantees, and the
descriptions of tools handed to a model.

Why: an SDK or agent written in TypeScript documents its behaviour in JSDoc comments
(``/** Defaults to 10 turns. */`` above an option, a method, a class) rather than in
docstrings, and tells its model what each tool does in the tool's ``description``.  Those
are the promises an analyst tests against the code, as a Python system's docstrings and
tool descriptions are.  The sentence finder is the survey's, shared with documentation.
"""

from __future__ import annotations

import re

from retrieval.languages.facts import SourceFile
from retrieval.roles import in_test_code, is_repo_tooling
from retrieval.survey.base import Hit, clip
from retrieval.survey.claims import MAX_CLAIMS_PER_FILE, PROMISE
from retrieval.survey.model import Category

#: A documentation comment opens with ``/**``; ``/*`` and ``//`` comments are notes.
_DOC_OPEN = re.compile(r"^\s*/\*\*(?!\*)")
_DOC_CLOSE = "*/"
#: A line of a doc comment that is a tag (``@param``, ``@example``) or code in it.
_TAG = re.compile(r"^@\w+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*\"'(])")
#: ``description: "..."`` (or a template literal) inside a tool declaration.
_DESCRIPTION = re.compile(r"""\bdescription\s*:\s*(["'`])((?:(?!\1).){20,})""")


def _doc_comments(lines: list[str]) -> list[list[tuple[int, str]]]:
    """Each ``/** ... */`` block as its lines (number, text without the ``*`` margin),
    stopping at its first tag: what follows a tag documents one parameter or example."""
    out: list[list[tuple[int, str]]] = []
    i = 0
    while i < len(lines):
        if not _DOC_OPEN.match(lines[i]):
            i += 1
            continue
        block: list[tuple[int, str]] = []
        tagged = False
        j = i
        while j < len(lines):
            raw = lines[j]
            body = raw.split("/**", 1)[-1] if j == i else raw
            closed = _DOC_CLOSE in body
            body = body.split(_DOC_CLOSE, 1)[0].strip().lstrip("*").strip()
            if _TAG.match(body):
                tagged = True
            if body and not tagged:
                block.append((j + 1, body))
            j += 1
            if closed:
                break
        out.append(block)
        i = j
    return out


def _first_promise(block: list[tuple[int, str]]) -> tuple[int, str] | None:
    """The first sentence of a comment that makes a promise, with the line it starts on."""
    text = ""
    starts: list[tuple[int, int]] = []
    for n, body in block:
        if text:
            text += " "
        starts.append((len(text), n))
        text += body
    pos = 0
    for part in _SENTENCE_END.split(text):
        at = text.find(part, pos)
        pos = at + len(part)
        sent = part.strip()
        if 30 <= len(sent) <= 240 and PROMISE.search(sent) and "```" not in sent:
            line = max(n for off, n in starts if off <= at)
            return line, sent
    return None


def _enclosing(pf: SourceFile, line: int) -> str:
    """The definition a comment documents (the next one starting after it) or that holds
    it (an option of an interface inside a class is documented inside the class)."""
    after = [d for d in pf.defs if d.start_line > line]
    if after:
        nxt = min(after, key=lambda d: d.start_line)
        if nxt.start_line - line <= 12:
            return nxt.symbol
    return _enclosing_def(pf, line)


def es_doc_comment_claims(pf: SourceFile) -> list[Hit]:
    """JSDoc sentences that promise behaviour (``never``, ``by default``, ``only``,
    ``persisted``...): one per comment, a dozen per file at most, none in test code or in
    the repository's own tooling."""
    if in_test_code(pf.path) or is_repo_tooling(pf.path):
        return []
    hits: list[Hit] = []
    for block in _doc_comments(pf.lines):
        found = _first_promise(block)
        if found is None:
            continue
        line, sent = found
        symbol = _enclosing(pf, line)
        hits.append(
            Hit.at_line(
                pf.path,
                line,
                symbol=symbol,
                category=Category.CLAIM,
                kind="docstring",
                detail={
                    "sentence": clip(sent, 240),
                    "function": symbol,
                    "why": "a documentation comment states what the code does",
                },
            )
        )
        if len(hits) >= MAX_CLAIMS_PER_FILE:
            break
    return hits


#: Calls that declare a tool (``tool({...})`` of the ``ai`` package or an agent SDK).
_TOOL_CALLS = frozenset(
    "tool defineTool createTool registerTool DynamicStructuredTool DynamicTool".split()
)
_SCHEMA_KEYS = frozenset({"parameters", "input_schema", "inputSchema", "parametersJsonSchema"})


def _tool_spans(pf: SourceFile) -> list[tuple[int, int]]:
    """Lines of each tool declaration: a tool-declaring call with a description, or an
    object with a name, a description and a schema."""
    spans = [
        (c.start_line, c.end_line)
        for c in pf.calls
        if c.callee.split(".")[-1] in _TOOL_CALLS and "description" in c.kwargs
    ]
    for d in pf.dicts:
        keys = set(d.extra.get("keys", "").split(","))
        if {"name", "description"} <= keys and keys & _SCHEMA_KEYS:
            spans.append((d.start_line, d.end_line))
    return sorted(set(spans))


def es_tool_description_claims(pf: SourceFile) -> list[Hit]:
    """The ``description`` of each tool declaration: what the model is told the tool does,
    which its code may or may not do.  The declaration's own key is the least indented
    ``description:`` in it (the schema's parameters carry descriptions of their own)."""
    if in_test_code(pf.path) or is_repo_tooling(pf.path):
        return []
    hits: list[Hit] = []
    seen: set[int] = set()
    for start, end in _tool_spans(pf):
        found = [
            (len(pf.lines[n - 1]) - len(pf.lines[n - 1].lstrip()), n, m)
            for n in range(start, min(end, len(pf.lines)) + 1)
            if (m := _DESCRIPTION.search(pf.lines[n - 1])) is not None
        ]
        if not found:
            continue
        _, n, m = min(found, key=lambda t: (t[0], t[1]))
        if n in seen:
            continue
        seen.add(n)
        hits.append(
            Hit.at_line(
                pf.path,
                n,
                symbol=_enclosing_def(pf, n),
                category=Category.CLAIM,
                kind="tool_description",
                detail={
                    "sentence": clip(m.group(2).rstrip("\"'`,) "), 240),
                    "why": "the description a model is given of a tool",
                },
            )
        )
        if len(hits) >= MAX_CLAIMS_PER_FILE:
            break
    return hits


def _enclosing_def(pf: SourceFile, line: int) -> str:
    """The innermost definition whose lines hold ``line``, else ``<module>``."""
    holders = [d for d in pf.defs if d.start_line <= line <= d.end_line]
    return max(holders, key=lambda d: d.start_line).symbol if holders else "<module>"
