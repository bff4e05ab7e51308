"""The review store belongs to the draft's identity, not to its file stem."""

from __future__ import annotations

from pathlib import Path

from review_material import sample_draft

from drafter.cli import main
from drafter.reportio import load_report
from drafter.review_identity import IDENTITY_KEY, derive_meta, identity_store_path


def test_text_and_json_of_one_stem_get_different_stores(tmp_path: Path) -> None:
    draft, repo, _ = sample_draft(tmp_path)
    as_text = draft.with_suffix(".txt")
    assert main(["render", str(draft), "--out", str(as_text)]) == 0
    a = identity_store_path(draft, load_report(draft))
    b = identity_store_path(as_text, load_report(as_text))
    assert a != b
    # a copy of the same draft under another name opens the same store
    copy = tmp_path / "renamed.json"
    copy.write_text(draft.read_text())
    assert identity_store_path(copy, load_report(copy)) == a


def test_a_derived_draft_shares_its_parents_store(tmp_path: Path) -> None:
    draft, _, _ = sample_draft(tmp_path)
    parent = load_report(draft)
    child = parent.model_copy(deep=True)
    child.meta = derive_meta(parent)
    child.meta.created = "later"
    assert IDENTITY_KEY in child.meta.extra
    assert identity_store_path(tmp_path / "x.json", child) == identity_store_path(draft, parent)
