"""An offline draft depends only on the revision and the options: two drafts of one
revision, made with a real Chroma index at two fill levels, are the same draft (the
JSON byte for byte but for its creation time and thread ID; the report text byte for
byte), and the notes say that search used word matches only."""

from __future__ import annotations

import json
from pathlib import Path

from drafter.cli import main
from drafter.sample import SampleRepo
from drafter.snapshot import Snapshot
from retrieval.index import open_index


def _draft(sample: SampleRepo, data: Path, out: Path) -> tuple[dict, str]:
    args = ["draft", str(sample.path), "--rev", sample.sha, "--offline"]
    text = out.with_suffix(".txt")
    code = main([*args, "--out", str(out), "--text", str(text), "--data-dir", str(data)])
    assert code in (0, 1)
    raw = json.loads(out.read_text())
    raw["meta"].pop("created")
    raw["meta"]["extra"].pop("thread_id")
    return raw, text.read_text()


def _fill(sample: SampleRepo, data: Path, keep: float) -> tuple[int, int]:
    """A real index of the sample with only ``keep`` of its chunks' vectors stored."""
    idx = open_index(data_dir=data)
    try:
        with Snapshot(sample.path, sample.sha) as snap:
            idx.ensure(snap)
            col = idx.collection(snap)
            assert col is not None
            ids = sorted(col.get(include=[])["ids"])
            drop = ids[int(len(ids) * keep) :]
            if drop:  # a build stopped part way: these vectors are not stored yet
                col.delete(ids=drop)
                col.modify(metadata={**(col.metadata or {}), "status": "building"})
            return col.count(), len(ids)
    finally:
        idx.close()


def test_two_fill_levels_give_the_same_offline_draft(sample: SampleRepo, tmp_path: Path, capsys):
    low, high = tmp_path / "low", tmp_path / "high"
    at_low, at_high = _fill(sample, low, 0.1), _fill(sample, high, 0.6)
    assert at_low[0] < at_high[0] < at_high[1]  # two different partial fill levels
    a_json, a_text = _draft(sample, low, tmp_path / "a.json")
    b_json, b_text = _draft(sample, high, tmp_path / "b.json")
    capsys.readouterr()
    assert a_text == b_text
    assert json.dumps(a_json, sort_keys=True) == json.dumps(b_json, sort_keys=True)
    notes = a_json["meta"]["notes"]
    assert any(n.startswith("search: word matches only") for n in notes), notes
    assert not any(n.startswith("dense index:") for n in notes)


def test_a_complete_index_is_used_and_said(sample: SampleRepo, tmp_path: Path, capsys) -> None:
    data = tmp_path / "full"
    stored, total = _fill(sample, data, 1.0)
    assert stored == total
    got, _ = _draft(sample, data, tmp_path / "c.json")
    capsys.readouterr()
    assert f"dense index: complete ({total} chunks)" in got["meta"]["notes"]
