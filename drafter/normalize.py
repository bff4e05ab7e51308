"""The normalisations under which a witness quote counts as present in a file.

Why these and no others: a report renders source *as prose* (report-format.md,
"Witnesses"): whitespace runs, newlines included, become one space; Markdown inline
markup is dropped; a list item may be shown as ``• item``.  Each rule is a
deterministic rewrite applied to both sides, after which the quote must occur as an
exact substring.  Nothing here scores similarity: a quote that differs from the source
in one real character never matches.

Every rewrite keeps a map from its output back to its input, so a match found in the
normalised text can be reported as a 1-based line span of the original file.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import accumulate

from drafter.text import collapse

#: File suffixes whose inline Markdown (emphasis, strong, links) is dropped.  Elsewhere
#: only code-span backticks are: ``*`` and ``_`` are operators and name characters in
#: code, and reading them as emphasis would make different code look equal.
MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx", ".mdown", ".txt", ".rst")

BULLET = "•"

_WS = re.compile(r"\s{2,}|[^\S ]")
_WS_SPLIT = re.compile(r"(\s{2,}|[^\S ])")
_LIST_MARKER = re.compile(r"(?m)^[ \t]*([-*+])(?=[ \t])")
# Code spans: a backtick run, content without a blank line, the same run again.
_CODE = re.compile(r"(?<!`)(`+)(?!`)((?:[^`\n]|`(?!\1)|\n(?![ \t]*\n))+?)(?<!`)\1(?!`)")
_LINK = re.compile(r"!?\[((?:[^\[\]\n])+)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+\"[^\"\n]*\")?\)")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~])")
_AUTOLINK = re.compile(r"<((?:https?|mailto):[^<>\s]+)>")
_SPAN = r"((?:[^\n]|\n(?![ \t]*\n))+?)"
_STRONG = re.compile(
    r"(?<![\w*])\*\*(?=[^\s*])" + _SPAN + r"(?<=[^\s*])\*\*(?![\w*])"
    r"|(?<![\w_])__(?=[^\s_])" + _SPAN + r"(?<=[^\s_])__(?![\w_])"
)
_EM = re.compile(
    r"(?<![\w*])\*(?=[^\s*])" + _SPAN + r"(?<=[^\s*])\*(?![\w*])"
    r"|(?<![\w_])_(?=[^\s_])" + _SPAN + r"(?<=[^\s_])_(?![\w_])"
)


@dataclass(slots=True)
class Mapped:
    """Text produced by a rewrite, with a map back to the text it was made from.

    The map is a list of pieces.  Piece ``k`` starts at ``nstart[k]`` in this text; it
    is either a linear copy of the parent text from ``ostart[k]`` or a single character
    standing for the parent span ``ostart[k]:oend[k]`` (a collapsed whitespace run, a
    list marker).  Deleted parent text (markup delimiters) simply has no piece.
    """

    text: str
    parent: Mapped | None = None
    nstart: list[int] = field(default_factory=list)
    ostart: list[int] = field(default_factory=list)
    oend: list[int] = field(default_factory=list)
    linear: list[bool] = field(default_factory=list)

    def _piece(self, i: int) -> int:
        return bisect_right(self.nstart, i) - 1

    def start_of(self, i: int) -> int:
        """Offset in the original (root) text where character ``i`` begins."""
        if self.parent is None:
            return i
        k = self._piece(i)
        pos = self.ostart[k] + (i - self.nstart[k]) if self.linear[k] else self.ostart[k]
        return self.parent.start_of(pos)

    def end_of(self, i: int) -> int:
        """Offset in the original text just after character ``i``."""
        if self.parent is None:
            return i + 1
        k = self._piece(i)
        end = self.ostart[k] + (i - self.nstart[k]) + 1 if self.linear[k] else self.oend[k]
        return self.parent.end_of(end - 1)

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Original ``[start, end)`` of the normalised ``[start, end)`` (non-empty)."""
        return self.start_of(start), self.end_of(end - 1)


def identity(text: str) -> Mapped:
    return Mapped(text)


class _Builder:
    """Accumulates pieces of a rewrite of ``parent``."""

    def __init__(self, parent: Mapped):
        self.parent = parent
        self.out: list[str] = []
        self.n = 0
        self.m = Mapped("", parent)

    def copy(self, a: int, b: int) -> None:
        if b <= a:
            return
        m = self.m
        if m.linear and m.linear[-1] and m.oend[-1] == a:
            m.oend[-1] = b  # extend the previous linear piece
        else:
            m.nstart.append(self.n)
            m.ostart.append(a)
            m.oend.append(b)
            m.linear.append(True)
        self.out.append(self.parent.text[a:b])
        self.n += b - a

    def replace(self, a: int, b: int, char: str) -> None:
        m = self.m
        m.nstart.append(self.n)
        m.ostart.append(a)
        m.oend.append(b)
        m.linear.append(False)
        self.out.append(char)
        self.n += 1

    def done(self) -> Mapped:
        self.m.text = "".join(self.out)
        return self.m


class _Collapsed(Mapped):
    """The map of a whitespace collapse, kept as offsets of alternating parts.

    Collapsing is the one rewrite every multi-line quote needs, over every file it
    quotes, so it is built from one C-speed ``re.split``: the parts alternate between
    kept text (even indices) and whitespace runs (odd), each run becoming one space.
    ``_orig``/``_norm`` are the parts' start offsets in the parent and in this text.
    """

    __slots__ = ("_orig", "_norm")

    def __init__(self, parent: Mapped):
        parts = _WS_SPLIT.split(parent.text)
        lengths = list(map(len, parts))
        self._orig = list(accumulate(lengths, initial=0))
        lengths[1::2] = [1] * (len(parts) // 2)
        self._norm = list(accumulate(lengths, initial=0))
        parts[1::2] = [" "] * (len(parts) // 2)
        super().__init__("".join(parts), parent)

    def _parent_pos(self, i: int) -> tuple[int, int]:
        """Parent ``[start, end)`` of character ``i``."""
        k = bisect_right(self._norm, i) - 1
        if k % 2:  # a collapsed run
            return self._orig[k], self._orig[k + 1]
        pos = self._orig[k] + (i - self._norm[k])
        return pos, pos + 1

    def start_of(self, i: int) -> int:
        assert self.parent is not None
        return self.parent.start_of(self._parent_pos(i)[0])

    def end_of(self, i: int) -> int:
        assert self.parent is not None
        return self.parent.end_of(self._parent_pos(i)[1] - 1)


def collapse_ws(src: Mapped) -> Mapped:
    """Every whitespace run (newlines included) becomes one space."""
    return _Collapsed(src)


def canonical_bullets(src: Mapped) -> Mapped:
    """A list marker (``-``, ``*``, ``+``) opening a line becomes ``•``."""
    text = src.text
    b = _Builder(src)
    pos = 0
    for m in _LIST_MARKER.finditer(text):
        b.copy(pos, m.start(1))
        b.replace(m.start(1), m.end(1), BULLET)
        pos = m.end(1)
    b.copy(pos, len(text))
    return b.done()


def _keep_groups(pattern: re.Pattern[str]) -> Callable[[Mapped], Mapped]:
    """A rewrite that keeps the matched groups of ``pattern`` and deletes the rest."""

    def rewrite(src: Mapped) -> Mapped:
        text = src.text
        b = _Builder(src)
        pos = 0
        for m in pattern.finditer(text):
            b.copy(pos, m.start())
            for g in range(1, (m.lastindex or 0) + 1):
                if m.start(g) >= 0 and not (pattern is _CODE and g == 1):
                    b.copy(m.start(g), m.end(g))
            pos = m.end()
        b.copy(pos, len(text))
        return b.done()

    return rewrite


strip_code = _keep_groups(_CODE)
strip_links = _keep_groups(_LINK)
strip_autolinks = _keep_groups(_AUTOLINK)
strip_escapes = _keep_groups(_ESCAPE)
strip_strong = _keep_groups(_STRONG)
strip_em = _keep_groups(_EM)


def is_markdown_path(path: str) -> bool:
    return path.lower().endswith(MARKDOWN_SUFFIXES)


def has_markup(text: str, markdown: bool) -> bool:
    """Whether :func:`strip_markup` could change ``text`` at all (a cheap pre-check)."""
    if "`" in text:
        return True
    return markdown and any(c in text for c in "*_[<\\")


def strip_markup(src: Mapped, markdown: bool) -> Mapped:
    """Drop inline markup: code spans always; escapes, links and emphasis in Markdown."""
    out = strip_code(strip_escapes(src) if markdown else src)
    if markdown:
        out = strip_em(strip_strong(strip_autolinks(strip_links(out))))
    return out


# -- the normal forms -------------------------------------------------------------------

#: Match levels, least normalisation first; the first level that matches names the kind.
LEVELS = ("exact", "whitespace", "markup")


def file_form(text: str, level: str, *, bullets: bool, markdown: bool) -> Mapped:
    """The file text normalised for ``level``.

    ``bullets`` rewrites list markers to ``•``; it is used only for quotes that contain
    a ``•``, so a quote that keeps the source's own ``- item`` still matches.
    """
    m = identity(text)
    if level == "exact":
        return m
    if level == "markup" and has_markup(text, markdown):
        m = strip_markup(m, markdown)
    if bullets:
        m = canonical_bullets(m)
    return collapse_ws(m)


def quote_form(quote: str, level: str, *, markdown: bool) -> str:
    """The quote normalised for ``level`` (no offsets needed: the quote is the needle)."""
    if level == "exact":
        return quote.strip()
    if level == "markup":
        quote = strip_markup(identity(quote), markdown).text
    return collapse(quote)
