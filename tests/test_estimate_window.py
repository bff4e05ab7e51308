"""The estimate's record opening is the run's ``record_context_bytes``, not a constant.

A record's (and a repair's) first request is built within ``record_context_bytes``
(16 KB by default, smaller with ``--context-window``); the estimate once assumed a
6,000-token opening whatever the window.  At a 32k window the tool pages are still
larger than the low end's tool answers, so the low end of the range moves only through
the opening: it must be lower with the window than without.
"""

from __future__ import annotations

import re

from drafter import defaults
from drafter.cli import main
from drafter.sample import SampleRepo
from graph.context_window import sizes_for, window_settings
from graph.estimate import CHARS_PER_TOKEN, estimate, record_opening_tokens
from graph.proposers.claude import ToolBudgets

WINDOW = 32_768
LOW_ANSWER_TOKENS = 1_500  # the low end's tool answer (graph.estimate.estimate)


def test_the_opening_is_the_budget_in_tokens() -> None:
    assert record_opening_tokens(16_384) == int(16_384 / CHARS_PER_TOKEN)
    default = estimate("claude-sonnet-5-5", 40_000, 40, ToolBudgets())
    assert default == estimate(
        "claude-sonnet-5-5",
        40_000,
        40,
        ToolBudgets(),
        record_context_bytes=defaults.DEFAULT_RECORD_CONTEXT_BYTES,
    )
    small = estimate("claude-sonnet-5-5", 40_000, 40, ToolBudgets(), record_context_bytes=4_096)
    assert small.low.total < default.low.total and small.high.total < default.high.total
    assert small.usd is not None and default.usd is not None
    assert small.usd[0] < default.usd[0]


def _low_usd(out: str) -> float:
    m = re.search(r"\$(\d+\.\d+)–\$(\d+\.\d+)", out)
    assert m, out
    return float(m.group(1))


def test_context_window_lowers_the_estimate_through_the_opening(
    sample: SampleRepo, capsys, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    sizes = sizes_for(WINDOW)
    # the precondition that makes this a test of the opening alone
    assert sizes.pages.chars / CHARS_PER_TOKEN > LOW_ANSWER_TOKENS
    assert window_settings(WINDOW)["record_context_bytes"] < defaults.DEFAULT_RECORD_CONTEXT_BYTES
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    args = ["draft", str(sample.path), "--rev", sample.sha, "--estimate", "--no-index"]
    assert main(args) == 0
    without = _low_usd(capsys.readouterr().out)
    assert main([*args, "--context-window", str(WINDOW)]) == 0
    with_window = _low_usd(capsys.readouterr().out)
    assert with_window < without


def test_the_planner_conversation_is_counted_folded() -> None:
    """The planner re-sends older tool answers folded to a line (graph.proposers.agent
    .fold), so its reads grow by a line per turn, not by a page; record conversations
    still re-send every answer whole."""
    from graph.estimate import FOLDED_ANSWER, Conversation, Tokens

    whole = Conversation(turns=16, opening=5_000, answer=5_000, submit=1_000)
    folded = Conversation(16, 5_000, 5_000, 1_000, folded=FOLDED_ANSWER)
    a, b = Tokens(), Tokens()
    a.add(10_000, whole, 1)
    b.add(10_000, folded, 1)
    assert b.cache_read < a.cache_read / 2
    # the last request carries one whole answer and fourteen folded ones
    assert folded.sent(15) == 5_000 + 15 * 150 + 5_000 + 14 * FOLDED_ANSWER
    assert folded.sent(1) == whole.sent(1)  # nothing to fold yet
