"""Terminal injection: repository and model text never drives the terminal.

Every output path that shows repository or model text is fed escape sequences (OSC 52
clipboard write, OSC 8 hyperlink, clear screen, window title, C1 CSI/OSC, CR, BEL)
and Rich markup (``[bold red]``, ``[link=file:///…]``), and must show them as visible
text: ``⟨U+001B⟩`` for control characters, markup as the literal brackets.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakes import make_record, make_report
from gitrepo import commit
from hostile_material import ESCAPES, MARKUP, hostile_repo, no_raw_control
from rich.console import Console

from drafter.cli import main
from drafter.model import Report, Source
from drafter.reportio import dump_report
from drafter.textformat import parse_report, render_text

ALL = {**ESCAPES, **MARKUP}


# -- the sanitiser itself --------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(ESCAPES))
def test_visible_leaves_no_raw_control_and_reads_back(name: str) -> None:
    from drafter.sanitize import unescape, visible

    payload = ESCAPES[name]
    shown = visible(payload)
    assert no_raw_control(shown)
    assert unescape(shown) == payload


@pytest.mark.parametrize("name", sorted(ESCAPES))
def test_one_line_cells_have_no_control_and_no_newline(name: str) -> None:
    from drafter.sanitize import one_line

    shown = one_line(ESCAPES[name] + "\nsecond line", 40)
    assert no_raw_control(shown) and "\n" not in shown and len(shown) <= 40


@pytest.mark.parametrize("name", sorted(MARKUP))
def test_markup_is_printed_literally_by_rich(name: str) -> None:
    from drafter.sanitize import markup_safe, plain

    console = Console(record=True, width=200, force_terminal=True, color_system="truecolor")
    console.print(markup_safe(MARKUP[name]))
    console.print(plain(MARKUP[name]))
    styled = console.export_text(styles=True, clear=False)
    assert console.export_text(styles=False).count(MARKUP[name]) == 2  # shown as written
    assert "\x1b]8;" not in styled and "\x1b[5" not in styled  # no hyperlink, no blink


def test_escape_of_the_escape_is_exact() -> None:
    from drafter.sanitize import unescape, visible

    tricky = "⟨U+001B⟩ and ⟨U+27E8⟩ and ⟨U+0041⟩ and \x1b"
    assert unescape(visible(tricky)) == tricky
    assert unescape("⟨U+0041⟩") == "⟨U+0041⟩"  # not an escapable character: left alone


def test_json_safe_escapes_c1_and_stays_valid_json() -> None:
    from drafter.sanitize import json_safe

    text = json.dumps({"q": "a\x9bb\x85c\u2028"}, ensure_ascii=False)
    safe = json_safe(text)
    assert no_raw_control(safe) and "\u2028" not in safe
    assert json.loads(safe) == {"q": "a\x9bb\x85c\u2028"}


# -- survey and search on a hostile repository -------------------------------------------


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    return hostile_repo(tmp_path_factory.mktemp("hostile"))


def test_survey_table_shows_payloads_as_text(repo, capsys, monkeypatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")  # styled output, as on a real terminal
    path, sha = repo
    assert main(["survey", str(path), "--rev", sha, "--all"]) == 0
    out = capsys.readouterr().out
    assert "\x1b]" not in out and "\x9b" not in out and "\x9d" not in out  # no OSC at all
    assert "⟨U+001B⟩]52;c;" in out  # the clipboard write, made visible
    assert "[link=file:///x]y[/link]" in out or "file:///x" in out


def test_survey_plain_pipe_has_no_escape_at_all(repo, capsys) -> None:
    path, sha = repo
    assert main(["survey", str(path), "--rev", sha]) == 0
    out = capsys.readouterr().out
    assert no_raw_control(out.replace("\n", ""))


def test_survey_json_keeps_the_data_exactly_and_no_raw_c1(repo, capsys) -> None:
    path, sha = repo
    assert main(["survey", str(path), "--rev", sha, "--json"]) == 0
    out = capsys.readouterr().out
    assert no_raw_control(out.replace("\n", ""))
    data = json.loads(out)
    snippets = "\n".join(f["snippet"] for f in data["findings"])
    assert ESCAPES["osc52_clipboard"] in snippets  # data unchanged, only its encoding


@pytest.fixture(scope="module")
def indexed(repo, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, Path]:
    path, sha = repo
    data = tmp_path_factory.mktemp("hostile-data")
    assert main(["index", str(path), "--rev", sha, "-q", "--data-dir", str(data)]) == 0
    return path, sha, data


@pytest.mark.parametrize("query", ["clipboard tool subprocess", "link click me", "bold red ALERT"])
def test_search_table_never_emits_osc_or_markup(indexed, query, capsys, monkeypatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    path, sha, data = indexed
    capsys.readouterr()
    args = ["search", str(path), query, "--rev", sha, "-k", "20", "--data-dir", str(data)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "\x1b]" not in out and "\x9b" not in out and "\x07" not in out
    assert "⟨U+001B⟩" in out  # the payloads are there, visibly


def test_search_into_a_pipe_has_no_escape_and_literal_markup(indexed, capsys, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "300")  # wide enough that no snippet is folded
    path, sha, data = indexed
    capsys.readouterr()
    args = ["search", str(path), "link click me", "--rev", sha, "-k", "20", "--data-dir", str(data)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert no_raw_control(out.replace("\n", ""))
    assert "[link=file:///etc/passwd]" in out.replace("\n", "")


def test_search_json_lines_have_no_raw_control(indexed, capsys) -> None:
    path, sha, data = indexed
    capsys.readouterr()
    args = ["search", str(path), "osc title", "--rev", sha, "--json", "--data-dir", str(data)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.strip() and no_raw_control(out.replace("\n", ""))
    for line in out.splitlines():
        json.loads(line)


# -- reports: render, export, draft --text ------------------------------------------------


def _report(payload: str, path: str, quote: str, sha: str) -> Report:
    body = f"Claimed operation: {payload} in prose."
    rec = make_record("RT-CLM-x", f"label {payload}", body, [(quote, path)])
    source = Source(id="SRC-1", repository="hostile", revision=sha)
    return make_report([rec], system="Hostile", source=source)


@pytest.mark.parametrize("name", sorted(ALL))
@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_render_never_writes_raw_control(name: str, fmt: str) -> None:
    rep = _report(ALL[name], "a.py", f"x = {ALL[name]}", "a" * 40)
    out = dump_report(rep, fmt)
    assert no_raw_control(out.replace("\n", "").replace("\t", ""))


@pytest.mark.parametrize("name", sorted(ESCAPES))
def test_text_round_trip_carries_control_characters_exactly(name: str) -> None:
    payload = ESCAPES[name].replace("\x00", "")
    rep = _report(payload, "a.py", f"q {payload} q", "a" * 40)
    back = parse_report(render_text(rep)).report
    assert back.records[0].witnesses[0].quote == f"q {payload} q"
    assert back.records[0].label == f"label {payload}"


def test_cli_render_text_and_markdown_have_no_escape(tmp_path: Path, capsys) -> None:
    draft = tmp_path / "d.json"
    draft.write_text(_report(ESCAPES["osc52_clipboard"], "a.py", "q\x1b[2J", "a" * 40).to_json())
    for fmt in ("text", "markdown", "json"):
        assert main(["render", str(draft), "-f", fmt]) == 0
        assert no_raw_control(capsys.readouterr().out.replace("\n", ""))


def test_exported_review_verifies_its_own_escaped_quotes(tmp_path: Path, capsys) -> None:
    src = 'print("\x1b]52;c;ZXZpbA==\x07")\n'
    repo = tmp_path / "r"
    sha = commit(repo, {"a.py": src})
    rep = _report(ESCAPES["window_title"], "a.py", src.strip(), sha)
    draft = tmp_path / "d.json"
    draft.write_text(rep.to_json())
    assert main(["verify", str(draft), "--repo", str(repo)]) == 0
    decisions = tmp_path / "dec.jsonl"
    decisions.write_text('{"record": "RT-CLM-x", "action": "accept"}\n')
    out = tmp_path / "export.txt"
    args = ["review", str(draft), "--repo", str(repo), "--decisions", str(decisions)]
    assert main([*args, "--export", str(out)]) == 0
    text = out.read_text()
    assert no_raw_control(text.replace("\n", "")) and "⟨U+001B⟩]52;c;" in text
    capsys.readouterr()
    assert main(["verify", str(out), "--repo", str(repo)]) == 0, capsys.readouterr()


def test_offline_draft_text_file_has_no_raw_control(repo, tmp_path: Path, capsys) -> None:
    path, sha = repo
    out, text = tmp_path / "d.json", tmp_path / "d.txt"
    args = ["draft", str(path), "--rev", sha, "--offline", "--no-index"]
    assert main([*args, "--out", str(out), "--text", str(text)]) == 0
    written = text.read_text()
    assert no_raw_control(written.replace("\n", "").replace("\t", ""))
    assert no_raw_control(capsys.readouterr().out.replace("\n", ""))
    assert parse_report(written).report.system  # and it reads back


def test_error_line_naming_a_hostile_path_is_visible(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "x\x1b]0;owned\x07.txt"
    assert main(["parse", str(bad)]) == 2
    err = capsys.readouterr().err
    assert no_raw_control(err.replace("\n", "")) and err.count("\n") == 1
    assert "⟨U+001B⟩]0;owned" in err


@pytest.mark.parametrize("as_json", [False, True])
def test_verify_output_shows_hostile_quotes_and_passages_as_text(
    tmp_path: Path, capsys, as_json: bool
) -> None:
    src = 'banner = "\x1b]0;owned\x07 \x9b2J welcome to the tool"\n'
    repo = tmp_path / "r"
    sha = commit(repo, {"a.py": src})
    rep = _report("x", "a.py", 'banner = "\x1b]0;owned\x07 \x9b2J welcome to the toolbox"', sha)
    draft = tmp_path / "d.json"
    draft.write_text(rep.to_json())
    args = ["verify", str(draft), "--repo", str(repo)] + (["--json"] if as_json else [])
    assert main(args) == 1  # the quote is not in the file
    out = capsys.readouterr()
    assert no_raw_control((out.out + out.err).replace("\n", ""))


def test_a_path_with_escape_bytes_round_trips_and_verifies(tmp_path: Path, capsys) -> None:
    path = "evil\x1b]0;t\x07name.py"
    repo = tmp_path / "r"
    sha = commit(repo, {path: "import os\nos.system('pwd')\n"})
    text = render_text(_report("x", path, "os.system('pwd')", sha))
    assert no_raw_control(text.replace("\n", ""))
    back = tmp_path / "r.txt"
    back.write_text(text)
    assert parse_report(text).report.witnesses[0].path == path
    assert main(["verify", str(back), "--repo", str(repo)]) == 0
    assert no_raw_control(capsys.readouterr().out.replace("\n", ""))
