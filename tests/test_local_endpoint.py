"""A draft through the real graph and SDK against a scripted *local* endpoint
(``local_endpoint.LocalAPI``): no cache fields in usage, ``tool_choice`` ignored on
some turns, the route submitted as fenced JSON in text, a 32k context window."""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from fakes import Killed
from local_endpoint import (
    MODEL,
    NOT_THERE,
    RIGHT,
    WINDOW,
    LocalAPI,
    make_repo,
    script_local,
)
from rich.console import Console

from drafter.model import FlagKind, VerifyStatus
from graph.cli import draft_estimate
from graph.configuration import Configuration, endpoint_settings
from graph.context_window import sizes_for
from graph.costs import summarize, usage_table
from graph.journal import request_key
from graph.outcome import problems
from graph.proposers.claude import ClaudeProposer
from graph.proposers.claude.client import ModelUnavailable, RetryPolicy
from graph.proposers.factory import tool_budgets
from graph.resources import Resources
from graph.runner import RunResult, run_draft


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    path = tmp_path_factory.mktemp("bigagent") / "repo"
    return path, make_repo(path)


def local_config(**options: object) -> Configuration:
    """A run's settings as ``drafter draft --model qwen3-coder ...`` builds them."""
    endpoint = endpoint_settings(MODEL, "claude", None, **options)  # type: ignore[arg-type]
    return Configuration(
        model=MODEL, generator="claude", concurrency=1, repair_rounds=1, **endpoint
    )


def run_local(
    repo: tuple[Path, str], data: Path, fake: LocalAPI, config: Configuration, **run: Any
) -> RunResult:
    """The run ``build_proposer`` would start, with this fake as the endpoint."""
    window = sizes_for(config.context_window) if config.context_window else None
    prop = ClaudeProposer(
        config.model,
        api_key="ollama",  # any key: the server does not check it
        http_client=fake.client(),
        retry=RetryPolicy(base_delay=0.001, max_delay=0.01),
        budgets=tool_budgets(config),
        price=config.price,
        window=window,
    )
    path, sha = repo
    return run_draft(
        str(path),
        sha,
        config,
        lambda c, r: prop,
        data_dir=data,
        use_index=False,
        system="bigagent",
        **run,
    )


@pytest.fixture(scope="module")
def local_run(repo, tmp_path_factory: pytest.TempPathFactory) -> tuple[LocalAPI, RunResult]:
    fake = LocalAPI()
    script_local(fake)
    config = local_config(context_window=WINDOW)
    return fake, run_local(repo, tmp_path_factory.mktemp("data"), fake, config)


def test_the_run_completes_within_the_window(local_run) -> None:
    fake, result = local_run
    report = result.report
    assert report is not None
    assert {r.id for r in report.records} == {"RT-RTE-loop", "RT-CMP-store", "RT-OBJ-state"}
    assert problems(report) == []  # nothing missing: the CLI would exit 0
    # every request the endpoint received fitted its window; none was refused
    assert fake.too_long == []
    budget = sizes_for(WINDOW)
    assert max(fake.prompt_tokens) + budget.max_tokens <= WINDOW
    assert all(b["max_tokens"] <= WINDOW // 4 for b in fake.log)
    # the route's tool loop would have overflowed: earlier pages were elided to fit
    loop_calls = fake.calls("record:RT-RTE-loop")
    assert len(loop_calls) == 11  # nine pages, a grep, the submission
    assert "earlier answer elided to fit the 32,768-token context window" in str(loop_calls[-1])
    notes = report.meta.notes
    assert "RT-RTE-loop: request cut to fit the 32,768-token context window " in " ".join(notes)


def test_only_verified_witnesses_are_kept(local_run) -> None:
    _, result = local_run
    report = result.report
    assert report.witnesses and all(
        w.verification is not None and w.verification.status == VerifyStatus.verified
        for w in report.witnesses
    )
    assert RIGHT in [w.quote for w in report.record("RT-RTE-loop").witnesses]
    state = report.record("RT-OBJ-state")
    assert NOT_THERE not in [w.quote for w in state.witnesses]
    assert state.flags_of(FlagKind.witness_dropped)
    # its repair answered in prose twice: noted, and the run went on
    assert any("RT-OBJ-state: repair round 1 gave nothing" in n for n in report.meta.notes)


def test_tool_calls_written_as_text_are_recovered(local_run) -> None:
    fake, result = local_run
    report = result.report
    # five answers ignored tool_choice: the route (fenced JSON), the store (prose, then a
    # real call after the follow-up), the repair (prose twice), the account (named JSON)
    assert fake.ignored_tool_choice == 5
    assert [k for k in fake.keys if k.startswith("record:RT-CMP-store")] == [
        "record:RT-CMP-store",
        "record:RT-CMP-store+retry",
    ]
    notes = " ".join(report.meta.notes)
    assert "RT-RTE-loop: submit_record read from the answer's text as JSON" in notes
    assert "runtime account: submit_account read from the answer's text as JSON" in notes
    assert report.account and "run_loop(3)" in str(report.account[0].model_dump())
    store = report.record("RT-CMP-store")
    assert store.witnesses and all(w.verified for w in store.witnesses)


def test_usage_reports_no_invented_cache_figures_or_cost(local_run) -> None:
    fake, result = local_run
    usage = result.report.meta.usage
    assert usage and sum(u.calls for u in usage) == len(fake.usages)
    assert sum(u.input_tokens for u in usage) == sum(u["input_tokens"] for u in fake.usages)
    assert sum(u.output_tokens for u in usage) == sum(u["output_tokens"] for u in fake.usages)
    for u in usage:
        assert u.cache_creation_input_tokens is None and u.cache_read_input_tokens is None
        assert u.cost_usd is None
    out = io.StringIO()
    Console(file=out, width=120).print(usage_table(summarize(result.usage)))
    total = next(line for line in out.getvalue().splitlines() if "total" in line)
    assert total.count("—") == 3 and "0.0000" not in total


def test_estimate_is_in_tokens_without_a_price(repo, tmp_path) -> None:
    path, sha = repo
    config = local_config(context_window=WINDOW)
    res = Resources(repo=str(path), rev=sha, data_dir=tmp_path, use_index=False)
    try:
        est = draft_estimate(config, res, "bigagent")
    finally:
        res.close()
    line = est.line(config.max_cost, config.max_tokens_total)
    assert est.usd is None and config.max_cost is None
    assert "M tokens" in line and "$" not in line
    assert f"{MODEL} has no known price" in line
    priced = local_config(context_window=WINDOW, price_in=0.5, price_out=2.0)
    assert priced.max_cost == 15.0  # a priced model gets the default cap again


def test_without_the_window_setting_the_server_refuses(repo, tmp_path) -> None:
    """The same conversation sized for Claude (requests up to the 64 KB ceiling)
    overflows a 16k window: the endpoint refuses and the run stops (what
    --context-window prevents)."""
    fake = LocalAPI(window=16_384)
    script_local(fake)
    with pytest.raises(ModelUnavailable, match="HTTP 400"):
        run_local(repo, tmp_path, fake, local_config())
    assert fake.too_long


def test_token_cap_stops_cleanly_with_a_partial_draft(repo, tmp_path) -> None:
    fake = LocalAPI()
    script_local(fake)
    config = local_config(context_window=WINDOW, max_tokens_total=20_000)
    result = run_local(repo, tmp_path, fake, config)
    report = result.report
    assert report is not None
    missing = " ".join(report.meta.missing)
    assert "token budget of 20,000 spent" in missing
    spent = sum(u["input_tokens"] + u["output_tokens"] for u in fake.usages)
    # the cap is checked before each call: at most one call past it
    assert spent >= 20_000 and spent - max(fake.prompt_tokens) - 2_000 < 20_000


def test_a_killed_run_resumes_with_the_same_cut_requests(repo, tmp_path) -> None:
    """Cuts are deterministic: after a kill in the middle of the route's cut tool loop,
    the resumed run's requests are answered from the journal and none is sent twice."""
    config = local_config(context_window=WINDOW)
    ref = LocalAPI()
    script_local(ref)
    reference = run_local(repo, tmp_path, ref, config, thread_id="ref")
    fake = LocalAPI()
    script_local(fake)
    fake.kill_at = 11  # the plan (2) and eight turns of the route, the last ones cut
    with pytest.raises(Killed):
        run_local(repo, tmp_path, fake, config, thread_id="killed")
    before = len(fake.log)
    assert fake.keys[2:] == ["record:RT-RTE-loop"] * 8
    assert "earlier answer elided" in json.dumps(fake.log[-1])
    fake.kill_at = None
    resumed = run_local(repo, tmp_path, fake, config, thread_id="killed", resume=True)
    sent_before = {request_key(b) for b in fake.log[:before]}
    assert not sent_before & {request_key(b) for b in fake.log[before:]}
    assert Counter(fake.keys) == Counter(ref.keys)

    def comparable(result: RunResult) -> dict[str, Any]:
        d: dict[str, Any] = json.loads(result.report.to_json())
        d["meta"]["created"] = None
        d["meta"]["extra"]["thread_id"] = None
        return d

    assert comparable(resumed) == comparable(reference)


def test_a_window_bigger_than_the_servers_costs_the_item_not_the_run(repo, tmp_path) -> None:
    """Told 32k while the server has 20k: the request the server refuses (HTTP 400)
    rejects that record with a reason that names the likely cause; the others draft."""
    fake = LocalAPI(window=20_000)
    script_local(fake)
    result = run_local(repo, tmp_path, fake, local_config(context_window=WINDOW))
    report = result.report
    assert report is not None and fake.too_long
    missing = " ".join(report.meta.missing)
    assert "RT-RTE-loop" in missing and "the endpoint refused the request" in missing
    assert "--context-window 32768 larger than the server's window" in missing
    assert {r.id for r in report.records} == {"RT-CMP-store", "RT-OBJ-state"}
    assert problems(report)  # a partial draft: the CLI exits 1
