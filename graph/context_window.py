"""Fit every model request into a smaller context window (``--context-window N``).

Why: the Claude path builds requests for a 200k-token window — a shared map of the
repository, three opened files per record, 24,000-character tool pages, and a tool
loop whose transcript grows every turn.  A local model served with a 32k window would
reject (or silently truncate) such a request.  With a window given, two things happen:

1. **Sizes shrink to fit** (:func:`sizes_for`): the output limit, the tool page sizes,
   the per-record context budget and the file excerpt size are derived from ``N``.
2. **Every request is measured before it is sent** (:func:`fit_request`); one that
   would not fit is cut, in this order, until it does: earlier tool answers (the model
   can call the tool again), the opening's repository data, the newest tool answers,
   then the shared map.  Each cut leaves a marker the model reads, and the proposer
   notes it for the draft.  A request that still cannot fit is never sent: it raises
   :class:`WindowOverflow` and the item is flagged, while the run goes on.

Tokens are counted conservatively, without the server's tokenizer: the request's JSON
(non-ASCII escaped, so one CJK character counts two tokens) at
:data:`FIT_CHARS_PER_TOKEN` characters per token, plus a margin for the chat template.
Cuts are deterministic, so a resumed run sends the very bytes its journal answered.
Without a window nothing here runs and the Claude requests are unchanged.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass

from graph.jsontypes import JsonDict

#: Characters per token when deciding whether a request fits (the estimate uses 3.5;
#: code and JSON tokenise denser than prose, and an overflow costs a failed call).
FIT_CHARS_PER_TOKEN = 3.0
#: The smallest window drafter accepts: the fixed prompt, the tool schemas and a task
#: take about 5k tokens before any repository data or output.
MIN_WINDOW = 16_384

# the Claude defaults every derived size is capped by (a bigger window never grows them)
_MAX_TOKENS = 8_192
_PLAN_MAX_TOKENS = 16_000
_PAGE_LINES = 400
_PAGE_CHARS = 24_000
_RECORD_CONTEXT_BYTES = 16_384
_MAX_FILE_CHARS = 12_000


class WindowOverflow(Exception):
    """A request that cannot be cut to fit the window; it is not sent."""


@dataclass(frozen=True)
class PageLimits:
    """How much one tool answer may hold (``read_file`` pages, any answer)."""

    lines: int
    chars: int
    output_chars: int


@dataclass(frozen=True)
class WindowSizes:
    """Everything drafter sizes from the window, for one run."""

    window: int
    max_tokens: int
    plan_max_tokens: int
    pages: PageLimits
    record_context_bytes: int
    max_file_chars: int


def check_window(window: int) -> None:
    """ValueError for a window drafter cannot work in."""
    if window < MIN_WINDOW:
        raise ValueError(
            f"--context-window {window} is too small: drafter's prompt, tool schemas and a "
            f"task alone take about 5,000 tokens; give at least {MIN_WINDOW}"
        )


def sizes_for(window: int) -> WindowSizes:
    """Output limits and data sizes for a ``window``-token context.

    A quarter of the window is left to the answer (at most the Claude defaults); of
    the rest, a tool page may take an eighth, the record's repository data a fifth."""
    check_window(window)
    plan_out = min(_PLAN_MAX_TOKENS, window // 4)
    input_chars = int((window - plan_out) * FIT_CHARS_PER_TOKEN)
    page_chars = max(4_000, min(_PAGE_CHARS, input_chars // 8))
    return WindowSizes(
        window=window,
        max_tokens=min(_MAX_TOKENS, window // 4),
        plan_max_tokens=plan_out,
        pages=PageLimits(
            lines=max(50, min(_PAGE_LINES, page_chars // 60)),
            chars=page_chars,
            output_chars=page_chars,
        ),
        record_context_bytes=min(_RECORD_CONTEXT_BYTES, input_chars // 5),
        max_file_chars=min(_MAX_FILE_CHARS, input_chars // 8),
    )


def window_settings(window: int | None) -> JsonDict:
    """The :class:`graph.configuration.Configuration` fields a window decides."""
    if window is None:
        return {}
    s = sizes_for(window)
    return {
        "context_window": window,
        "record_context_bytes": s.record_context_bytes,
        "max_file_chars": s.max_file_chars,
    }


# -- measuring and cutting ------------------------------------------------------------


def request_tokens(request: JsonDict) -> int:
    """A conservative token count of a Messages API request body."""
    return -(-len(json.dumps(request)) // int(FIT_CHARS_PER_TOKEN))


def input_budget(request: JsonDict, window: int) -> int:
    """Tokens the request itself may take: the window less the answer and a margin."""
    return window - int(request.get("max_tokens") or 0) - max(256, window // 50)


@dataclass
class _Cutter:
    request: JsonDict
    window: int
    notes: list[str]

    def excess(self) -> int:
        return request_tokens(self.request) - input_budget(self.request, self.window)

    def fits(self) -> bool:
        return self.excess() <= 0

    def note(self, what: str) -> None:
        text = f"request cut to fit the {self.window:,}-token context window ({what})"
        if text not in self.notes:
            self.notes.append(text)


def fit_request(request: JsonDict, window: int) -> tuple[JsonDict, list[str]]:
    """The request cut to fit ``window`` (a copy; the caller's is untouched), and what
    was cut.  Raises :class:`WindowOverflow` when even the fully cut request is too big.
    A request that fits is returned as is, with no notes."""
    cut = _Cutter(request, window, [])
    if cut.fits():
        return request, []
    cut.request = copy.deepcopy(request)
    for stage in (_elide_old_answers, _shorten_opening, _shorten_newest, _shorten_map):
        stage(cut)
        if cut.fits():
            return cut.request, cut.notes
    need = request_tokens(cut.request)
    raise WindowOverflow(
        f"the request does not fit the {window:,}-token context window even cut down "
        f"(about {need:,} tokens plus {cut.request.get('max_tokens')} for the answer); "
        "not sent"
    )


def _blocks(message: JsonDict) -> list[JsonDict]:
    content = message.get("content")
    return content if isinstance(content, list) else []


def _elide_old_answers(cut: _Cutter) -> None:
    """Earlier turns' tool answers and assistant text, oldest first, down to a marker."""
    messages = cut.request["messages"]
    for message in messages[1:-1]:
        for block in _blocks(message):
            if cut.fits():
                return
            key = "content" if block.get("type") == "tool_result" else "text"
            if block.get("type") not in ("tool_result", "text"):
                continue
            old = block.get(key)
            if not isinstance(old, str) or len(old) < 200:
                continue
            block[key] = (
                f"[earlier answer elided to fit the {cut.window:,}-token context window "
                f"({len(old):,} characters); call the tool again if you need it]"
            )
            cut.note("earlier tool answers elided")


def _shorten(cut: _Cutter, block: JsonDict, key: str) -> bool:
    """Cut the middle out of one text, keeping its head and its last lines (so a
    ``</repository_data>`` close stays in place); True if anything was cut."""
    text = block.get(key)
    excess = cut.excess()
    if not isinstance(text, str) or excess <= 0:
        return False
    drop = int(excess * FIT_CHARS_PER_TOKEN) + 200
    tail_at = text.rfind("\n", 0, max(0, len(text) - 200))
    tail = text[tail_at:] if tail_at > 0 else ""
    keep = len(text) - len(tail) - drop
    if keep < 400:
        keep = min(400, max(0, len(text) - len(tail)))
    head_end = text.rfind("\n", 0, keep)
    head = text[: head_end if head_end > keep // 2 else keep]
    left_out = len(text) - len(head) - len(tail)
    if left_out <= 0:
        return False
    block[key] = (
        f"{head}\n[{left_out:,} characters cut here to fit the {cut.window:,}-token context "
        f"window; read on with the tools]{tail}"
    )
    return True


def _largest_first(blocks: list[tuple[JsonDict, str]]) -> list[tuple[JsonDict, str]]:
    return sorted(blocks, key=lambda bk: -len(str(bk[0].get(bk[1]) or "")))


def _shorten_opening(cut: _Cutter) -> None:
    """The opening's repository data (every block after the task), largest first."""
    opening = _blocks(cut.request["messages"][0])[1:]
    for block, key in _largest_first([(b, "text") for b in opening if b.get("type") == "text"]):
        if cut.fits():
            return
        if _shorten(cut, block, key):
            cut.note("repository data of the opening shortened")


def _shorten_newest(cut: _Cutter) -> None:
    """The newest user turn's tool answers, largest first (never the first turn's task)."""
    messages = cut.request["messages"]
    if len(messages) < 2:
        return
    answers = [(b, "content") for b in _blocks(messages[-1]) if b.get("type") == "tool_result"]
    for block, key in _largest_first(answers):
        if cut.fits():
            return
        if _shorten(cut, block, key):
            cut.note("the newest tool answers shortened")


def _shorten_map(cut: _Cutter) -> None:
    """The shared map of the repository (system blocks after the prompt)."""
    system = cut.request.get("system")
    if not isinstance(system, list):
        return
    for block in system[1:]:
        if cut.fits():
            return
        if _shorten(cut, block, "text"):
            cut.note("the shared map of the repository shortened")
