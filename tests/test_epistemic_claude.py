"""The Claude epistemic proposer as an investigator, in process.

The real anthropic SDK over ``httpx2.MockTransport``, a scripted model
(``tests/epistemic_model.py``) and the whole epistemic LangGraph run on the sample:
one record's model reads a file, checks a wrong quote, checks the right one and
submits; invented record IDs are removed and flagged; the sections conversation
rewrites the boundary (its inline witnesses are verified) and decides cells; the
``--max-cost`` cap leaves a partial draft that lists what is missing; a run killed
inside a tool loop resumes without paying again and ends with the same draft.
"""

from __future__ import annotations

import re
from pathlib import Path

import httpx2
import pytest
from epistemic_model import (
    INVENTED_CELL,
    INVENTED_PART,
    INVENTED_TEXT,
    REAL_PART,
    EpiModel,
    Killed,
)

from drafter.model import FlagKind, Table, WitnessBlock
from drafter.reportio import load_report
from drafter.sample import SampleRepo, gold_path
from drafter.snapshot import Snapshot
from graph.epistemic.claude import ClaudeEpistemicProposer
from graph.epistemic.idguard import MARK
from graph.epistemic.workflow import run_epistemic
from graph.proposers.claude import ClaudeProposer
from graph.proposers.providers.retry import RetryPolicy

MODEL = "claude-sonnet-5-5"


@pytest.fixture(scope="module")
def readme(sample: SampleRepo) -> str:
    """The sample README's longest line: the witness the scripted model quotes."""
    with Snapshot(str(sample.path), sample.sha) as snap:
        return max(snap.read_str("README.md").splitlines(), key=len)


def _proposer(model: EpiModel, announced: list[tuple[int, str]]) -> ClaudeEpistemicProposer:
    inner = ClaudeProposer(
        MODEL,
        api_key="test-key",
        http_client=httpx2.Client(transport=httpx2.MockTransport(model.handler)),
        retry=RetryPolicy(base_delay=0.001, max_delay=0.01),
    )
    return ClaudeEpistemicProposer(inner, announce=lambda s: announced.append((len(model.log), s)))


def _run(s: SampleRepo, data: Path, model: EpiModel, max_cost: float | None = None, **kw):
    announced: list[tuple[int, str]] = []
    prop = _proposer(model, announced)
    result = run_epistemic(
        str(s.path), s.sha, gold_path(), data_dir=data, proposer=prop, max_cost=max_cost, **kw
    )
    return result, announced


@pytest.fixture(scope="module")
def full(sample, readme, tmp_path_factory: pytest.TempPathFactory):
    model = EpiModel(readme)
    result, announced = _run(sample, tmp_path_factory.mktemp("data"), model)
    return model, result, announced


def _results(body: dict) -> list[str]:
    return [b["content"] for b in body["messages"][-1]["content"] if b.get("type") == "tool_result"]


def test_a_record_is_investigated_with_tools_and_submitted(full, sample) -> None:
    model, result, _ = full
    s = sample
    target = model.target
    assert target is not None and target.startswith("EPI-RTE-")
    turns = model.requests_of(target)
    assert len(turns) == 4  # read, wrong check, right check, submit
    names = [t["name"] for t in turns[0]["tools"]]
    assert {"read_file", "grep", "check_quotes", "submit_record"} <= set(names)
    assert turns[0]["tool_choice"] == {"type": "any"}
    # the runtime IDs are in the cached system block, the task names the record
    system = turns[0]["system"]
    assert system[-1]["cache_control"] and REAL_PART in system[-1]["text"]
    assert f"Draft the record {target}" in turns[0]["messages"][0]["content"][0]["text"]
    assert turns[0]["tools"][-1].get("cache_control")
    page = _results(turns[1])[0]
    assert page.startswith("tinkerbot/scoring.py @ " + s.sha[:12] + " · lines 1–")
    assert "0 of 1 verified" in _results(turns[2])[0]
    assert "1 of 1 verified\n1. verified (exact)" in _results(turns[3])[0]
    rec = result.report.record(target)
    assert rec.label == f"Model label for {target}"
    assert rec.witnesses and all(w.verified for w in rec.witnesses)


def test_invented_ids_are_removed_and_flagged(full) -> None:
    model, result, _ = full
    report = result.report
    rec = report.record(model.target)
    assert rec.part_of is None
    assert any(INVENTED_PART in f.text for f in rec.flags)
    assert any(INVENTED_TEXT in f.text for f in rec.flags)
    assert INVENTED_TEXT not in rec.body_text() and MARK in rec.body_text()
    assert REAL_PART in rec.body_text()  # a real runtime ID stays
    others = [r for r in report.records if r.id != model.target]
    assert others and all(r.part_of == REAL_PART for r in others)
    runtime = set(report.meta.extra["runtime_ids"])
    assert all(r.part_of is None or r.part_of in runtime for r in report.records)
    ledger = next(
        b
        for a in report.account
        for b in a.blocks
        if isinstance(b, Table) and a.title == "Authority-route ledger"
    )
    assert INVENTED_CELL not in " ".join(ledger.rows[1])
    assert ledger.rows[0][-1] == "decided by the model from the source"
    assert not ledger.rows[0][0].startswith("EPI-RTE-renamed")  # identity column refused
    notes = " ".join(report.meta.notes)
    assert INVENTED_CELL in notes and "refused" in notes
    assert result.problems == []  # nothing invented survives into a cell


def test_sections_are_written_and_their_witnesses_verified(full, readme) -> None:
    model, result, _ = full
    turns = model.requests_of("sections")
    assert len(turns) == 2 and turns[0]["tools"][-1]["name"] == "submit_sections"
    assert "README.md @" in _results(turns[1])[0]
    boundary = next(a for a in result.report.account if a.title == "Source-and-claim boundary")
    wits = [b.witness for b in boundary.blocks if isinstance(b, WitnessBlock)]
    assert [w.quote for w in wits] == [readme] and wits[0].verified  # the bad one dropped
    assert "RT-CLM-no-internet" in boundary.blocks[0].text
    assert any("inline witness dropped (not_found)" in n for n in result.report.meta.notes)
    conclusion = next(a for a in result.report.account if a.title == "Bounded conclusion")
    assert conclusion.blocks[0].text == "Scores are conditional on the checks."


def test_estimate_comes_before_the_first_paid_call_and_usage_is_metered(full) -> None:
    model, result, announced = full
    assert len(announced) == 1 and announced[0][0] == 0
    assert "estimate for" in announced[0][1] and "M tokens" in announced[0][1]
    usage = result.report.meta.usage
    assert sum(u.calls for u in usage) == len(model.log)
    assert sum(u.cache_read_input_tokens for u in usage) == sum(
        x["cache_read_input_tokens"] for x in model.usage
    )
    assert Path(result.thread_id).name.startswith("epi-")


def test_cost_cap_stops_with_a_partial_draft_listing_what_is_missing(
    sample, readme, tmp_path
) -> None:
    model = EpiModel(readme)
    result, _ = _run(sample, tmp_path, model, max_cost=0.0001)
    report = result.report
    assert len(model.log) == 1  # the first call spends the cap; nothing is sent after it
    missing = report.meta.extra["missing"]
    assert len(missing) == len(report.records)  # every record but the first, plus sections
    assert missing[-1].startswith("sections")
    assert any(p.startswith("missing (not drafted by the model)") for p in result.problems)
    flagged = [r for r in report.records if r.flags_of(FlagKind.not_drafted)]
    assert len(flagged) == len(report.records) - 1
    assert all(w.verified for w in report.witnesses)  # the partial draft still verifies


def test_killed_inside_a_tool_loop_resumes_without_paying_again(
    full, sample, readme, tmp_path
) -> None:
    first, done, _ = full
    n = first.convs.index(first.target) + 3  # the investigation's third turn
    killed = EpiModel(readme, kill_at=n)
    with pytest.raises(Killed):
        _run(sample, tmp_path, killed)
    thread = next((tmp_path / "runs").glob("epi-*.calls.sqlite")).name.split(".")[0]
    again = EpiModel(readme)
    result, _ = _run(sample, tmp_path, again, resume_thread=thread)
    assert len(killed.log) == n - 1
    assert len(killed.log) + len(again.log) == len(first.log)
    assert not any(b in killed.log for b in again.log)  # no answered request sent again
    assert result.thread_id == thread
    strip = lambda r: [x.model_dump(exclude={"meta"}) for x in r.records]  # noqa: E731
    assert strip(result.report) == strip(done.report)


def test_resume_of_an_unknown_epistemic_thread_is_bad_input(tmp_path, capsys) -> None:
    from drafter.cli import main

    args = ["draft", "--resume", "epi-nothere", "--data-dir", str(tmp_path), "--out", "x.json"]
    assert main(args) == 2
    assert "no run 'epi-nothere'" in capsys.readouterr().err


def test_cli_draft_and_resume_over_http(sample, readme, tmp_path, capsys, monkeypatch) -> None:
    """As users run it: the SDK finds the scripted model through $ANTHROPIC_BASE_URL."""
    from claude_server import ClaudeServer

    from drafter.cli import main

    s = sample
    model = EpiModel(readme)
    server = ClaudeServer(model)  # type: ignore[arg-type]  # duck-typed: .handler
    try:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("DRAFTER_RETRY_BASE_SECONDS", "0.001")
        out = tmp_path / "epi.json"
        data = ["--data-dir", str(tmp_path / "d")]
        args = ["draft", str(s.path), "--rev", s.sha, "--type", "epistemic"]
        code = main([*args, "--runtime", str(gold_path()), "--out", str(out), *data])
        printed = capsys.readouterr().out
        assert code == 0, printed
        assert "estimate for" in printed and "stops at --max-cost $15.00" in printed
        sent = len(model.log)
        assert sent > len(load_report(out).records)  # records plus tool turns plus sections
        thread = re.search(r"thread (epi-[0-9a-f]+)", printed).group(1)
        first = out.read_text()
        out.unlink()
        assert main(["draft", "--resume", thread, *data]) == 0
        assert len(model.log) == sent  # a finished run resumes without a call
        assert out.read_text() == first  # written to the stored --out, same draft
    finally:
        server.close()


def test_estimate_only_sends_nothing_and_needs_no_key(sample, tmp_path, capsys, monkeypatch):
    from drafter.cli import main

    s = sample
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")  # nothing listens
    args = ["draft", str(s.path), "--rev", s.sha, "--type", "epistemic", "--estimate"]
    code = main([*args, "--runtime", str(gold_path()), "--data-dir", str(tmp_path)])
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert re.search(r"estimate for \d+ epistemic records and the sections", printed)
    assert "stops at --max-cost $15.00" in printed
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").glob("epi-*"))


def test_section_witnesses_take_line_hints(sample, readme, tmp_path_factory) -> None:
    """An inline witness of the model's prose takes ``start_line``/``end_line`` as a
    record witness does: the hint picks one occurrence of a repeated line, a quote
    found once keeps its true lines whatever the hint (noted), and a repeated quote
    without a hint is still dropped."""
    path = "tinkerbot/improve.py"
    with Snapshot(str(sample.path), sample.sha) as snap:
        lines = snap.read_str(path).splitlines()
        readme_at = snap.read_str("README.md").splitlines().index(readme) + 1
    repeated = "config.PROMPT_PATH.write_text(candidate)"
    at = [n for n, line in enumerate(lines, 1) if repeated in line]
    assert len(at) >= 2  # the sample's own text: the quote really is repeated
    wrong = readme_at + 3
    extra = [
        {"type": "witness", "text": repeated, "path": path, "start_line": at[1]},
        {"type": "witness", "text": repeated, "path": path},  # ambiguous: dropped
        {"type": "witness", "text": readme, "path": "README.md", "start_line": wrong},
    ]
    model = EpiModel(readme, boundary_extra=extra)
    result, _ = _run(sample, tmp_path_factory.mktemp("data"), model)
    (turn, *_) = model.requests_of("sections")
    item = turn["tools"][-1]["input_schema"]["properties"]["boundary"]["items"]
    assert {"start_line", "end_line"} <= set(item["properties"])
    boundary = next(a for a in result.report.account if a.title == "Source-and-claim boundary")
    wits = [b.witness for b in boundary.blocks if isinstance(b, WitnessBlock)]
    assert [(w.quote, w.lines.start if w.lines else None) for w in wits] == [
        (readme, None),
        (repeated, at[1]),
        (readme, readme_at),
    ]
    assert all(w.verified for w in wits)
    notes = result.report.meta.notes
    want = f"inline witness lines corrected: README.md {wrong}-{wrong} → {readme_at}-{readme_at}"
    assert any(want in n for n in notes), notes
    assert sum("inline witness dropped" in n for n in notes) == 2, notes
