"""``drafter review`` without a terminal: batch decisions and export, through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from review_material import sample_draft

from drafter.cli import main
from drafter.model import Report
from drafter.review_identity import identity_store_path
from drafter.review_store import Mark, ReviewStore, record_hash


@pytest.fixture
def material(tmp_path: Path) -> tuple[Path, Path, str]:
    return sample_draft(tmp_path)


def _states(draft: Path, store: Path | None = None) -> dict[str, Mark]:
    report = Report.from_json(draft.read_text())
    with ReviewStore(store or identity_store_path(draft, report)) as s:
        return {k: v.mark for k, v in s.states(report.records).items()}


def test_accept_verified_then_export(material: tuple[Path, Path, str], capsys) -> None:  # type: ignore[no-untyped-def]
    draft, repo, broken = material
    report = Report.from_json(draft.read_text())
    assert main(["review", str(draft), "--repo", str(repo), "--accept-verified"]) == 0
    st = _states(draft)
    with_witnesses = [r.id for r in report.records if r.witnesses and r.id != broken]
    assert all(st[r] == Mark.accepted for r in with_witnesses)
    assert st[broken] == Mark.pending  # one quote does not verify
    assert all(st[r.id] == Mark.pending for r in report.records if not r.witnesses)
    # running it again changes nothing
    assert main(["review", str(draft), "--repo", str(repo), "--accept-verified"]) == 0
    with ReviewStore(identity_store_path(draft, report)) as s:
        assert len(s.rows()) == len(with_witnesses)

    out = draft.parent / "accepted.json"
    assert main(["review", str(draft), "--repo", str(repo), "--export", str(out)]) == 0
    got = Report.from_json(out.read_text())
    assert [r.id for r in got.records] == with_witnesses
    assert "accepted" in capsys.readouterr().out


def test_decisions_file_applies_through_the_store(
    material: tuple[Path, Path, str], tmp_path: Path
) -> None:
    draft, repo, broken = material
    report = Report.from_json(draft.read_text())
    a, b, c = (r.id for r in report.records[:3])
    store = tmp_path / "elsewhere.sqlite"
    lines = [
        {"record": a, "action": "accept"},
        {"record": b, "action": "reject", "reason": "duplicate"},
        {"record": c, "action": "annotate", "text": "look again"},
        {"record": c, "action": "edit", "field": "Label", "value": "Renamed"},
        {"record": broken, "action": "reject_witness", "witness": 1, "reason": "not there"},
        {"record": broken, "action": "accept", "hash": record_hash(report.record(broken))},  # type: ignore[arg-type]
    ]
    dec = tmp_path / "d.jsonl"
    dec.write_text("\n".join(json.dumps(x) for x in lines) + "\n\n")
    args = ["review", str(draft), "--repo", str(repo), "--store", str(store)]
    assert main([*args, "--decisions", str(dec)]) == 0
    st = _states(draft, store)
    assert (st[a], st[b], st[c], st[broken]) == (
        Mark.accepted,
        Mark.rejected,
        Mark.pending,
        Mark.accepted,
    )
    out = tmp_path / "acc.md"
    assert main([*args, "--export", str(out)]) == 0
    md = out.read_text()
    assert f"#### {a}" in md and f"#### {broken}" in md and f"#### {b}" not in md


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "2: not JSON"),
        ('{"record": "RT-CMP-nope", "action": "accept"}', "no record 'RT-CMP-nope'"),
        ('{"record": "%s", "action": "bless"}', "unknown action 'bless'"),
        ('{"record": "%s", "action": "reject", "reason": 3}', '"reason" must be a non-empty'),
        ('{"record": "%s", "action": "accept_witness", "witness": 99}', '"witness" must be'),
        ('{"record": "%s", "action": "accept", "hash": "0000"}', "changed since"),
        ('{"record": "%s", "action": "edit", "field": "Label", "value": " "}', "Label"),
    ],
)
def test_bad_decisions_file_is_refused_whole(
    material: tuple[Path, Path, str],
    tmp_path: Path,
    capsys,
    line: str,
    message: str,  # type: ignore[no-untyped-def]
) -> None:
    draft, repo, _ = material
    first = Report.from_json(draft.read_text()).records[0].id
    dec = tmp_path / "d.jsonl"
    good = json.dumps({"record": first, "action": "accept"})
    dec.write_text(good + "\n" + (line % first if "%s" in line else line) + "\n")
    assert main(["review", str(draft), "--repo", str(repo), "--decisions", str(dec)]) == 2
    err = capsys.readouterr().err
    assert message in err and "d.jsonl:2" in err
    assert err.count("\n") == 1
    assert _states(draft)[first] == Mark.pending  # nothing applied


def test_bad_input_exits_2(material: tuple[Path, Path, str], tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    draft, repo, _ = material
    assert main(["review", str(draft), "--repo", str(repo)]) == 2  # no terminal under pytest
    assert "no terminal" in capsys.readouterr().err
    assert (
        main(["review", str(draft), "--repo", str(repo), "--rev", "nope", "--accept-verified"]) == 2
    )
    assert "nope" in capsys.readouterr().err
    assert main(["review", str(tmp_path / "x.json"), "--repo", str(repo), "--accept-verified"]) == 2
    junk = tmp_path / "junk.json"
    junk.write_text("{]")
    assert main(["review", str(junk), "--repo", str(repo), "--accept-verified"]) == 2
