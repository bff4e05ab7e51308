"""``drafter redraft`` on an Anthropic-compatible endpoint, with ``draft``'s options.

A redraft is a model run like a draft, so it takes the same endpoint options with the
same meaning and checks: ``--price-in/--price-out`` price a model drafter does not know,
``--max-tokens-total`` stops it, ``--context-window`` sizes its requests, and
``--max-cost`` is refused for a model without a price and defaults to the Claude cap.
Run as the analyst runs it: the console script in a child process, the real anthropic
SDK finding ``local_endpoint.LocalAPI`` over HTTP through ``$ANTHROPIC_BASE_URL``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from claude_scenario import rec
from claude_server import ClaudeServer
from fakes import Reply, tool, use
from local_endpoint import MODEL, LocalAPI
from review_material import sample_draft
from test_cli_local_e2e import env_for, run

from drafter.model import Report
from drafter.review_store import ReviewStore
from graph.context_window import sizes_for

NOTE = "the record names the file but not who reads it back; say which run reads it"
WINDOW = 16_384
LABEL = "Run log read back by the next run"


@pytest.fixture(scope="module")
def rejected(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path, str]:
    """A draft of the sample, its store with one object record rejected with a note."""
    base = tmp_path_factory.mktemp("redraft")
    draft, repo, broken = sample_draft(base)
    report = Report.from_json(draft.read_text())
    target = next(r for r in report.records if r.kind == "OBJ" and r.id != broken)
    store = base / "s.sqlite"
    with ReviewStore(store) as s:
        s.reject(target, NOTE)
    return draft, repo, store, target.id


ANSWER = rec(
    LABEL,
    "Source-native identity: runs.jsonl. Representational form: JSON lines. "
    "Storage substrate: local file.",
    [('RUNS_FILE = STATE_DIR / "runs.jsonl"', "tinkerbot/store.py")],
)


def serve(record_id: str, *replies: Reply) -> ClaudeServer:
    fake = LocalAPI(window=WINDOW)
    fake.script(f"record:{record_id}", *replies)
    return ClaudeServer(fake)


@pytest.fixture
def server(rejected) -> Iterator[ClaudeServer]:  # type: ignore[no-untyped-def]
    srv = serve(rejected[3], tool(ANSWER))
    yield srv
    srv.close()


def redraft_args(rejected, out: Path, *more: str) -> list[str]:  # type: ignore[no-untyped-def]
    draft, repo, store, _ = rejected
    return [
        "redraft", str(draft), "--store", str(store), "--repo", str(repo), "--out", str(out),
        "--model", MODEL, "--no-index", "--repair-rounds", "0", *more,
    ]  # fmt: skip


def test_redraft_on_a_local_endpoint_sized_and_priced(rejected, server, tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "new.json"
    more = ["--context-window", str(WINDOW), "--price-in", "0.2", "--price-out", "0.6"]
    child = run(
        redraft_args(rejected, out, *more, "--max-cost", "5"), env_for(server, tmp_path / "d")
    )
    assert child.code == 0, child.out[-3000:] + child.err[-3000:]
    fake = server.fake
    assert isinstance(fake, LocalAPI) and fake.too_long == []
    assert fake.keys == [f"record:{rejected[3]}"]
    # the window sizes the request: the answer limit is the window's, not Claude's 8,192
    assert fake.log[0]["max_tokens"] == sizes_for(WINDOW).max_tokens < 8_192
    new = Report.from_json(out.read_text())
    assert new.record(rejected[3]).label == LABEL  # type: ignore[union-attr]
    # the given price is the model's price: the usage table shows what it cost
    total = next(x for x in child.out.splitlines() if re.search(r"│ total\s", x))
    cost = float(total.rstrip(" │").rsplit("│", 1)[1])
    served = fake.usages[0]
    assert cost == pytest.approx(
        (served["input_tokens"] * 0.2 + served["output_tokens"] * 0.6) / 1e6, abs=1e-4
    )


def test_token_cap_stops_the_redraft_partial_exit_1(rejected, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The model reads a file before it submits; the first call already spends more than
    the cap, so the second is not sent and the rejected version stays, said and exit 1."""
    srv = serve(rejected[3], use(("read_file", {"path": "tinkerbot/store.py"})), tool(ANSWER))
    out = tmp_path / "new.json"
    try:
        args = redraft_args(rejected, out, "--context-window", str(WINDOW))
        child = run([*args, "--max-tokens-total", "1000"], env_for(srv, tmp_path / "d"))
        sent = srv.fake.keys
    finally:
        srv.close()
    assert child.code == 1, child.out[-3000:] + child.err[-3000:]
    assert sent == [f"record:{rejected[3]}"]  # one call, then the cap
    assert "partial redraft" in child.out and "token budget of 1,000 spent" in child.out
    new = Report.from_json(out.read_text())  # written all the same; nothing lost
    draft = Report.from_json(rejected[0].read_text())
    assert new.record(rejected[3]) == draft.record(rejected[3])
    assert any("redraft failed" in n for n in new.meta.notes)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--max-cost", "5"], "--max-cost needs a price"),
        (["--context-window", "4096"], "--context-window 4096 is too small"),
        (["--price-in", "0.5"], "give both --price-in and --price-out"),
        (["--max-tokens-total", "0"], "--max-tokens-total must be at least 1"),
        (["--price-in", "nan", "--price-out", "1"], "--price-in"),
    ],
)
def test_bad_endpoint_options_are_one_line_and_nothing_is_sent(  # type: ignore[no-untyped-def]
    rejected, server, tmp_path, extra, needle
) -> None:
    out = tmp_path / "new.json"
    child = run(redraft_args(rejected, out, *extra), env_for(server, tmp_path / "d"))
    assert child.code == 2, child.err
    lines = child.err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in child.err
    assert server.received == 0 and not out.exists()


def test_claude_redraft_gets_the_default_cost_cap(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from drafter.defaults import MAX_COST_USD
    from graph.cli_redraft import _configuration
    from graph.configuration import DEFAULT_MODEL, EndpointOptions

    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")  # a Claude run (nothing is sent)
    config = _configuration(False, DEFAULT_MODEL, 1, None, EndpointOptions())
    assert config.max_cost == MAX_COST_USD


def test_redraft_through_the_openai_provider(rejected, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``--provider openai --base-url URL`` as ``drafter draft`` takes them: the rejected
    record is asked of the scripted Chat Completions server, with the provider's own key
    variable, and nothing of the Anthropic endpoint is called."""
    from openai_endpoint import OpenAIServer, call

    claude = serve(rejected[3], tool(ANSWER))  # must stay unasked
    oai = OpenAIServer()
    oai.script(f"record:{rejected[3]}", call("submit_record", ANSWER))
    out = tmp_path / "new.json"
    env = env_for(claude, tmp_path / "d", OPENAI_API_KEY="local")
    try:
        args = redraft_args(rejected, out, "--provider", "openai", "--base-url", oai.url)
        child = run(args, env)
    finally:
        oai.close()
        claude.close()
    assert child.code == 0, child.out[-3000:] + child.err[-3000:]
    assert claude.received == 0
    assert [b["model"] for b in oai.of(f"record:{rejected[3]}")][:1] == [MODEL]
    new = Report.from_json(out.read_text())
    assert new.record(rejected[3]).label == LABEL  # type: ignore[union-attr]


def test_redraft_with_another_provider_needs_a_model(rejected, server, tmp_path) -> None:  # type: ignore[no-untyped-def]
    draft, repo, store, _ = rejected
    out = tmp_path / "new.json"
    args = ["redraft", str(draft), "--store", str(store), "--repo", str(repo), "--out", str(out)]
    env = env_for(server, tmp_path / "d", OPENAI_API_KEY="local")
    child = run([*args, "--provider", "openai", "--no-index"], env)
    assert child.code == 2 and "--provider openai needs --model NAME" in child.err
    assert server.received == 0 and not out.exists()
