"""Hostile option values: refused at once, in one line, with exit 2.

Found reading every command again for issue 24: ``--max-cost nan`` was accepted (a NaN
cap never stops a run, and the estimate said "stops at --max-cost $nan"); ``search
-k 0`` was refused only after the revision had been indexed; ``dump-request --record
NOPE`` exited 1 with a bare message; a labels file with a 5,000-digit number printed
CPython's whole explanation.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from drafter.cli import main
from drafter.sample import SampleRepo, gold_path

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-1"])
def test_max_cost_must_be_a_finite_amount(sample: SampleRepo, tmp_path: Path, value, capsys):
    code = main(["draft", str(sample.path), "--rev", sample.sha, "--estimate",
                 f"--max-cost={value}"])  # fmt: skip
    assert code == 2
    assert "--max-cost" in capsys.readouterr().err


def test_redraft_max_cost_too(sample: SampleRepo, tmp_path: Path, capsys) -> None:
    code = main(["redraft", str(gold_path()), "--repo", str(sample.path), "--max-cost", "nan"])
    assert code == 2 and "--max-cost" in capsys.readouterr().err


def test_search_k_is_refused_before_indexing(sample: SampleRepo, tmp_path: Path, capsys) -> None:
    data = tmp_path / "data"
    code = main(["search", str(sample.path), "x", "--rev", sample.sha, "-k", "0",
                 "--data-dir", str(data)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and err.strip() == "drafter: error: -k must be at least 1, not 0"
    assert not data.exists()  # nothing was indexed for a search that cannot run


def test_dump_request_unknown_record(sample: SampleRepo, tmp_path: Path, capsys) -> None:
    code = main(["dump-request", str(sample.path), "--rev", sample.sha, "--no-index",
                 "--record", "RT-RTE-nope", "--out", str(tmp_path / "r.json")])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("drafter: error: no plan item 'RT-RTE-nope'")


def test_labels_with_a_5000_digit_number(sample: SampleRepo, tmp_path: Path, capsys) -> None:
    labels = tmp_path / "l.json"
    labels.write_text(json.dumps({"name": "x"})[:-1] + ', "n": ' + "9" * 5000 + "}")
    gold = str(gold_path())
    code = main(["eval", "--gold", gold, "--draft", gold, "--repo", str(sample.path),
                 "--labels", str(labels)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and len(err) < 200
    assert "more than 4300 digits" in err


@pytest.mark.parametrize("cmd", ["eval --out", "eval --html", "reverify", "redraft"])
def test_an_output_under_a_file_is_refused_before_the_work(
    sample: SampleRepo, tmp_path: Path, cmd: str, capsys
) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    target = str(afile / "out.json")
    gold = str(gold_path())
    args = {
        # a repository that does not exist: the work would fail on it first
        "eval --out": ["eval", "--gold", gold, "--draft", gold, "--repo", str(tmp_path / "no"),
                       "--rev", "HEAD", "--out", target],
        "eval --html": ["eval", "--gold", gold, "--draft", gold, "--repo", str(tmp_path / "no"),
                        "--rev", "HEAD", "--html", target],
        "reverify": ["reverify", gold, "--rev", "no-such-rev", "--repo", str(sample.path),
                     "--out", target],
        # nothing rejected: the run would end "nothing to redraft" with exit 0
        "redraft": ["redraft", gold, "--repo", str(sample.path), "--offline", "--out", target,
                    "--store", str(tmp_path / "s.sqlite")],
    }[cmd]  # fmt: skip
    code = main(args)
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and target in err, err


def test_reverify_with_an_unusable_store_writes_nothing(sample: SampleRepo, tmp_path: Path, capsys):
    # (a folder is a store locator now: one store per draft inside it)
    junk = tmp_path / "not-a-store.bin"
    junk.write_bytes(b"\x00\x01 neither SQLite nor a report\n" * 10)
    out = tmp_path / "carried.json"
    code = main(["reverify", str(gold_path()), "--rev", sample.sha, "--repo", str(sample.path),
                 "--store", str(junk), "--out", str(out)])  # fmt: skip
    assert code == 2 and "review store" in capsys.readouterr().err
    assert not out.exists()  # no carried draft whose decisions did not follow
