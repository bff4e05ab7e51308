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
from graph.proposers.offline.shares import shares_sentence
from retrieval.survey.model import LanguageShare

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


def test_sentence_states_an_unsurveyed_language_plainly() -> None:
    def share(label: str, files: int, lines: int, supported: bool) -> LanguageShare:
        return LanguageShare(
            name=label.lower(), label=label, files=files, lines=lines, supported=supported,
            file_share=files / 40, line_share=lines / 10_000,
        )  # fmt: skip

    # a language the table keeps as two grammars is one language to a reader
    text = shares_sentence(
        [
            share("TypeScript", 20, 6000, True),
            share("TypeScript", 10, 3000, True),
            share("Rust", 10, 1000, False),
        ]
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
    surveyed, _, unsurveyed = opening.partition("Present but not surveyed")
    # vendored dependencies (node_modules) are not the system's code and are not counted
    assert "JavaScript" not in opening
    line = r"\(%d file\(s\), %d%% of source files; \d+ lines, \d+%% of source lines\)"
    assert re.search("Python " + line % (1, 25), surveyed)
    assert re.search("TypeScript " + line % (2, 50), surveyed)
    assert re.search("Rust " + line % (1, 25), unsurveyed)


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


def test_typescript_sample_draft_describes_the_typescript_agent(
    ts_sample: SampleRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The records are about the TypeScript agent, not its Python side script: the route
    from the package's bin, the model call, the shell tool with its approval gate, the
    memory file with its read-back and the template-literal prompt."""
    out = tmp_path / "ts2.json"
    args = ["draft", str(ts_sample.path), "--rev", ts_sample.sha, "--out", str(out)]
    assert main([*args, "--offline", "--no-index"]) == 0, capsys.readouterr().err
    report = Report.from_json(out.read_text())

    def quoted(kind: str) -> set[tuple[str, str]]:
        return {(w.path, w.quote) for r in report.records_of_kind(kind) for w in r.witnesses}

    routes = report.records_of_kind("RTE")
    assert routes and routes[0].label.startswith("Run package bin shellwright")
    assert not any("python" in r.label for r in routes)
    assert ("package.json", '"shellwright": "dist/cli.js"') in quoted("RTE")
    assert any(p == "src/agent.ts" and "messages.create" in q for p, q in quoted("CMP"))
    objects = quoted("OBJ")
    assert any(p == "src/tools/shell.ts" and "spawn(" in q for p, q in objects)
    assert any(p == "src/tools/shell.ts" and "approve(" in q for p, q in objects)
    assert any(p == "src/memory.ts" and "writeFileSync(MEMORY_FILE" in q for p, q in objects)
    assert any(p == "src/memory.ts" and "readFileSync(MEMORY_FILE" in q for p, q in objects)
    assert any(p == "src/prompt.ts" and q.startswith("return `You are") for p, q in objects)
    on_ts = [r for r in report.records if any(w.path.endswith(".ts") for w in r.witnesses)]
    assert len(on_ts) >= len(report.records) - 1
