"""The parts a local endpoint needs, one by one: prices, the token cap, usage without
cache figures, the context window's sizes and cuts, tool calls read from text, and
the timeout and retry settings."""

from __future__ import annotations

import copy
import json
import time

import pytest

from graph.client_settings import request_timeout, retry_count, retry_policy
from graph.configuration import Configuration, endpoint_settings
from graph.context_window import (
    MIN_WINDOW,
    PageLimits,
    WindowOverflow,
    fit_request,
    input_budget,
    request_tokens,
    sizes_for,
)
from graph.costs import Budget, BudgetExceeded, metered, price_for, summarize
from graph.pricing import resolve_price, table_price
from graph.proposers.agent.schema import (
    ACCOUNT_TOOL_DEF,
    RECORD_TOOL_DEF,
    AccountDraft,
    RecordDraft,
)
from graph.proposers.agent.tools import ReadFileInput, SnapshotTools, tool_definitions
from graph.proposers.text_calls import json_objects, recover_call

# -- prices ----------------------------------------------------------------------------


def test_prices_come_from_the_table_or_the_analyst_never_a_guess() -> None:
    assert table_price("claude-sonnet-5-5") == price_for("claude-sonnet-5-5")
    assert table_price("claude-3-opus") is None  # not an exact model ID: no price
    for name in ("qwen3-coder", "gpt-oss:20b", "my-model"):
        assert table_price(name) is None and resolve_price(name) is None
    given = resolve_price("qwen3-coder", 0.2, 0.8)
    assert given is not None and (given.input, given.output) == (0.2, 0.8)
    assert given.cache_read == given.cache_write == 0.2  # no discount assumed
    assert resolve_price("claude-opus-4-5", 1.0, 2.0).output == 2.0  # given beats the table


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({"max_cost": 5.0}, "--max-cost needs a price"),
        ({"price_in": 1.0}, "give both --price-in and --price-out"),
        ({"price_in": -1.0, "price_out": 1.0}, "--price-in must be a non-negative"),
        ({"price_in": float("nan"), "price_out": 1.0}, "--price-in must be a non-negative"),
        ({"max_tokens_total": 0}, "--max-tokens-total must be at least 1"),
        ({"context_window": MIN_WINDOW - 1}, "is too small"),
    ],
)
def test_bad_endpoint_settings_are_refused(options: dict, needle: str) -> None:
    with pytest.raises(ValueError, match=needle) as info:
        Configuration(model="qwen3-coder", generator="claude", **options)
    assert "\n" not in str(info.value)


def test_a_cost_cap_needs_a_price_and_the_default_cap_only_applies_to_one() -> None:
    assert Configuration(model="qwen3-coder", generator="claude").max_cost is None
    priced = Configuration(
        model="qwen3-coder", generator="claude", max_cost=2.0, price_in=0.1, price_out=0.4
    )
    assert priced.price is not None and priced.price.input == 0.1
    assert endpoint_settings("qwen3-coder", "claude", None)["max_cost"] is None
    assert endpoint_settings("claude-sonnet-5-5", "claude", None)["max_cost"] == 15.0
    assert (
        endpoint_settings("qwen3-coder", "claude", None, price_in=1, price_out=1)["max_cost"]
        == 15.0
    )
    assert endpoint_settings("qwen3-coder", "offline", None)["max_cost"] is None
    # the offline proposer makes no call: a name without a price is fine there
    Configuration(model="qwen3-coder", generator="offline", max_cost=1.0)


# -- usage and budgets -------------------------------------------------------------------------


def test_usage_without_cache_fields_stays_unreported() -> None:
    budget = Budget()
    with metered("draft_record", budget) as meter:
        meter.charge("qwen3-coder", {"input_tokens": 1000, "output_tokens": 50}, None)
        meter.charge("qwen3-coder", {"input_tokens": 2000, "output_tokens": 70}, None)
    (u,) = summarize(meter.entries())
    assert (u.calls, u.input_tokens, u.output_tokens) == (2, 3000, 120)
    assert u.cache_creation_input_tokens is None and u.cache_read_input_tokens is None
    assert u.cost_usd is None and budget.spent == 0.0 and budget.tokens == 3120


def test_claude_usage_is_summed_exactly_as_before() -> None:
    with metered("n", Budget()) as meter:
        meter.charge("claude-sonnet-5-5", {"input_tokens": 10, "output_tokens": 1,
                     "cache_creation_input_tokens": 0, "cache_read_input_tokens": 7})  # fmt: skip
    entry = meter.entries()[0]
    assert entry["cache_creation_input_tokens"] == 0 and entry["cache_read_input_tokens"] == 7
    (u,) = summarize([entry])
    assert u.cache_creation_input_tokens == 0 and isinstance(u.cost_usd, float)


def test_token_budget_refuses_the_next_call_once_spent() -> None:
    budget = Budget(token_limit=1_000)
    budget.check()
    budget.add(None, 999)
    budget.check()
    budget.add(None, 1)
    assert budget.exhausted
    with pytest.raises(BudgetExceeded, match="token budget of 1,000 spent"):
        budget.check()
    assert not Budget(limit=1.0).exhausted


# -- the context window ---------------------------------------------------------------------


def test_sizes_shrink_with_the_window_and_never_grow_past_claude() -> None:
    small, mid, big = sizes_for(16_384), sizes_for(32_768), sizes_for(1_000_000)
    assert small.pages.chars < mid.pages.chars < big.pages.chars == 24_000
    assert small.record_context_bytes < mid.record_context_bytes <= 16_384
    assert big.record_context_bytes == 16_384 and big.max_file_chars == 12_000
    assert (
        mid.max_tokens == 8_192 and mid.plan_max_tokens == 8_192 and big.plan_max_tokens == 16_000
    )
    settings = endpoint_settings("qwen3-coder", "claude", None, context_window=32_768)
    config = Configuration(model="qwen3-coder", generator="claude", **settings)
    assert config.context_window == 32_768
    assert (config.record_context_bytes, config.max_file_chars) == (
        mid.record_context_bytes,
        mid.max_file_chars,
    )
    assert Configuration().record_context_bytes == 16_384  # the default, unchanged


def _request(answers: int, size: int) -> dict:
    """A record conversation after ``answers`` tool turns of ``size`` characters each."""
    opening = (
        '<repository_data kind="opening">\n'
        + "line of code\n" * (size // 13)
        + "</repository_data>"
    )
    messages: list[dict] = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Draft the record."},
                {"type": "text", "text": opening},
            ],
        }  # fmt: skip
    ]
    for i in range(answers):
        messages.append(
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": f"t{i}",
                        "name": "read_file",
                        "input": {"path": "a.py"},
                    }
                ],
            }  # fmt: skip
        )
        messages.append(
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": f"t{i}",
                        "content": f"page {i}\n" + "x = 1\n" * (size // 6),
                    }
                ],
            }  # fmt: skip
        )
    return {
        "model": "qwen3-coder",
        "max_tokens": 8_192,
        "system": [{"type": "text", "text": "You draft."}, {"type": "text", "text": "map\n" * 500}],
        "tools": tool_definitions(),
        "tool_choice": {"type": "any"},
        "messages": messages,
    }


def test_a_request_that_fits_is_sent_untouched() -> None:
    request = _request(1, 5_000)
    fitted, notes = fit_request(request, 32_768)
    assert fitted is request and notes == []


def test_an_oversized_request_is_cut_oldest_answers_first_and_then_fits() -> None:
    request = _request(12, 9_000)
    before = copy.deepcopy(request)
    fitted, notes = fit_request(request, 32_768)
    assert request == before  # the caller's conversation is not changed
    assert request_tokens(fitted) <= input_budget(fitted, 32_768)
    assert notes == [
        "request cut to fit the 32,768-token context window (earlier tool answers elided)"
    ]
    results = [
        b for m in fitted["messages"] for b in m["content"] if b.get("type") == "tool_result"
    ]
    assert len(results) == 12  # every tool_use still has its tool_result
    assert results[0]["content"].startswith("[earlier answer elided")
    assert results[-1]["content"] == before["messages"][-1]["content"][0]["content"]  # newest kept
    assert fit_request(request, 32_768) == (fitted, notes)  # deterministic: the journal replays


def test_big_opening_data_is_cut_in_the_middle_keeping_its_frame() -> None:
    request = _request(0, 200_000)
    fitted, notes = fit_request(request, 32_768)
    data = fitted["messages"][0]["content"][1]["text"]
    assert "repository data of the opening shortened" in notes[0]
    assert data.startswith("<repository_data") and data.endswith("</repository_data>")
    assert "characters cut here to fit the 32,768-token context window" in data
    assert fitted["messages"][0]["content"][0]["text"] == "Draft the record."


def test_a_request_that_cannot_fit_is_not_sent() -> None:
    request = _request(0, 100)
    request["system"][0]["text"] = "rule\n" * 40_000  # a prompt bigger than the window
    with pytest.raises(WindowOverflow, match="does not fit the 16,384-token context window"):
        fit_request(request, 16_384)


class _Snap:
    sha = "0" * 40

    def entry(self, path):
        return type("E", (), {"is_regular": True, "kind": "blob"})()

    def read_text(self, path):
        return type(
            "T", (), {"binary": False, "text": "".join(f"line {i}\n" for i in range(1, 901))}
        )()


class _Res:
    def snapshot(self):
        return _Snap()


def test_tool_pages_follow_the_window() -> None:
    default = SnapshotTools(_Res()).read_file(ReadFileInput(path="a.py"))
    assert "lines 1–400 of 900" in default
    small = SnapshotTools(_Res(), limits=PageLimits(lines=120, chars=4_000, output_chars=4_000))
    page = small.read_file(ReadFileInput(path="a.py"))
    assert "lines 1–120 of 900" in page and "a page is at most 120 lines / 4000 characters" in page


# -- tool calls written as text ----------------------------------------------------------------

RECORD = {
    "label": "Loop",
    "lead": "Endpoints: a → b",
    "witnesses": [{"quote": "x = 1", "path": "a.py"}],
}
TOOLS = tool_definitions()


def _text(t: str) -> list[dict]:
    return [{"type": "text", "text": t}]


def _recover(
    text: str, offered: list[dict] | None = None, terminal=RECORD_TOOL_DEF, model=RecordDraft
):
    return recover_call(
        _text(text), TOOLS if offered is None else offered, terminal, model, "toolu_text_1"
    )


def test_fenced_or_bare_json_matching_the_terminal_schema_is_the_call() -> None:
    fenced = _recover("Here it is:\n```json\n" + json.dumps(RECORD, indent=1) + "\n```\nDone.")
    assert fenced is not None and fenced.name == "submit_record" and fenced.input == RECORD
    assert fenced.block() == {
        "type": "tool_use",
        "id": "toolu_text_1",
        "name": "submit_record",
        "input": RECORD,
    }
    bare = _recover("My answer " + json.dumps(RECORD) + " as requested.")
    assert bare is not None and bare.input == RECORD


def test_named_calls_are_taken_for_any_offered_tool() -> None:
    call = _recover(
        '{"name": "read_file", "arguments": "{\\"path\\": \\"a.py\\", \\"start_line\\": 5}"}'
    )
    assert call is not None and (call.name, call.input) == (
        "read_file",
        {"path": "a.py", "start_line": 5},
    )
    assert (
        _recover('{"name": "read_file", "input": {"path": "a.py"}}', offered=[]) is None
    )  # forced
    assert _recover('{"name": "rm_rf", "input": {}}') is None  # not offered


def test_text_that_only_looks_like_a_call_is_not_one() -> None:
    assert _recover("I read the file; nothing to add.") is None
    assert _recover('{"path": "a.py"}') is None  # a bare object never picks an investigation tool
    assert _recover(json.dumps({**RECORD, "extra": 1})) is None  # a key the schema does not have
    assert _recover(json.dumps({"label": "x"})) is None  # a required key missing
    assert _recover(json.dumps({"label": "x", "lead": 3})) is None  # the model refuses it
    # {} would validate as an account (every field has a default): it is still no call
    assert _recover("{}", terminal=ACCOUNT_TOOL_DEF, model=AccountDraft) is None
    assert _recover("{not json} ```json\n[1, 2]\n```") is None


def test_the_last_qualifying_object_wins_and_hostile_text_costs_little() -> None:
    first, last = {**RECORD, "label": "draft"}, {**RECORD, "label": "final"}
    call = _recover(f"draft: {json.dumps(first)} final: {json.dumps(last)}")
    assert call is not None and call.input["label"] == "final"
    t0 = time.perf_counter()
    assert json_objects("{" * 150_000 + '"a": 1}') == []
    assert time.perf_counter() - t0 < 5


# -- timeouts and retries --------------------------------------------------------------------


def test_timeout_and_retries_come_from_the_environment(monkeypatch) -> None:
    monkeypatch.delenv("DRAFTER_REQUEST_TIMEOUT", raising=False)
    monkeypatch.delenv("DRAFTER_RETRIES", raising=False)
    assert request_timeout() == 300.0 and retry_count() == 5 and retry_policy().max_attempts == 6
    monkeypatch.setenv("DRAFTER_REQUEST_TIMEOUT", "1800")
    monkeypatch.setenv("DRAFTER_RETRIES", "1")
    assert request_timeout() == 1800.0 and retry_policy().max_attempts == 2


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("DRAFTER_REQUEST_TIMEOUT", "soon"),
        ("DRAFTER_REQUEST_TIMEOUT", "0"),
        ("DRAFTER_REQUEST_TIMEOUT", "-5"),
        ("DRAFTER_REQUEST_TIMEOUT", "inf"),
        ("DRAFTER_RETRIES", "two"),
        ("DRAFTER_RETRIES", "-1"),
        ("DRAFTER_RETRIES", "1.5"),
        ("DRAFTER_RETRIES", "999"),
    ],
)
def test_bad_timeout_or_retry_settings_are_one_line_errors(monkeypatch, name, value) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ValueError, match=name) as info:
        request_timeout() if "TIMEOUT" in name else retry_count()
    assert "\n" not in str(info.value)


def test_epistemic_estimate_and_cap_follow_the_same_price_rule() -> None:
    from drafter.errors import BadInput
    from graph.epistemic.estimate import estimate_epistemic
    from graph.epistemic.factory import cost_cap as _cost_cap

    local = estimate_epistemic("qwen3-coder", 40_000, [8_000] * 4, 20_000, 8, 6).line(None)
    assert "M tokens" in local and "$" not in local and "no known price" in local
    claude = estimate_epistemic("claude-sonnet-5-5", 40_000, [8_000] * 4, 20_000, 8, 6)
    assert "$" in claude.line(15.0)
    assert _cost_cap("qwen3-coder", None) is None
    assert _cost_cap("claude-sonnet-5-5", None) == 15.0
    with pytest.raises(BadInput, match="--max-cost needs a price"):
        _cost_cap("qwen3-coder", 3.0)
