"""Offline drafts of systems not written (only) in Python: the opening names every
language with its share, and the TypeScript sample drafts with every witness verified."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from gitrepo import APP, commit

from drafter.cli import main
from drafter.model import Report
from drafter.sample import SampleRepo
from drafter.sample.typescript import materialize_typescript
from drafter.snapshot import Snapshot
from graph.proposers.offline.shares import LanguageShare, language_shares, shares_sentence

AGENT_TS = (
    'import OpenAI from "openai";\n'
    'import { execSync } from "node:child_process";\n'
    "\n"
    "export async function step(task: string): Promise<string> {\n"
    "  const client = new OpenAI();\n"
    "  const r = await client.chat.completions.create({\n"
    '    model: "gpt-4o",\n'
    '    messages: [{ role: "user", content: task }],\n'
    "  });\n"
    '  return execSync(r.choices[0].message.content ?? "true").toString();\n'
    "}\n"
)


def _opening(report: Report) -> str:
    first = report.account[0]
    return " ".join(getattr(b, "text", "") for b in first.blocks)


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    repo = tmp_path_factory.mktemp("mixed") / "repo"
    sha = commit(
        repo,
        {
            "app.py": APP,
            "web/src/agent.ts": AGENT_TS,
            "web/src/util.ts": "export const twice = (x: number): number => 2 * x;\n",
            "native/lib.rs": "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
            "node_modules/left-pad/index.js": "module.exports = (s) => s;\n",
            "README.md": "# mixed\n\nRun `python app.py`.\n",
        },
    )
    return repo, sha


def test_shares_count_files_and_lines_per_language(mixed: tuple[Path, str]) -> None:
    with Snapshot(*mixed) as snap:
        shares = {s.label: s for s in language_shares(snap)}
    assert shares["Python"] == LanguageShare("Python", 1, 13, True)
    assert (shares["TypeScript"].files, shares["TypeScript"].lines) == (2, 12)
    assert shares["Rust"] == LanguageShare("Rust", 1, 3, False)
    # vendored dependencies are not the system's code
    assert "JavaScript" not in shares


def test_sentence_states_an_unsurveyed_language_plainly() -> None:
    text = shares_sentence(
        [LanguageShare("TypeScript", 30, 9000, True), LanguageShare("Rust", 10, 1000, False)]
    )
    assert text.startswith("Languages surveyed: TypeScript (30 file(s), 75% of source files")
    assert "Present but not surveyed" in text and "Rust (10 file(s), 25% of source files" in text
    assert "1,000 lines, 10% of source lines" in text


def test_mixed_draft_opening_names_both_languages_with_shares(
    mixed: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, sha = mixed
    out = tmp_path / "d.json"
    code = main(["draft", str(repo), "--rev", sha, "--out", str(out), "--offline", "--no-index"])
    assert code == 0, capsys.readouterr().err
    opening = _opening(Report.from_json(out.read_text()))
    assert re.search(r"Python \(1 file\(s\), 25% of source files; 13 lines, 46%", opening)
    assert re.search(r"TypeScript \(2 file\(s\), 50% of source files; 12 lines, 43%", opening)
    assert re.search(r"not surveyed .*Rust \(1 file\(s\), 25% of source files", opening)


@pytest.fixture(scope="module")
def ts_sample(tmp_path_factory: pytest.TempPathFactory) -> SampleRepo:
    return materialize_typescript(tmp_path_factory.mktemp("ts") / "repo")


def test_typescript_sample_drafts_offline_verified(
    ts_sample: SampleRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "ts.json"
    args = ["draft", str(ts_sample.path), "--rev", ts_sample.sha, "--out", str(out)]
    code = main([*args, "--offline", "--no-index"])
    assert code == 0, capsys.readouterr().err
    report = Report.from_json(out.read_text())
    assert report.witnesses and all(w.verified for w in report.witnesses)
    assert "TypeScript (11 file(s), 92% of source files" in _opening(report)
