"""Every offline record carries both conclusion statuses, decided from its witnesses.

Why: the report format lets every record say whether its conclusion is wired in the
code, only claimed, or uninspected, and the newer gold gives both statuses on every
kind.  A draft record without them reads as "no conclusion" to a reviewer and as a
disagreement to the eval.
"""

from __future__ import annotations

import pytest
from offline_graph import draft_offline_graph

from drafter.model import STATUS_FIELDS, Bullet, Paragraph, Record, Report, Witness, WitnessBlock
from drafter.sample import SampleRepo
from drafter.textformat.parser import parse_report
from drafter.textformat.render import render_text
from graph.proposers.agent.prompts import load_prompt
from graph.proposers.agent.schema import RECORD_TOOL_DEF
from graph.proposers.offline.status import (
    code_path,
    code_witnesses,
    implementation_status,
    restatus,
    with_statuses,
)
from retrieval.survey import Finding
from retrieval.survey.model import Category

IMPL, OPER = STATUS_FIELDS
DOC_SUFFIXES = (".md", ".rst", ".txt")


@pytest.fixture(scope="module")
def drafts(sample: SampleRepo, tmp_path_factory: pytest.TempPathFactory) -> list[Report]:
    data = tmp_path_factory.mktemp("data")
    return [
        draft_offline_graph(sample.path, data, rev=sample.sha, system="tinkerbot"),
        draft_offline_graph(sample.path, data, rev=sample.sha, system="tinkerbot", thorough=True),
    ]


def test_every_offline_record_of_every_kind_carries_both_statuses(drafts) -> None:
    for draft in drafts:
        assert {r.kind for r in draft.records} == {"CMP", "OBJ", "RTE", "CLM", "BAP"}
        for r in draft.records:
            assert r.status(OPER) == "uninspected", r.id
            assert r.status(IMPL) in ("wired", "claimed", "uninspected"), (r.id, r.status(IMPL))
            assert [s.name.lower() for s in r.statuses] == list(STATUS_FIELDS), r.id
            assert r.warnings() == [], r.id


def test_claims_from_documentation_alone_are_claimed(drafts) -> None:
    draft = drafts[1]
    claims = draft.records_of_kind("CLM")
    doc_only = [r for r in claims if all(w.path.endswith(DOC_SUFFIXES) for w in r.witnesses)]
    assert doc_only, "the sample has claims supported by its documentation alone"
    for r in doc_only:
        assert r.status(IMPL) == "claimed", r.id
    # a claim is never "wired" offline: the draft says the comparison is not established
    assert all(r.status(IMPL) in ("claimed", "uninspected") for r in claims)


def test_wired_exactly_where_a_verified_witness_quotes_code(drafts) -> None:
    for draft in drafts:
        for r in draft.records:
            if r.kind in ("CLM", "RTE"):
                continue
            code = [w for w in r.witnesses if w.verified and code_path(w.path)]
            if r.status(IMPL) == "wired":
                assert code, r.id
            else:
                assert r.status(IMPL) == "uninspected", r.id
        wired = [r for r in draft.records if r.status(IMPL) == "wired" and r.kind != "RTE"]
        assert {r.kind for r in wired} >= {"CMP", "OBJ", "BAP"}


def test_statuses_survive_the_text_format_for_every_kind(drafts) -> None:
    draft = drafts[0]
    parsed = parse_report(render_text(draft))
    assert not [w for w in parsed.warnings if "status" in w]
    back = parsed.report
    assert [r.id for r in back.records] == [r.id for r in draft.records]
    for a, b in zip(draft.records, back.records, strict=True):
        assert (b.status(IMPL), b.status(OPER)) == (a.status(IMPL), a.status(OPER)), a.id


def _rec(rid: str, *witnesses: Witness) -> Record:
    return Record(
        id=rid,
        label="x",
        blocks=[Paragraph(text="lead"), *[WitnessBlock(witness=w) for w in witnesses]],
    )


def _finding(path: str, line: int, snippet: str, category: Category, kind: str) -> Finding:
    return Finding(
        id=f"{path}:{line}",
        category=category,
        kind=kind,
        path=path,
        start_line=line,
        end_line=line,
        symbol="f",
        node=f"{path}::f",
        snippet=snippet,
        detail={},
    )


def test_text_in_a_source_file_is_not_code() -> None:
    doc = _finding(
        "agent/tools.py", 3, "Never touches the network.", Category.CLAIM, "tool_description"
    )
    prompt = _finding(
        "agent/prompts.py",
        2,
        "You are a careful agent.",
        Category.PROMPT,
        "instruction_string",
    )
    claim = _rec("RT-CLM-net", Witness(quote="Never touches the network.", path="agent/tools.py"))
    assert code_witnesses(claim, [doc]) == []
    assert implementation_status("CLM", claim, [doc]) == "claimed"
    obj = _rec("RT-OBJ-p", Witness(quote="You are a careful agent.", path="agent/prompts.py"))
    assert implementation_status("OBJ", obj, [prompt]) == "uninspected"
    setting = _rec("RT-CMP-m", Witness(quote="model: big-model", path="conf/agent.yaml"))
    assert implementation_status("CMP", setting, []) == "uninspected"
    call = _rec("RT-CMP-m", Witness(quote="client.messages.create(", path="agent/run.py"))
    assert implementation_status("CMP", call, [prompt, doc]) == "wired"
    assert (
        implementation_status("CLM", _rec("RT-CLM-x", *claim.witnesses, *call.witnesses), [doc])
        == "uninspected"
    )


def test_statuses_are_added_once_before_the_witnesses_and_recipe_values_kept() -> None:
    call = Witness(quote="subprocess.run(cmd)", path="run.sh")
    rec = with_statuses(_rec("RT-BAP-x", call), "BAP", [])
    assert [type(b).__name__ for b in rec.blocks] == [
        "Paragraph",
        "Bullet",
        "Bullet",
        "WitnessBlock",
    ]
    assert (rec.status(IMPL), rec.status(OPER)) == ("wired", "uninspected")
    assert with_statuses(rec, "BAP", []) == rec
    given = Record(
        id="RT-RTE-x",
        label="x",
        blocks=[Bullet(name=IMPL, value="afforded"), WitnessBlock(witness=call)],
    )
    kept = with_statuses(given, "RTE", [])
    assert kept.status(IMPL) == "afforded" and kept.status(OPER) == "uninspected"
    assert [s.name for s in kept.statuses] == list(STATUS_FIELDS)


def test_repair_withdraws_a_wired_no_code_witness_supports() -> None:
    doc = Witness(quote="It always saves the run.", path="README.md")
    code = Witness(quote="json.dump(run, f)", path="agent/run.py")
    wired = with_statuses(_rec("RT-OBJ-run", doc, code), "OBJ", [])
    assert wired.status(IMPL) == "wired"
    left = wired.model_copy(update={"blocks": [b for b in wired.blocks if not (
        isinstance(b, WitnessBlock) and b.witness == code)]})  # fmt: skip
    assert restatus(left, "OBJ", []).status(IMPL) == "uninspected"
    claim = with_statuses(_rec("RT-CLM-run", doc, code), "CLM", [])
    assert claim.status(IMPL) == "uninspected"
    bare = claim.model_copy(update={"blocks": [b for b in claim.blocks if not (
        isinstance(b, WitnessBlock) and b.witness == code)]})  # fmt: skip
    assert restatus(bare, "CLM", []).status(IMPL) == "claimed"


def test_the_claude_record_request_asks_for_both_statuses_on_every_kind() -> None:
    fields = RECORD_TOOL_DEF["input_schema"]["properties"]["fields"]["description"]
    assert "Every record, of every kind" in fields
    assert all(name in fields for name in STATUS_FIELDS)
    system = load_prompt("system")
    assert "Every record, of every kind, carries the two conclusion statuses" in system
    for value in ("wired", "afforded", "claimed", "uninspected"):
        assert f"`{value}`" in system


def test_the_review_app_shows_both_statuses_on_every_kind(drafts) -> None:
    from tui.widgets.record_detail import fields_text

    for r in drafts[0].records:
        shown = fields_text(r).plain
        assert f"{IMPL}: {r.status(IMPL)}" in shown, r.id
        assert f"{OPER}: uninspected" in shown, r.id


def test_offline_repair_withdraws_wired_when_its_code_witnesses_miss(
    sample: SampleRepo, drafts
) -> None:
    from drafter.snapshot import Snapshot
    from graph.proposer import Miss, PlanContext, RecordContext
    from graph.proposers.offline import OfflineProposer
    from retrieval.survey import run_survey

    rec = next(r for r in drafts[0].records if r.kind == "BAP" and r.status(IMPL) == "wired")
    with Snapshot(sample.path, sample.sha) as snap:
        survey, files = run_survey(snap), snap.files()
    proposer = OfflineProposer()
    plan = proposer.plan(
        PlanContext(
            system="t", repository="r", revision="0" * 40, files=files, survey=survey,
            max_records=25,
        )
    )  # fmt: skip
    item = next(i for i in plan.items if i.id == rec.id)
    code = [w for w in rec.witnesses if code_path(w.path)]
    some = proposer.repair_record(
        RecordContext(item=item, plan=plan), rec, [Miss(witness=code[0], status="not_found")]
    )
    assert some.status(IMPL) == ("wired" if len(code) > 1 else "uninspected")
    none = proposer.repair_record(
        RecordContext(item=item, plan=plan),
        rec,
        [Miss(witness=w, status="not_found") for w in code],
    )
    assert none.status(IMPL) == "uninspected" and none.status(OPER) == "uninspected"
