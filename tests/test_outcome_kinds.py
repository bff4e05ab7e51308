"""Outcomes are counted by kind and number, never by a message's wording.

Each test rewords every message a count or branch used to read (the verifier's drop
flags, the account's drop notes) and checks the outcome is the same.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from fakes import make_record, make_report
from offline_graph import draft_files

from drafter.errors import BadInput
from drafter.model import (
    KIND_SECTION,
    Anchor,
    DraftCounts,
    DraftMeta,
    Flag,
    FlagKind,
    Paragraph,
    Record,
    RecordSection,
    Report,
    ReportType,
    Source,
    Verification,
    VerifyStatus,
    Witness,
    WitnessBlock,
)
from drafter.review_export import record_annotation
from drafter.review_store import DecisionSource, ReviewStore
from drafter.sample import SampleRepo
from graph.nodes.assemble import build_report
from graph.nodes.common import record_to_state
from graph.nodes.verify import _drop_failing, verify
from graph.outcome import witness_counts
from graph.redraft import redraft_targets
from graph.runkind import WorkflowKind, kind_of, record_kind
from graph.state import DraftState
from retrieval.languages import by_name
from retrieval.survey.select import SkipReason
from retrieval.survey.select import skip_reason as _skip_reason
from tui.widgets.witness_list import anchor_tag


def _w(quote: str, ok: bool) -> WitnessBlock:
    status = VerifyStatus.verified if ok else VerifyStatus.not_found
    v = Verification(status=status, revision="0" * 40)
    return WitnessBlock(witness=Witness(quote=quote, path="a.py", verification=v))


SAMPLE_GOLD = Path(__file__).parent.parent / "drafter" / "sample" / "gold.runtime.txt"
V1_FLAGS = Path(__file__).parent / "data" / "draft_v1_flags.json"


def _reworded(r: Record) -> Record:
    flags = [Flag(kind=f.kind, text=f"reworded {i}") for i, f in enumerate(r.flags)]
    return r.model_copy(update={"flags": flags})


def _report(records: list[Record], notes: list[str], account_dropped: int) -> Report:
    return Report(
        system="s",
        type=ReportType.runtime,
        source=Source(repository="r", revision="0" * 40),
        sections=[RecordSection(title=KIND_SECTION["CMP"], records=records)],
        meta=DraftMeta(
            generator="offline",
            notes=notes,
            counts=DraftCounts(account_witnesses_dropped=account_dropped),
        ),
    )


def test_rewording_drop_flags_and_notes_leaves_the_counts_unchanged() -> None:
    rec = Record(
        id="RT-CMP-a",
        label="a",
        blocks=[Paragraph(text="x"), _w("kept", True), _w("gone", False), _w("also", False)],
    )
    dropped = _drop_failing(rec, 2)
    assert [f.kind for f in dropped.flags] == [FlagKind.witness_dropped] * 2
    note = "account witness dropped (not_found): 'q' --- a.py"
    before = witness_counts(_report([dropped], [note], 1))
    after = witness_counts(_report([_reworded(dropped)], ["something else entirely"], 1))
    assert before == after
    rows = {s: nums for s, *nums in after}
    assert rows["Components"] == [3, 1, 2]
    assert rows["Runtime account"] == [1, 0, 1]


def test_account_drops_are_counted_from_the_counter_not_the_notes() -> None:
    note = "account witness dropped (not_found): 'q' --- a.py"
    # a note in the old wording with no counter behind it is not a drop any more
    rows = {s: nums for s, *nums in witness_counts(_report([], [note], 0))}
    assert rows["Runtime account"] == [0, 0, 0]
    rows = {s: nums for s, *nums in witness_counts(_report([], [], 3))}
    assert rows["Runtime account"] == [3, 0, 3]


def _verify_once(rec: Record) -> Record:
    state = cast(DraftState, {"drafts": {"a": record_to_state(rec)}, "round": 5})
    ctx = SimpleNamespace(
        budget=SimpleNamespace(exhausted=False), config=SimpleNamespace(repair_rounds=2)
    )
    update: dict[str, Any] = verify(state, cast(Any, SimpleNamespace(context=ctx)))
    return Record.model_validate(update["drafts"]["a"])


def test_verify_reads_the_no_verified_witness_flag_by_kind() -> None:
    emptied = _drop_failing(
        Record(id="RT-CMP-a", label="a", blocks=[Paragraph(text="x"), _w("gone", False)]), 2
    )
    kinds = [f.kind for f in emptied.flags]
    assert kinds == [FlagKind.witness_dropped, FlagKind.no_verified_witness]
    # reworded, the record still counts as already flagged: no second flag is added
    again = _verify_once(_reworded(emptied))
    assert [f.kind for f in again.flags] == kinds
    # a record that never had a witness gets its own kind
    bare = _verify_once(Record(id="RT-CMP-b", label="b", blocks=[Paragraph(text="y")]))
    assert [(f.kind, f.text) for f in bare.flags] == [(FlagKind.no_witness, "no witness given")]


def test_the_draft_metadata_carries_the_account_counter() -> None:
    state = cast(
        DraftState,
        {
            "system": "s",
            "identity": "r",
            "sha": "0" * 40,
            "account": [],
            "account_dropped": 2,
            "notes": ["reworded: a note"],
        },
    )
    report = build_report(state, "offline", None)
    assert report.meta is not None
    assert report.meta.counts.account_witnesses_dropped == 2
    assert '"account_witnesses_dropped": 2' in report.to_json()
    # nothing counted: the key is left out, so such drafts read as before
    state["account_dropped"] = 0
    assert '"counts"' not in build_report(state, "offline", None).to_json()


# -- review decisions: who decided, not what the note says ---------------------------


def _one(tmp_path: Path) -> tuple[Record, Path]:
    return make_record("RT-CMP-a", "A", "Component: a."), tmp_path / "store.sqlite"


def test_a_batch_acceptance_is_known_by_its_source_not_its_note(tmp_path: Path) -> None:
    r, path = _one(tmp_path)
    with ReviewStore(path) as s:
        s.accept(r, note="accepted by a rule", source=DecisionSource.accept_verified)
        st = s.states([r])[r.id]
    assert st.source == DecisionSource.accept_verified
    assert record_annotation(r, st) is None  # reworded, still not an analyst's note
    with ReviewStore(path) as s:
        s.accept(r, note="accept-verified")  # an analyst who happens to write this
        st = s.states([r])[r.id]
    assert st.source == DecisionSource.analyst
    assert record_annotation(r, st) == "RT-CMP-a (accepted) — acceptance note: accept-verified."


def test_an_old_store_learns_the_source_of_its_batch_acceptances(tmp_path: Path) -> None:
    r, path = _one(tmp_path)
    b = make_record("RT-CMP-b", "B", "Component: b.")
    with ReviewStore(path) as s:
        s.accept(r, note="accept-verified", source=DecisionSource.accept_verified)
        s.accept(b, note="looks right")
    with sqlite3.connect(path) as db:  # as a store written before the column existed
        db.execute("ALTER TABLE decisions DROP COLUMN source")
    with ReviewStore(path) as s:
        states = s.states([r, b])
    assert states[r.id].source == DecisionSource.accept_verified
    assert states[b.id].source == DecisionSource.analyst


def test_a_redraft_is_sent_the_notes_about_this_version_whatever_they_say(
    tmp_path: Path,
) -> None:
    r, path = _one(tmp_path)
    changed = make_record("RT-CMP-a", "A", "Component: a, rewritten.")
    with ReviewStore(path) as s:
        s.annotate(r, "said about the old text")
        s.annotate(changed, "(earlier drafts missed the loop) look at run()")
        s.reject(changed, "wrong file")
    report = make_report([changed])
    with ReviewStore(path) as s:
        targets = redraft_targets(report, s)
        st = s.states([changed])[changed.id]
    assert [t.note for t in targets] == [
        "wrong file (earlier drafts missed the loop) look at run()"
    ]
    assert "(earlier version) said about the old text" in st.notes  # still shown


# -- survey: skipped files by kind ----------------------------------------------------


def test_skipped_files_are_decided_by_kind() -> None:
    huge = _skip_reason("pkg/big.py", by_name("python").max_bytes + 1, "file")
    assert huge is not None and huge.kind == SkipReason.huge and huge.listed
    assert huge.label == "huge file" and huge.text.startswith("huge file (")
    gen = _skip_reason("pkg/x_pb2.py", 10, "file")
    assert gen is not None and gen.kind == SkipReason.generated and gen.listed
    link = _skip_reason("docs/link.md", 10, "symlink")
    assert link is not None and link.kind == SkipReason.not_a_file and not link.listed
    assert link.label == "symlink"
    vend = _skip_reason("vendor/lib/a.py", 10, "file")
    assert vend is not None and vend.kind == SkipReason.vendored and not vend.listed
    assert _skip_reason("pkg/a.py", 10, "file") is None


# -- runs: the workflow is recorded, not read off the thread ID -----------------------


def test_a_runs_workflow_is_what_was_recorded_whatever_its_name(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    named_epi = runs / "epi-1234.sqlite"
    record_kind(named_epi, WorkflowKind.runtime)
    assert kind_of(named_epi, "epi-1234") == WorkflowKind.runtime
    named_draft = runs / "draft-1234.sqlite"
    record_kind(named_draft, WorkflowKind.epistemic)
    assert kind_of(named_draft, "draft-1234") == WorkflowKind.epistemic
    assert kind_of(runs / "nothere.sqlite", "nothere") is None


def test_a_run_that_recorded_no_workflow_is_refused_not_guessed(tmp_path: Path) -> None:
    db = tmp_path / "old-a.sqlite"
    with sqlite3.connect(db) as conn:  # a checkpoint of the epistemic shape, no record
        conn.execute("CREATE TABLE writes (thread_id TEXT, channel TEXT)")
        conn.execute("INSERT INTO writes VALUES (?, ?)", ("old-a", "runtime_path"))
    with pytest.raises(BadInput, match="recorded no workflow"):
        kind_of(db, "old-a")


def test_the_workflows_record_their_kind_when_they_start(
    sample: SampleRepo, tmp_path: Path
) -> None:
    from graph.epistemic.workflow import run_epistemic

    draft_files(tmp_path, {"a.py": "import os\nos.system('x')\n"})
    (runtime,) = (tmp_path / "data" / "runs").glob("*.workflow")
    assert runtime.read_text().strip() == WorkflowKind.runtime
    data = tmp_path / "epi"
    result = run_epistemic(str(sample.path), sample.sha, SAMPLE_GOLD, data_dir=data)
    checkpoint = data / "runs" / f"{result.thread_id}.sqlite"
    assert kind_of(checkpoint, result.thread_id) == WorkflowKind.epistemic
    assert checkpoint.with_suffix(".workflow").read_text().strip() == WorkflowKind.epistemic


# -- carried witnesses: the TUI tags them by anchor, not by message --------------------


def test_the_review_tags_a_carried_witness_by_its_anchor() -> None:
    def w(message: str, anchor: Anchor | None) -> Witness:
        v = Verification(status=VerifyStatus.verified, message=message, anchor=anchor)
        return Witness(quote="q", path="a.py", verification=v)

    assert anchor_tag(w("reworded entirely", Anchor.moved)) == ("moved", "yellow")
    assert anchor_tag(w("reworded entirely", Anchor.stale)) == ("stale", "bold red")
    assert anchor_tag(w("stale: this is only a message", None)) is None
    # written only when set: a witness never carried serialises as before
    assert "anchor" not in Verification(status=VerifyStatus.verified).model_dump_json()


def test_a_v1_carried_witness_gets_its_anchor_on_load() -> None:
    data = json.loads(V1_FLAGS.read_text())
    rec = data["sections"][0]["records"][0]
    wit = next(b for b in rec["blocks"] if b.get("type") == "witness")
    wit["witness"]["verification"]["message"] = "moved: was lines 3-4 at abc"
    report = Report.model_validate_json(json.dumps(data))
    first = report.records[0].witnesses[0]
    assert first.verification is not None and first.verification.anchor == Anchor.moved
    assert anchor_tag(first) == ("moved", "yellow")
