"""Where the text of a prompt file goes after the code reads it.

A library often reads its prompts from data files (YAML, JSON, text, Markdown) in a
constructor, keeps them in an attribute, and fills a model's request from that
attribute in another method, through a model object handed in at run time.  The
survey's call graph does not follow the attribute, and a model reached through an
object passed in is not a surveyed model call, so the read site alone says nothing
about a model.  This module follows the value: from the name the read is assigned
to, through the attributes and keywords it is stored under, to a function that uses
it and calls a model (a surveyed model call, or a call on a model-like object), or
returns it to a caller that does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graph.proposers.offline.langs import is_source
from graph.proposers.offline.prose import TextOf
from graph.proposers.offline.rank import path_class
from retrieval.survey import Finding
from retrieval.survey.index import SurveyIndex
from retrieval.survey.model import Category

#: A call on a model-like object: ``self.model.generate(...)``, ``llm.invoke(...)``,
#: ``client.chat.completions.create(...)``, ``self.model(...)``.
_MODEL_CALL = re.compile(
    r"\b\w*(?:model|llm|client)\w*\s*(?:\.\s*\w+\s*)*\.\s*"
    r"(?:generate|chat|complete|completion|completions|create|invoke|predict|stream)\w*\s*\("
    r"|\b(?:self|this)\.(?:model|llm)\s*\(",
    re.I,
)
#: ``name = ...``, ``self.name = ...`` (``const name = ...``, ``this.name = ...``) at the
#: start of a statement.
_ASSIGNED = re.compile(
    r"^\s*(?:(?:const|let|var)\s+)?(?:self\.|this\.)?"
    r"(?P<name>[A-Za-z_$][\w$]*)\s*(?::[^=]+)?=(?!=)"
)


@dataclass(frozen=True)
class Consumer:
    """The line where the read text meets a model, and the function holding it."""

    path: str
    line: int
    symbol: str

    def where(self) -> str:
        return f"{self.symbol}() in {self.path}:{self.line}"


def _lines(text_of: TextOf | None, path: str) -> list[str]:
    text = text_of(path) if text_of is not None else None
    return text.splitlines() if isinstance(text, str) else []


def _carriers(lines: list[str], start: int, end: int, read_line: int) -> tuple[set[str], set[str]]:
    """Names that hold the read text in its function (the assigned name) and the
    attributes or keywords it is handed on under (``self.x = name``, ``x=name``)."""
    names: set[str] = set()
    attrs: set[str] = set()
    m = _ASSIGNED.match(lines[read_line - 1]) if 0 < read_line <= len(lines) else None
    if m:
        names.add(m.group("name"))
        if lines[read_line - 1].lstrip().startswith(("self.", "this.")):
            attrs.add(m.group("name"))
    for line in lines[read_line:end]:
        for n in names:
            if not re.search(rf"\b{re.escape(n)}\b", line):
                continue
            stored = re.match(rf"^\s*(?:self|this)\.(\w+)\s*=.*\b{re.escape(n)}\b", line)
            if stored:
                attrs.add(stored.group(1))
            attrs.update(re.findall(rf"\b(\w+)\s*=\s*{re.escape(n)}\b", line))
    return names, attrs - {"self"}


class _Follow:
    """One repository's functions, their texts and model calls, for following reads."""

    def __init__(self, ix: SurveyIndex, text_of: TextOf | None) -> None:
        self.ix = ix
        self.text_of = text_of
        self.fns = ix.survey.call_graph.functions
        self.models = {f.node for f in ix.category(Category.MODEL_CALL) if f.kind != "client"}

    def body(self, node: str) -> list[tuple[int, str]]:
        fn = self.fns.get(node)
        if fn is None:
            return []
        lines = _lines(self.text_of, fn.path)
        return list(enumerate(lines[fn.start_line - 1 : fn.end_line], fn.start_line))

    def model_line(self, node: str, after: int = 0) -> Consumer | None:
        """A line of ``node`` (after line ``after``) calling a model, surveyed or model-like."""
        fn = self.fns.get(node)
        if fn is None:
            return None
        surveyed = sorted(
            (
                f
                for f in self.ix.at(node)
                if f.category == Category.MODEL_CALL and f.kind != "client"
            ),
            key=lambda f: f.start_line,
        )
        for f in surveyed:
            if f.start_line > after:
                return Consumer(fn.path, f.start_line, fn.symbol)
        for n, line in self.body(node):
            if n > after and _MODEL_CALL.search(line):
                return Consumer(fn.path, n, fn.symbol)
        return None

    def returns(self, node: str) -> bool:
        return any(re.match(r"\s*return\s+[^\s#]", line) for _, line in self.body(node))

    def sends(self, node: str, after: int = 0) -> Consumer | None:
        """``node`` calls a model after ``after``, or returns a value to a caller that does."""
        hit = self.model_line(node, after)
        if hit is None and self.returns(node):
            for caller in sorted(self.ix.callers.get(node, set())):
                hit = self.model_line(caller)
                if hit is not None:
                    break
        return hit

    def enclosing(self, path: str, line: int) -> str | None:
        best: tuple[int, str] | None = None
        for fn in self.fns.values():
            if fn.path == path and not fn.symbol.startswith("<") and fn.start_line <= line:
                if line <= fn.end_line and (best is None or fn.start_line > best[0]):
                    best = (fn.start_line, fn.id)
        return best[1] if best else None

    def attribute_uses(self, attrs: set[str], cls: int) -> Consumer | None:
        """A function of code at least as central as the prompt (``cls``) that reads one
        of ``attrs`` (``self.attr`` or ``obj.attr``, not assigning it) and sends to a model."""
        if not attrs:
            return None
        use = re.compile(rf"\.(?:{'|'.join(map(re.escape, sorted(attrs)))})\b(?!\s*=[^=])")
        paths = sorted(
            {fn.path for fn in self.fns.values() if is_source(fn.path)},
            key=lambda p: (path_class(p), p),
        )
        for path in paths:
            if path_class(path) > cls:
                continue
            for n, line in enumerate(_lines(self.text_of, path), 1):
                if not use.search(line):
                    continue
                node = self.enclosing(path, n)
                hit = self.sends(node) if node is not None else None
                if hit is not None:
                    return hit
        return None


def prompt_consumer(
    ix: SurveyIndex, reads: list[Finding], text_of: TextOf | None
) -> Consumer | None:
    """Where the text a prompt file's ``reads`` take in is sent to a model, if the code
    shows it: the reading function itself, a caller it returns the text to, or a
    function using the attribute or keyword the text is stored under."""
    follow = _Follow(ix, text_of)
    for r in sorted(reads, key=lambda f: (path_class(f.path), f.path, f.start_line)):
        fn = follow.fns.get(r.node)
        if fn is None:
            continue
        hit = follow.sends(r.node, after=r.start_line - 1)
        if hit is not None:
            return hit
        lines = _lines(text_of, r.path)
        _names, attrs = _carriers(lines, fn.start_line, fn.end_line, r.start_line)
        hit = follow.attribute_uses(attrs, max(path_class(r.path), 1))
        if hit is not None:
            return hit
    return None
