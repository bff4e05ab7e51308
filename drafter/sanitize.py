"""The one sanitiser for text that reaches a terminal or a report file.

Why one module: repository files and model output are written by people who may want
to attack whoever reads them.  A raw ESC byte in a quote can set the terminal title,
write the clipboard (OSC 52) or clear the screen; ``[link=file:///…]`` in a snippet is
a hyperlink once Rich reads it as markup.  Every place that shows such text calls
:func:`visible` (control characters made visible) and, when the text goes through Rich,
:func:`markup_safe` (markup escaped too), so the rule is the same everywhere.

The visible form of a control character is ``⟨U+001B⟩``.  It is also the report text
format's escape: :func:`unescape` reads it back exactly, so a quote of a file that
really holds an ESC byte survives render → parse → verify.  A literal ``⟨`` that would
read as an escape is itself written as ``⟨U+27E8⟩``, which keeps the round trip exact.
"""

from __future__ import annotations

import re

from rich.markup import escape as _rich_escape
from rich.text import Text

from drafter.text import collapse

#: Control characters that must never reach a terminal raw: C0 except tab and newline,
#: DEL, and C1 (0x80-0x9F, which some terminals read as CSI/OSC introducers).
CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: Line and paragraph separators: invisible and break lines in some viewers.
_SEPARATORS = "\u2028\u2029"
_OPEN = "⟨"
_TOKEN_RE = re.compile(r"⟨U\+([0-9A-F]{4})⟩")
_ESCAPE_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]|⟨(?=U\+[0-9A-F]{4}⟩)")


def _escapable(ch: str) -> bool:
    return bool(CONTROL_RE.match(ch)) or ch in _SEPARATORS or ch == _OPEN


def _token(ch: str) -> str:
    return f"⟨U+{ord(ch):04X}⟩"


def visible(text: str, *, keep_newlines: bool = True) -> str:
    """``text`` with every control character written as ``⟨U+XXXX⟩``.

    Tab is kept; newline is kept unless ``keep_newlines`` is False (one-line cells).
    Carriage return is escaped: on a terminal it would overwrite the start of the line.
    """
    out = _ESCAPE_RE.sub(lambda m: _token(m.group()), text)
    if not keep_newlines:
        out = out.replace("\n", _token("\n"))
    return out


def unescape(text: str) -> str:
    """The inverse of :func:`visible`: ``⟨U+XXXX⟩`` of an escapable character -> it.

    Tokens naming other characters (``⟨U+0041⟩``) are left as written: a person who
    typed one meant the text, not an escape.
    """
    if _OPEN not in text:
        return text

    def back(m: re.Match[str]) -> str:
        ch = chr(int(m.group(1), 16))
        return ch if _escapable(ch) else m.group()

    return _TOKEN_RE.sub(back, text)


def has_control(text: str) -> bool:
    """Does ``text`` hold a character :func:`visible` would escape (other than ``⟨``)?"""
    return bool(CONTROL_RE.search(text)) or any(c in text for c in _SEPARATORS)


def markup_safe(text: str, *, keep_newlines: bool = True) -> str:
    """Control characters made visible and Rich markup escaped: safe inside a markup string."""
    return _rich_escape(visible(text, keep_newlines=keep_newlines))


def plain(text: str, style: str = "", *, keep_newlines: bool = True) -> Text:
    """A Rich ``Text`` that is never parsed as markup, control characters made visible."""
    return Text(visible(text, keep_newlines=keep_newlines), style=style)


def json_safe(text: str) -> str:
    """JSON text with DEL, C1 and line separators written as ``\\uXXXX`` escapes.

    ``json.dumps`` already escapes C0; with ``ensure_ascii=False`` it leaves C1 raw,
    which a terminal may obey.  The escapes are valid JSON, so the data is unchanged.
    """
    return re.sub(r"[\x7f-\x9f\u2028\u2029]", lambda m: f"\\u{ord(m.group()):04x}", text)


def one_line(text: str, limit: int | None = None) -> str:
    """Whitespace collapsed to single spaces, controls visible, clipped to ``limit``."""
    out = visible(collapse(text), keep_newlines=False)
    if limit is not None and len(out) > limit:
        out = out[: limit - 1] + "…"
    return out


_FRAME_TAG_RE_CACHE: dict[str, re.Pattern[str]] = {}


def frame_escape(text: str, tag: str) -> str:
    """Data text made safe inside ``<tag …>…</tag>`` framing of a model request.

    Any opening or closing form of ``tag`` in the data, in any letter case and with
    any spacing after ``<`` or ``</`` (``</Repository_Data>``, ``< repository_data
    kind="system">``), gets a backslash after its ``<`` (``<\\/repository_data``), so data
    can neither end its block nor open a forged one; control characters are made
    visible (``⟨U+001B⟩``).
    """
    pat = _FRAME_TAG_RE_CACHE.get(tag)
    if pat is None:
        pat = re.compile(r"<(?=\s*/?\s*" + re.escape(tag) + r"(?![A-Za-z0-9_\-]))", re.IGNORECASE)
        _FRAME_TAG_RE_CACHE[tag] = pat
    return pat.sub("<\\\\", visible(text))
