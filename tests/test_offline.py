"""The offline drafter, through the real graph: on the shipped sample it cites every
entry point, model call, subprocess call and persistence write the sample gold cites
(in the long form), and every witness verifies; drafts are deterministic, well formed,
sized for review by default and honest about limits."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from gitrepo import make_repo
from offline_graph import draft_files, draft_offline_graph

from drafter.model import (
    NINE_ROUTE_FIELDS,
    RECORD_ID_RE,
    FlagKind,
    LineRange,
    Report,
    VerifyStatus,
    Witness,
)
from drafter.reportio import load_report
from drafter.sample import SampleRepo, gold_path
from drafter.snapshot import Snapshot
from drafter.textformat.check import text_round_trip_problems
from drafter.verify import Verifier, verify_report
from graph.proposer import Miss, PlanContext, RecordContext
from graph.proposers.offline import OfflineProposer
from retrieval.survey import Survey, run_survey

#: How a gold witness is recognised as citing a fact of each must-show category.  Read
#: from the gold quote itself, so the test does not depend on what the survey finds.
GOLD_FACTS = {
    "entry point": re.compile(
        r'__name__ == "__main__"|ArgumentParser|\w+ = "[\w.]+:\w+"|python -m '
    ),
    "model call": re.compile(r"messages\.create\(|chat\.completions\.create\(|completion\("),
    "subprocess call": re.compile(r"subprocess\.(run|Popen|call|check_output)\("),
    "persistence write": re.compile(
        r'write_text\(|open\([^)]*"[wa]b?"\)|INSERT INTO|json\.dump\(|"commit"'
    ),
}


@pytest.fixture(scope="module")
def drafted(sample: SampleRepo, tmp_path_factory: pytest.TempPathFactory):
    """The sample's survey, long and short offline drafts and verified gold, made once."""
    repo = sample
    data = tmp_path_factory.mktemp("data")
    snap = Snapshot(repo.path, repo.sha)
    survey = run_survey(snap)
    draft = draft_offline_graph(repo.path, data, rev=repo.sha, system="tinkerbot", thorough=True)
    short = draft_offline_graph(repo.path, data, rev=repo.sha, system="tinkerbot")
    gold = verify_report(load_report(gold_path()), snap)
    yield snap, survey, draft, gold, short, (repo, data)
    snap.close()


def _lines(w: Witness) -> LineRange:
    assert w.verification is not None and w.verification.lines is not None
    return w.verification.lines


def test_every_draft_witness_verifies(drafted) -> None:
    _, _, draft, _, short, _ = drafted
    assert len(draft.witnesses) >= 25
    for report in (draft, short):
        bad = [(w.path, w.quote, w.verification.status) for w in report.witnesses if not w.verified]
        assert bad == []


def test_default_draft_is_sized_for_review(drafted) -> None:
    """At most 25 records and 3 witnesses each by default; the long form has more."""
    _, _, draft, _, short, _ = drafted
    assert 0 < len(short.records) <= 25
    assert all(len(r.witnesses) <= 3 for r in short.records)
    assert max(len(r.witnesses) for r in draft.records) > 3
    assert {r.kind for r in short.records} == {"CMP", "OBJ", "RTE", "CLM", "BAP"}


def test_draft_cites_every_fact_the_gold_cites(drafted) -> None:
    _, _, draft, gold, _, _ = drafted
    cited = [(w.path, _lines(w)) for w in draft.witnesses]
    for category, pattern in GOLD_FACTS.items():
        gold_facts = [w for w in gold.witnesses if w.verified and pattern.search(w.quote)]
        assert gold_facts, f"the sample gold cites no {category}: the check would be vacuous"
        missing = [
            f"{w.path}:{_lines(w)} {w.quote[:60]}"
            for w in gold_facts
            if not any(p == w.path and r.overlaps(_lines(w)) for p, r in cited)
        ]
        assert missing == [], f"{category} cited by the gold but not by the draft: {missing}"


def test_records_of_every_kind_with_readable_unique_ids(drafted) -> None:
    _, _, draft, _, _, _ = drafted
    ids = [r.id for r in draft.records]
    assert len(ids) == len(set(ids))
    assert all(RECORD_ID_RE.match(i) for i in ids)
    assert {r.kind for r in draft.records} == {"CMP", "OBJ", "RTE", "CLM", "BAP"}
    assert "RT-RTE-python-tinkerbot-cli-py" in ids
    assert any(i.startswith("RT-CMP-anthropic") for i in ids)


def test_routes_carry_nine_fields_progression_and_honest_statuses(drafted) -> None:
    _, _, draft, _, _, _ = drafted
    routes = draft.records_of_kind("RTE")
    assert routes
    for r in routes:
        assert all(r.route_fields_present.values()), (r.id, r.route_fields_present)
        assert r.status("implementation conclusion status") in ("wired", "uninspected")
        assert r.status("operation conclusion status") == "uninspected"
        assert "→" in r.lead["Endpoints/progression"]
    cli = draft.record("RT-RTE-python-tinkerbot-cli-py")
    prog = cli.lead["Endpoints/progression"]
    assert "tinkerbot/cli.py (__main__)" in prog and "main()" in prog
    assert cli.fields["Evidence limits"].startswith("static survey")
    assert len(NINE_ROUTE_FIELDS) == 9


def test_prompt_file_path_shows_the_self_rewriting_prompt(drafted) -> None:
    """prompts/system.md is read into the model's system prompt and rewritten by improve()."""
    _, survey, draft, _, _, _ = drafted
    kinds = {(f.kind, f.path, f.start_line) for f in survey.by_category("prompt")}
    assert ("prompt_load", "tinkerbot/config.py", 11) in kinds
    assert ("prompt_read", "tinkerbot/agent.py", 13) in kinds
    bap = draft.record("RT-BAP-prompt-file-system")
    assert bap is not None
    lead = bap.lead
    assert "run_task() in tinkerbot/agent.py:23" in lead["Consumer"]
    assert "load_system_prompt()" in lead["Channel"]
    assert "rewritten by improve()" in lead["Horizon"]
    assert {w.path for w in bap.witnesses} >= {
        "tinkerbot/config.py",
        "tinkerbot/agent.py",
        "tinkerbot/improve.py",
    }


def test_prose_names_functions_files_and_values(drafted) -> None:
    _, _, draft, _, _, _ = drafted
    comp = draft.records_of_kind("CMP")[0]
    text = comp.body_text()
    assert "tinkerbot/agent.py" in text and "run_task()" in text
    assert "claude-sonnet-4-5" in text  # the default resolved from config.MODEL
    claims = " ".join(r.body_text() for r in draft.records_of_kind("CLM"))
    assert "no internet access" in claims


def test_draft_is_deterministic_and_round_trips_as_text(drafted) -> None:
    snap, _, draft, _, short, (repo, data) = drafted
    again = draft_offline_graph(repo.path, data, rev=repo.sha, system="tinkerbot")
    assert [r.model_dump() for r in again.records] == [r.model_dump() for r in short.records]
    assert text_round_trip_problems(draft) == []
    assert text_round_trip_problems(short) == []


def test_resumed_fresh_proposer_drafts_from_the_checkpointed_plan(drafted) -> None:
    """A resumed run drafts with a fresh proposer from the plan item's typed fields
    (recipe, hints) and its findings alone: nothing is re-planned or read from labels."""
    snap, survey, _, _, short, _ = drafted
    plan = _plan(survey, snap.files())
    dumped = plan.model_dump(mode="json")
    assert all(i["recipe"] for i in dumped["items"])  # checkpointed with the plan
    fresh = OfflineProposer(survey_source=lambda: survey)
    by_id = {r.id: r for r in short.records}
    for item in plan.items:
        item = item.model_copy(update={"label": "relabelled", "rationale": ""})
        fs = [f.model_dump() for f in survey.findings if f.id in item.facts]
        rec = fresh.draft_record(RecordContext(item=item, plan=plan, findings=fs))
        assert rec is not None and rec.id == item.id
        if item.id in by_id:
            assert [w.quote for w in rec.witnesses] == [w.quote for w in by_id[item.id].witnesses]
    verifier = Verifier(snap)
    for r in short.records:
        for w in r.witnesses:
            assert verifier.verify(w).status == VerifyStatus.verified, (r.id, w.quote)


def test_plan_item_typed_fields_are_hidden_from_the_model_schema() -> None:
    from graph.proposer import Plan

    schema = str(Plan.model_json_schema())
    assert "recipe" not in schema and "hints" not in schema


def test_repair_drops_missed_witnesses_and_flags(drafted) -> None:
    snap, survey, _, _, short, _ = drafted
    rec = short.records_of_kind("RTE")[0]
    victim = rec.witnesses[0]
    plan = _plan(survey, snap.files())
    item = next(i for i in plan.items if i.id == rec.id)
    fixed = OfflineProposer().repair_record(
        RecordContext(item=item, plan=plan), rec, [Miss(witness=victim, status="not_found")]
    )
    assert victim.quote not in [w.quote for w in fixed.witnesses]
    assert len(fixed.witnesses) == len(rec.witnesses) - 1
    assert fixed.flags and "dropped 1" in fixed.flags[0].text
    assert fixed.flags[0].kind == FlagKind.repair_dropped


def _plan(survey: Survey, files: list[str]):
    return OfflineProposer().plan(
        PlanContext(
            system="t", repository="r", revision="0" * 40, files=files, survey=survey,
            max_records=25,
        )
    )  # fmt: skip


def test_repository_without_python_gives_valid_empty_draft(tmp_path: Path) -> None:
    files = {"data.csv": "a,b\n1,2\n", "notes.txt": "plain\n"}
    draft = draft_files(tmp_path, files, system="empty")
    assert draft.records == []
    assert [s.title for s in draft.sections][:3] == ["Components", "Operative objects", "Routes"]
    text = " ".join(b.text for b in draft.account[0].blocks if hasattr(b, "text"))
    assert "no entry point" in text and "Languages surveyed: none" in text
    assert Report.from_json(draft.to_json()) == draft
    assert text_round_trip_problems(draft) == []


def test_duplicate_lines_get_line_ranges_that_verify(tmp_path: Path) -> None:
    body = "import subprocess\n\n\ndef a():\n    subprocess.run(['x'])\n"
    body += "\n\ndef b():\n    subprocess.run(['y'])\n    subprocess.run(['x'])\n"
    body += '\n\nif __name__ == "__main__":\n    b()\n    a()\n'
    draft = draft_files(tmp_path, {"dup.py": body}, system="dup", thorough=True)
    runs = [w for w in draft.witnesses if w.quote == "subprocess.run(['x'])"]
    assert runs and all(w.lines is not None and w.verified for w in runs)


LOOP_REPO = {
    "bot/harness.py": (
        "import litellm\n"
        "import subprocess\n\n\n"
        "class Bot:\n"
        "    def solve(self, task):\n"
        '        messages = [{"role": "user", "content": task}]\n'
        "        for step in range(20):\n"
        '            reply = litellm.completion(model="gpt-4o", messages=messages)\n'
        "            cmd = reply.choices[0].message.content\n"
        "            out = subprocess.run(cmd, shell=True, capture_output=True, text=True)\n"
        '            messages.append({"role": "user", "content": out.stdout})\n'
        "        return messages\n"
    ),
}


def test_model_loop_driven_from_outside_gets_its_own_route(tmp_path: Path) -> None:
    """A harness class a framework imports has no entry point; its loop is still a route,
    witnessed by its deciding lines: the model call and the command it runs."""
    draft = draft_files(tmp_path, LOOP_REPO, system="bot")
    route = draft.record("RT-RTE-loop-bot-solve")
    assert route is not None, [r.id for r in draft.records]
    prog = route.lead["Endpoints/progression"]
    assert prog.startswith("external caller (framework or importer) → Bot.solve()")
    assert all(w.verified for w in draft.witnesses)
    quotes = [w.quote for w in route.witnesses]
    assert quotes[0].startswith("reply = litellm.completion(")
    assert any(q.startswith("out = subprocess.run(cmd, shell=True") for q in quotes)
    assert len(quotes) <= 3


def test_blockquote_warning_becomes_a_verified_claim(tmp_path: Path) -> None:
    files = {
        "README.md": "# x\n\n> [!WARNING]\n"
        "> This repository runs untrusted, model-generated code. Beware.\n",
        "run.py": 'import os\n\nif __name__ == "__main__":\n    os.system("echo hi")\n',
    }
    draft = draft_files(tmp_path, files)
    claims = draft.records_of_kind("CLM")
    assert [c.lead["Claimed operation"][:44] for c in claims] == [
        "This repository runs untrusted, model-generated code."[:44]
    ]
    assert all(w.verified for w in draft.witnesses)


def test_clipped_file_texts_do_not_hide_a_second_occurrence(tmp_path: Path) -> None:
    """The workflow hands the proposer file texts clipped for a model's context; a quote
    unique in the clipped part but repeated further down still needs its line range."""
    body = "import subprocess\n\n\ndef a():\n    subprocess.run(['x'])\n"
    body += "\n# padding\n" * 200
    body += "\n\ndef b():\n    subprocess.run(['x'])\n"
    body += '\n\nif __name__ == "__main__":\n    a()\n    b()\n'
    clipped = {"dup.py": body[: body.index("# padding")]}
    repo = make_repo(tmp_path / "r", {"dup.py": body})
    with Snapshot(repo, "HEAD") as snap:
        survey = run_survey(snap)
        proposer = OfflineProposer(snapshot=snap)
        plan = proposer.plan(
            PlanContext(
                system="dup", repository="dup", revision=snap.sha, files=snap.files(),
                survey=survey,
            )
        )  # fmt: skip
        records = [
            proposer.draft_record(RecordContext(item=item, plan=plan, file_texts=clipped))
            for item in plan.items
        ]
        verifier = Verifier(snap)
        runs = [
            w for r in records if r is not None for w in r.witnesses if "subprocess.run" in w.quote
        ]
        assert runs
        assert all(w.lines is not None for w in runs)
        assert all(verifier.verify(w).status == VerifyStatus.verified for w in runs)
