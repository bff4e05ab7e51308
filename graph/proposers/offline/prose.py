"""Small text helpers of the offline proposer: witnesses, short names, prose blocks.

Witnesses are cut from the survey's snippets (the file's own lines), collapsed to
one line as the report format renders them, so they verify under whitespace
normalisation.  A quote that occurs more than once in its file, or whose file text
is not at hand, carries its line range so the verifier can pick the occurrence.
"""

from __future__ import annotations

from collections.abc import Callable

from drafter.model import Bullet, LineRange, Paragraph, Witness, WitnessBlock
from drafter.text import collapse
from retrieval.survey import Finding
from retrieval.survey.crossings import is_boundary
from retrieval.survey.dispatch import is_dispatch

MAX_QUOTE_CHARS = 240
MAX_QUOTE_LINES = 6


def short_symbol(node: str) -> str:
    """``path/to/file.py::Class.method`` → ``Class.method``; module pseudo-nodes keep the file."""
    path, _, sym = node.partition("::")
    if sym in ("<main>", "<module>", "<script>", "<file>", "<doc>", ""):
        return f"{path} ({'__main__' if sym == '<main>' else 'module level'})" if sym else path
    if is_boundary(node):  # a crossing into another language: named, not called
        return f"[{sym[1:-1]}, boundary into {path}]"
    if is_dispatch(node):  # a handler picked out of a registry: named, not called
        return f"[{sym[1:-1]}]"
    return f"{sym}()"


def quote_lines(f: Finding) -> tuple[str, int, int]:
    """The quote for a finding: up to 3 lines collapsed, or a prefix of a long first line."""
    lines = f.snippet.split("\n")
    start = f.start_line
    # skip leading blank lines so the range starts where the quote does
    while lines and not lines[0].strip():
        lines = lines[1:]
        start += 1
    if not lines:
        return "", f.start_line, f.start_line
    take = 1
    quote = collapse(lines[0])
    for i in range(1, min(len(lines), MAX_QUOTE_LINES)):
        cand = collapse(" ".join(lines[: i + 1]))
        if len(cand) > MAX_QUOTE_CHARS:
            break
        quote, take = cand, i + 1
    if len(quote) > MAX_QUOTE_CHARS * 2:
        cut = quote[: MAX_QUOTE_CHARS * 2]
        quote = cut[: cut.rfind(" ")] if " " in cut[40:] else cut
    return quote, start, start + take - 1


TextOf = Callable[[str], str | None]


def witness(f: Finding, text_of: TextOf | None = None) -> Witness | None:
    """A witness for ``f``; with a line range when the quote is not unique in its file."""
    quote, a, b = quote_lines(f)
    if len(quote) < 6:
        return None  # "{" or ")" proves nothing
    text = text_of(f.path) if text_of else None
    unique = text is not None and collapse(text).count(quote) == 1
    return Witness(quote=quote, path=f.path, lines=None if unique else LineRange(start=a, end=b))


def sentence_witness(f: Finding, sentence: str, text_of: TextOf | None = None) -> Witness | None:
    """A witness quoting a prose sentence the survey anchored at ``f``'s lines."""
    q = collapse(sentence)
    if len(q) < 3:
        return None
    text = text_of(f.path) if text_of else None
    unique = text is not None and collapse(text).count(q) == 1
    return Witness(
        quote=q,
        path=f.path,
        lines=None if unique else LineRange(start=f.start_line, end=max(f.start_line, f.end_line)),
    )


def para(text: str) -> Paragraph:
    return Paragraph(text=text)


def bullet(name: str, value: str) -> Bullet:
    return Bullet(name=name, value=value)


def wblock(w: Witness) -> WitnessBlock:
    return WitnessBlock(witness=w)


def join_names(items: list[str], limit: int = 5, empty: str = "none") -> str:
    """ "a, b and c" with "and N more" past ``limit``."""
    items = list(dict.fromkeys(i for i in items if i))
    if not items:
        return empty
    if len(items) > limit:
        return ", ".join(items[:limit]) + f" and {len(items) - limit} more"
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]


def where(f: Finding) -> str:
    """``symbol() in path:line`` for prose."""
    sym = f.symbol
    if sym in ("<main>", "<module>", "<script>", "<file>", "<doc>"):
        return f"{f.path}:{f.start_line}"
    return f"{sym}() in {f.path}:{f.start_line}"
