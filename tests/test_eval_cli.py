"""``drafter eval`` through the real entry point: JSON, HTML, bad input, suites."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eval_material import W_MODEL, W_README, gold_records
from fakes import make_record, make_report

from drafter.cli import main
from drafter.reportio import dump_report


def _write(tmp_path: Path, tiny_repo) -> tuple[Path, Path, str, str]:
    repo, rev1, _ = tiny_repo
    gold = tmp_path / "gold.txt"
    gold.write_text(dump_report(make_report(gold_records(), account=[W_README]), "text"))
    hostile = make_record(
        "RT-CMP-hostile",
        "<script>alert('x')</script> & co",
        "Source-native identity: <img src=x onerror=alert(1)>.",
        [W_MODEL, ("<b>not in the file</b>", "agent.py")],
    )
    draft = tmp_path / "draft.json"
    draft.write_text(make_report([*gold_records()[1:], hostile]).to_json())
    return gold, draft, str(repo), rev1


def test_eval_json_and_html(tmp_path: Path, tiny_repo, capsys: pytest.CaptureFixture[str]) -> None:
    gold, draft, repo, rev = _write(tmp_path, tiny_repo)
    html = tmp_path / "out" / "eval.html"
    # the mixed score pairs the hostile component with the model by its one shared witness
    # (the fitted default rule, seeing no text and no names in common, leaves it
    # unmatched), so its markup is rendered inside the pairs table, escaped
    code = main(
        ["eval", "--gold", str(gold), "--draft", str(draft), "--repo", repo, "--rev", rev]
        + ["--json", "--html", str(html), "--alignment", "coverage-mixed"]
    )
    out = capsys.readouterr().out
    assert code == 0
    data = json.loads(out)
    assert data["revision"] == rev
    o = data["overall"]
    # gold 4 records; draft: results, shell, read, hostile (a component quoting the model)
    assert (o["gold_records"], o["draft_records"], o["matched"]) == (4, 4, 4)
    # draft witnesses: save, shell, read, model (valid) + one invalid quote
    assert (o["draft_witnesses"], o["draft_verified"]) == (5, 4)
    assert o["validity"] == pytest.approx(4 / 5)
    # gold: 5 located (4 records + README in the account); the draft has no README quote
    assert o["gold_located"] == 5 and o["gold_line_hits"] == 4
    assert o["line_recall"] == pytest.approx(4 / 5)
    assert {p["gold"] for p in data["pairs"]} == {r.id for r in gold_records()}
    page = html.read_text()
    assert page.startswith("<!DOCTYPE html>")
    assert "<script>" not in page and "<img" not in page and "<b>not" not in page
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; co" in page
    assert 'class="w line"' in page and 'class="w unlocated"' in page
    assert "RT-RTE-shell" in page and "Unmatched" not in page


def test_eval_table_output(tmp_path: Path, tiny_repo, capsys: pytest.CaptureFixture[str]) -> None:
    gold, draft, repo, rev = _write(tmp_path, tiny_repo)
    code = main(["eval", "--gold", str(gold), "--draft", str(draft), "--repo", repo, "--rev", rev])
    out = capsys.readouterr().out
    assert code == 0
    assert "overall" in out and "RT-RTE" in out and "aligned records" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["--draft", "D", "--repo", "R", "--rev", "HEAD"], "missing --gold"),
        (["--gold", "nope.txt", "--draft", "D", "--repo", "REPO", "--rev", "HEAD"], "nope.txt"),
        (["--gold", "G", "--draft", "D", "--repo", "REPO", "--rev", "no-such-rev"], "no-such-rev"),
    ],
)
def test_eval_bad_input_exits_2(
    tmp_path: Path, tiny_repo, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    gold, draft, repo, _ = _write(tmp_path, tiny_repo)
    args = [{"G": str(gold), "D": str(draft), "REPO": repo}.get(a, a) for a in args]
    if "nope.txt" in args:
        args[args.index("nope.txt")] = str(tmp_path / "nope.txt")
    code = main(["eval", *args])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1


def test_eval_bad_draft_file_exits_2(
    tmp_path: Path, tiny_repo, capsys: pytest.CaptureFixture[str]
) -> None:
    gold, _, repo, rev = _write(tmp_path, tiny_repo)
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version": 1, "system": "x"')
    code = main(["eval", "--gold", str(gold), "--draft", str(bad), "--repo", repo, "--rev", rev])
    assert code == 2
    assert "bad.json" in capsys.readouterr().err


def _suite(tmp_path: Path, tiny_repo, extra: str = "") -> Path:
    gold, draft, repo, rev = _write(tmp_path, tiny_repo)
    perfect = tmp_path / "perfect.json"
    perfect.write_text(make_report(gold_records(), account=[W_README]).to_json())
    suite = tmp_path / "suite.toml"
    suite.write_text(
        f"""
name = "tiny"
similarity = "lexical"

[[items]]
name = "partial"
repo = "{repo}"
rev = "{rev}"
gold = "gold.txt"
draft = "draft.json"

[[items]]
name = "perfect"
repo = "{repo}"
rev = "{rev}"
gold = "{gold}"
draft = "perfect.json"
{extra}"""
    )
    return suite


def test_suite_saves_runs_and_compares(
    tmp_path: Path, tiny_repo, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = _suite(tmp_path, tiny_repo)
    results = tmp_path / "runs"
    assert main(["eval", "--suite", str(suite), "--results", str(results)]) == 0
    first = capsys.readouterr().out
    assert "no earlier run" in first and "partial" in first and "perfect" in first
    (saved,) = results.glob("tiny-*.json")
    data = json.loads(saved.read_text())
    assert data["suite"] == "tiny" and data["drafter_version"] and data["created"]
    items = {i["name"]: i for i in data["items"]}
    assert items["perfect"]["overall"]["f1"] == 1.0
    assert items["partial"]["overall"]["validity"] == pytest.approx(4 / 5)
    # every item carries its baselines beside its figures
    assert set(items["partial"]["baselines"]) == {
        "constant status",
        "entry points",
        "random witnesses",
    }
    assert items["partial"]["baselines"]["constant status"]["recall"] is None
    # second run: compared with the first
    assert main(["eval", "--suite", str(suite), "--results", str(results), "--json"]) == 0
    second = json.loads(capsys.readouterr().out)
    assert second["suite"] == "tiny"
    assert len(list(results.glob("tiny-*.json"))) == 2
    assert main(["eval", "--suite", str(suite), "--results", str(results)]) == 0
    assert "change since" in capsys.readouterr().out


def test_suite_compares_with_previous_values(tmp_path: Path) -> None:
    from evals.suite import ItemResult, Suite, comparison_table

    prev = {"created": "t0", "items": [{"name": "a", "overall": {"f1": 0.5, "validity": 1.0}}]}
    now = [ItemResult("a", overall={"f1": 0.75, "validity": 0.9}), ItemResult("b", overall={})]
    table = comparison_table(now, prev)
    cells = [list(c.cells) for c in table.columns]
    assert cells[0] == ["a", "b"]
    assert cells[1][0] == "[green]+0.25[/green]"  # rec F1
    assert cells[7][0] == "[red]-0.10[/red]"  # validity
    assert cells[1][1] == "new"
    assert isinstance(Suite, type)


def test_suite_item_error_is_reported_and_exits_1(
    tmp_path: Path, tiny_repo, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = _suite(
        tmp_path,
        tiny_repo,
        extra='\n[[items]]\nname = "broken"\nrepo = "missing-repo"\nrev = "HEAD"\n'
        'gold = "gold.txt"\ndraft = "draft.json"\n',
    )
    code = main(["eval", "--suite", str(suite), "--results", str(tmp_path / "r")])
    out = capsys.readouterr().out
    assert code == 1
    assert "error" in out and "perfect" in out


@pytest.mark.parametrize(
    "text, message",
    [
        ("name = [", "not valid TOML"),
        ('name = "x"\n', "at least one [[items]]"),
        ('[[items]]\nname = "a"\nrepo = "r"\nrev = "HEAD"\ngold = "g"\n', "exactly one of"),
        ('[[items]]\nname = "a"\nrepo = "r"\ngold = "g"\nproposer = "offline"\n', "missing 'rev'"),
        ('[[items]]\nname = "a"\ngold = "g"\nproposer = "offline"\n', "missing 'repo'"),
        ('threshold = 3\n[[items]]\nname = "a"\n', "threshold"),
        (
            '[[items]]\nname = "a"\nrepo = "r"\nrev = "H"\ngold = "g"\ndraft = "d"\nx = 1\n',
            "unknown",
        ),
    ],
)
def test_bad_suite_file_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    suite = tmp_path / "s.toml"
    suite.write_text(text)
    assert main(["eval", "--suite", str(suite)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def _sourced_draft(tmp_path: Path, repository: str, revision: str) -> Path:
    from drafter.model import Source

    rep = make_report(gold_records()[1:])
    rep.source = Source(repository=repository, revision=revision)
    out = tmp_path / "sourced.json"
    out.write_text(rep.to_json())
    return out


def test_eval_takes_repo_and_rev_from_the_draft(
    tmp_path: Path, tiny_repo, capsys: pytest.CaptureFixture[str]
) -> None:
    gold, _, repo, rev1 = _write(tmp_path, tiny_repo)
    draft = _sourced_draft(tmp_path, repo, rev1)
    code = main(["eval", "--gold", str(gold), "--draft", str(draft), "--json"])
    assert code == 0, capsys.readouterr().err
    data = json.loads(capsys.readouterr().out)
    assert data["revision"] == rev1 and data["overall"]["gold_matched"] == 3
    # --rev still wins over the draft's revision
    _, _, rev2 = tiny_repo
    assert main(["eval", "--gold", str(gold), "--draft", str(draft), "--rev", rev2, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["revision"] == rev2


def test_eval_refuses_a_recorded_repository_that_is_not_here(
    tmp_path: Path, tiny_repo, capsys: pytest.CaptureFixture[str]
) -> None:
    gold, _, _, rev1 = _write(tmp_path, tiny_repo)
    draft = _sourced_draft(tmp_path, "github:someone/elsewhere", rev1)
    assert main(["eval", "--gold", str(gold), "--draft", str(draft)]) == 2
    err = capsys.readouterr().err
    assert "no --repo given" in err and "github:someone/elsewhere" in err


def test_suite_item_may_omit_repo_and_rev(
    tmp_path: Path, tiny_repo, capsys: pytest.CaptureFixture[str]
) -> None:
    gold, _, repo, rev1 = _write(tmp_path, tiny_repo)
    _sourced_draft(tmp_path, repo, rev1)
    suite = tmp_path / "s.toml"
    suite.write_text(
        'similarity = "lexical"\n\n[[items]]\nname = "a"\ngold = "gold.txt"\n'
        'draft = "sourced.json"\n'
    )
    code = main(["eval", "--suite", str(suite), "--results", str(tmp_path / "r"), "--json"])
    run = json.loads(capsys.readouterr().out)
    assert code == 0, run["items"][0]["error"]
    assert run["items"][0]["overall"]["gold_matched"] == 3


def test_eval_reports_alignment_against_hand_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from drafter.sample import materialize

    data = Path(__file__).parent / "data" / "eval_labels"
    repo = materialize(tmp_path / "sample").path
    args = ["eval", "--gold", str(Path(__file__).parents[1] / "drafter/sample/gold.runtime.txt")]
    args += ["--draft", str(data / "sample-offline.draft.json"), "--repo", str(repo)]
    args += ["--no-baselines", "--alignment", "best-gold"]
    code = main([*args, "--labels", str(data / "sample-offline.labels.json"), "--json"])
    out = capsys.readouterr().out
    assert code == 0
    check = json.loads(out)["label_check"]
    # 0.88 / 1.00 against the adjudicated labels (0.96 / 0.96 against the first labelling)
    assert check["precision"] >= 0.85 and check["recall"] >= 0.85
    # labels of another draft are refused, not silently scored
    code = main([*args, "--labels", str(data / "dgm-d88fdd6-offline.labels.json")])
    # (dgm's adjudicated labels are per gold record: the sample's gold records are unlabelled)
    assert code == 2 and "unlabelled gold ID" in capsys.readouterr().err
