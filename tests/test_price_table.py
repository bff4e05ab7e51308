"""Prices come from a table of exact model IDs, each row with its source, and every
estimate shows the per-million prices it used."""

from __future__ import annotations

import re

import pytest

from drafter.cli import main
from drafter.price_table import PRICES
from graph.configuration import Configuration, endpoint_settings
from graph.costs import CallUsage
from graph.estimate import Tokens, estimate
from graph.pricing import table_price
from graph.proposers.claude import ToolBudgets


@pytest.mark.parametrize(
    ("model", "inp", "out"),
    [
        ("claude-opus-4-1", 15.0, 75.0),
        ("claude-opus-4-1-20250805", 15.0, 75.0),
        ("claude-opus-4-20250514", 15.0, 75.0),
        ("claude-opus-4-5", 5.0, 25.0),
        ("claude-sonnet-4-5-20250929", 3.0, 15.0),
        ("claude-3-5-sonnet-20241022", 3.0, 15.0),
        ("claude-3-7-sonnet-20250219", 3.0, 15.0),
        ("claude-3-5-haiku-20241022", 0.80, 4.0),
        ("claude-haiku-4-5", 1.0, 5.0),
    ],
)
def test_a_listed_model_has_its_published_price(model: str, inp: float, out: float) -> None:
    price = table_price(model)
    assert price is not None and (price.input, price.output) == (inp, out)


@pytest.mark.parametrize(
    "model", ["claude-opus", "claude-opus-4-1-preview", "claude-3-5-sonnet", "claude-7", "gpt-5"]
)
def test_a_name_not_in_the_table_is_unpriced_never_matched_by_prefix(model: str) -> None:
    assert table_price(model) is None
    assert CallUsage("n", model, 1_000, 1_000).cost_usd is None
    # handled as any unpriced model: no default USD cap, and a cap is refused
    assert endpoint_settings(model, "claude", None)["max_cost"] is None
    with pytest.raises(ValueError, match="--max-cost needs a price"):
        Configuration(model=model, generator="claude", max_cost=5.0)


def test_every_row_names_where_its_price_was_read() -> None:
    for model, price in PRICES.items():
        assert re.match(r"https://(platform\.claude\.com|docs\.anthropic\.com)/", price.source), (
            model
        )
        assert price.cache_read < price.input < price.cache_write <= price.input * 1.25 + 1e-9


def test_the_default_cap_is_measured_with_the_exact_price() -> None:
    config = Configuration(
        model="claude-opus-4-1",
        generator="claude",
        **endpoint_settings("claude-opus-4-1", "claude", None),
    )
    assert config.max_cost == 15.0 and config.price is not None
    assert config.price.input == 15.0 and config.price.cache_read == 1.5
    # a million cache reads and a million output tokens cost what the page says
    tokens = Tokens(output=1_000_000, cache_read=1_000_000)
    assert tokens.cost(config.price) == pytest.approx(76.5)


def test_the_estimate_line_shows_the_prices_and_their_source() -> None:
    est = estimate("claude-opus-4-1", 40_000, 20, ToolBudgets())
    line = est.line(15.0)
    assert "priced at $15 in / $75 out / $18.75 cache write / $1.5 cache read" in line
    assert "platform.claude.com/docs/en/about-claude/pricing" in line
    lo = estimate("claude-opus-4-5", 40_000, 20, ToolBudgets()).usd
    hi = est.usd
    assert lo is not None and hi is not None and hi[0] == pytest.approx(3 * lo[0])


def test_draft_estimate_prints_the_prices_it_used(sample, tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    args = ["draft", str(sample.path), "--rev", sample.sha, "--estimate", "--no-index"]
    code = main([*args, "--model", "claude-opus-4-1", "--data-dir", str(tmp_path / "d")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "priced at $15 in / $75 out" in out and "source: https://" in out
    code = main([*args, "--model", "claude-opus-9", "--data-dir", str(tmp_path / "d")])
    out = capsys.readouterr().out
    assert code == 0 and "no known price" in out and "priced at" not in out
