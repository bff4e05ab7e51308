"""A witness's line range is an optional hint: it chooses between occurrences, it never
makes a true quote false, and it never makes a false quote true.

Real runs lost a repair round to an off-by-one hint on a quote that occurs once in its
file.  Here: such a quote verifies at its true lines with "lines corrected" (in the
verifier, in ``check_quotes`` and in a drafted record, whose witness then carries the
true lines); a quote found twice still needs a hint that picks one; a quote that is not
in the file fails whatever the hint.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes import FakeAPI, tool
from gitrepo import git, make_repo

from drafter.model import LineRange, VerifyStatus, WitnessBlock
from drafter.snapshot import Snapshot
from drafter.verify import Verifier

TEXT = (
    "def once():\n"  # 1
    "    return 'only here'\n"  # 2
    "\n"  # 3
    "def twice():\n"  # 4
    "    value = 'repeated line'\n"  # 5
    "    value = 'repeated line'\n"  # 6
    "    return value\n"  # 7
)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    path = make_repo(tmp_path_factory.mktemp("hints") / "repo", {"m.py": TEXT})
    return path, git(path, "rev-parse", "HEAD")


@pytest.fixture(scope="module")
def verifier(repo) -> Verifier:
    return Verifier(Snapshot(repo[0], repo[1]))


def test_a_quote_found_once_verifies_at_its_true_lines_whatever_the_hint(verifier) -> None:
    v = verifier.check("return 'only here'", "m.py", LineRange(start=5, end=6))
    assert v.status == VerifyStatus.verified
    assert v.lines == LineRange(start=2, end=2)
    assert "lines corrected" in v.message and "2-2" in v.message
    right = verifier.check("return 'only here'", "m.py", LineRange(start=2, end=2))
    assert right.ok and "lines corrected" not in right.message


def test_the_hint_still_chooses_between_several_occurrences(verifier) -> None:
    q = "value = 'repeated line'"
    assert verifier.check(q, "m.py").status == VerifyStatus.ambiguous
    picked = verifier.check(q, "m.py", LineRange(start=6, end=6))
    assert picked.ok and picked.lines == LineRange(start=6, end=6)
    none = verifier.check(q, "m.py", LineRange(start=1, end=2))
    assert none.status == VerifyStatus.not_found
    assert "5-5" in none.message and "6-6" in none.message


def test_nothing_that_is_not_in_the_file_verifies(verifier) -> None:
    for lines in (None, LineRange(start=2, end=2), LineRange(start=1, end=7)):
        v = verifier.check("return 'only there'", "m.py", lines)
        assert v.status == VerifyStatus.not_found, lines


def test_a_drafted_record_keeps_the_true_lines_and_says_so(repo, tmp_path_factory) -> None:
    path, sha = repo
    fake = FakeAPI()
    plan = {
        "system": "hints",
        "items": [{"id": "RT-CMP-once", "kind": "CMP", "label": "Once", "files": ["m.py"]}],
    }
    record = {
        "label": "Once",
        "lead": "Source-native identity: once.",
        "witnesses": [
            # an off-by-three hint on a quote that occurs once
            {"quote": "return 'only here'", "path": "m.py", "start_line": 5, "end_line": 5}
        ],
    }
    fake.script("plan", tool(plan))
    fake.script("record:RT-CMP-once", tool(record))
    fake.script("account", tool({"sections": []}))
    result = fake.draft(path, sha, tmp_path_factory.mktemp("data"), use_index=False)
    rec = result.report.record("RT-CMP-once")
    assert rec is not None and fake.calls("repair:RT-CMP-once") == []  # no repair round
    (w,) = rec.witnesses
    assert w.verified and w.lines == LineRange(start=2, end=2)
    assert any(f.text.startswith("lines corrected: m.py 5-5 → 2-2") for f in rec.flags), rec.flags


def test_check_quotes_tells_the_model_the_lines_were_corrected(repo) -> None:
    from graph.proposers.agent.tools import SnapshotTools
    from graph.resources import Resources

    path, sha = repo
    res = Resources(repo=str(path), rev=sha, use_index=False)
    try:
        out, err = SnapshotTools(res).run(
            "check_quotes",
            {"witnesses": [{"quote": "return 'only here'", "path": "m.py", "start_line": 4}]},
        )
    finally:
        res.close()
    assert not err
    assert out.startswith("1 of 1 verified\n1. verified (exact) at lines 2-2 in m.py")
    assert "lines corrected" in out


def test_account_witnesses_take_the_same_line_hints(repo, tmp_path_factory) -> None:
    """The account's witnesses (``submit_account``) take ``start_line``/``end_line``
    like a record's: the hint picks one occurrence of a repeated quote; a quote found
    once verifies at its true lines whatever the hint (noted); without a hint a
    repeated quote is still ambiguous, and a quote not in the file never verifies."""
    path, sha = repo
    fake = FakeAPI()
    plan = {
        "system": "hints",
        "items": [{"id": "RT-CMP-once", "kind": "CMP", "label": "Once", "files": ["m.py"]}],
    }
    record = {
        "label": "Once",
        "lead": "Source-native identity: once.",
        "witnesses": [{"quote": "return 'only here'", "path": "m.py"}],
    }
    repeated = "value = 'repeated line'"

    def wit(quote: str, **lines: int) -> dict[str, object]:
        return {"type": "witness", "text": quote, "path": "m.py", **lines}

    account = {
        "sections": [
            {
                "title": "Scope and ordinary invocation",
                "items": [
                    {"type": "paragraph", "text": "RT-CMP-once sets the value twice."},
                    wit(repeated, start_line=6, end_line=6),  # the second occurrence
                    wit("return 'only here'", start_line=5),  # found once, hint wrong
                    wit(repeated),  # no hint: ambiguous, dropped
                    wit("return 'only there'", start_line=2),  # absent: dropped
                ],
            }
        ]
    }
    fake.script("plan", tool(plan))
    fake.script("record:RT-CMP-once", tool(record))
    fake.script("account", tool(account))
    result = fake.draft(path, sha, tmp_path_factory.mktemp("data"), use_index=False)
    (account_req,) = fake.calls("account")
    item = account_req["tools"][-1]["input_schema"]["properties"]["sections"]["items"]
    assert {"start_line", "end_line"} <= set(item["properties"]["items"]["items"]["properties"])
    (section,) = result.report.account
    kept = [b.witness for b in section.blocks if isinstance(b, WitnessBlock)]
    assert [(w.quote, w.lines) for w in kept] == [
        (repeated, LineRange(start=6, end=6)),
        ("return 'only here'", LineRange(start=2, end=2)),
    ]
    assert all(w.verified for w in kept)
    notes = result.report.meta.notes
    assert any("account witness lines corrected: m.py 5-5 → 2-2" in n for n in notes), notes
    dropped = [n for n in notes if n.startswith("account witness dropped")]
    assert len(dropped) == 2 and "ambiguous" in dropped[0] and "not_found" in dropped[1]
    # the hint is written into the report and read back by the v1 text format
    from drafter.textformat import parse_report, render_text

    again = parse_report(render_text(result.report)).report
    back = [b.witness for b in again.account[0].blocks if isinstance(b, WitnessBlock)]
    assert [w.lines for w in back] == [w.lines for w in kept]
