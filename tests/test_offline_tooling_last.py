"""The offline plan puts the system's own code before the repository's developer tooling
(a top-level dot folder, a JavaScript ``scripts/`` folder, build configuration): an item
resting on tooling alone gives its place back to the core, on a TypeScript repository
the test builds; a Python repository's ``scripts/`` stay supporting code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gitrepo import commit

from drafter.cli import main
from drafter.model import Report
from graph.proposers.offline.rank import is_tooling

AGENT = (
    'import OpenAI from "openai";\n'
    'import { readFileSync, writeFileSync } from "node:fs";\n'
    "\n"
    "export async function step(task: string): Promise<string> {\n"
    '  const memory = readFileSync("memory.json", "utf8");\n'
    "  const client = new OpenAI();\n"
    "  const r = await client.chat.completions.create({\n"
    '    model: "gpt-4o",\n'
    '    messages: [{ role: "user", content: memory + task }],\n'
    "  });\n"
    '  writeFileSync("memory.json", JSON.stringify(r));\n'
    '  return r.choices[0].message.content ?? "";\n'
    "}\n"
)


def _tool(name: str) -> str:
    return (
        'import { tool } from "./tool";\n'
        "\n"
        f"export const {name}Tools = [\n"
        f'  tool({{ name: "{name}_a", description: "Run {name} a.", parameters: {{}} }}),\n'
        f'  tool({{ name: "{name}_b", description: "Run {name} b.", parameters: {{}} }}),\n'
        "];\n"
    )


FILES = {
    "package.json": json.dumps({"name": "agent", "main": "src/index.ts"}, indent=2),
    "src/index.ts": 'export { step } from "./agent";\n',
    "src/agent.ts": AGENT,
    "src/tool.ts": "export function tool<T>(t: T): T {\n  return t;\n}\n",
    **{f"src/tools/{n}.ts": _tool(n) for n in ("shell", "files", "web", "git")},
    "scripts/embed-meta.mjs": (
        "import { writeFileSync } from 'node:fs';\n\n"
        "writeFileSync('src/meta.ts', `export const VERSION = '1';`);\n"
    ),
    ".github/scripts/coverage.py": (
        "import json\n\n\ndef check(path, floor):\n"
        "    cov = json.load(open(path))['total']\n"
        "    if cov < floor:\n        raise SystemExit(1)\n"
    ),
    "vite.config.ts": (
        "import { writeFileSync } from 'node:fs';\n\n"
        "writeFileSync('stats.json', JSON.stringify({ built: true }));\n"
    ),
}


def _draft(tmp: Path, files: dict[str, str]) -> Report:
    repo = tmp / "repo"
    sha = commit(repo, files)
    out = tmp / "d.json"
    args = ["draft", str(repo), "--rev", sha, "--out", str(out), "--offline", "--no-index"]
    args += ["--max-records", "8"]
    assert main(args) == 0
    return Report.from_json(out.read_text())


def test_tooling_paths_by_their_shape() -> None:
    for p in (".agents/skills/x/SKILL.md", ".github/scripts/c.py", "scripts/embed.mjs",
              "packages/a/scripts/b.ts", "vite.config.ts", "test-utils/render.tsx"):  # fmt: skip
        assert is_tooling(p), p
    for p in ("src/agent.ts", "scripts/run_experiment.py", "packages/a/src/scripts.ts"):
        assert not is_tooling(p), p


def test_no_record_rests_on_tooling_and_the_core_takes_its_place(tmp_path: Path) -> None:
    report = _draft(tmp_path, FILES)
    for r in report.records:
        assert not all(is_tooling(w.path) for w in r.witnesses), r.id
    # the places tooling would hold go to the core: more tool registries than the cap
    registries = [r for r in report.records if r.label.startswith("Tool registry")]
    assert len(registries) > 2
    assert report.witnesses and all(w.verified for w in report.witnesses)


@pytest.mark.parametrize("kept", ["scripts/run_eval.py"])
def test_a_python_scripts_folder_is_not_tooling(tmp_path: Path, kept: str) -> None:
    files = {
        kept: (
            "import json\n\n\ndef main():\n"
            '    with open("results.json", "w") as f:\n        json.dump({"score": 1}, f)\n\n\n'
            'if __name__ == "__main__":\n    main()\n'
        ),
        "agent/core.py": "def run(task):\n    return task\n",
    }
    report = _draft(tmp_path, files)
    assert any(w.path == kept for r in report.records for w in r.witnesses)


def test_dev_folders_support_and_hyphenated_test_folders_are_tests() -> None:
    """A ``dev/`` folder's harnesses support the system (no route of the core); a folder
    named with "test" among other words is test code."""
    from graph.proposers.offline.rank import path_class

    assert path_class("apps/vscode/src/dev/debug-harness/server.ts") == 1
    assert path_class("apps/vscode/src/dev/mcp-oauth-test-server/server.ts") == 2
    assert path_class("src/my-unit-test-data/x.py") == 2
    for own in ("src/device/x.ts", "src/latest/x.py", "contest/x.py", "src/attest-x/y.ts"):
        assert path_class(own) == 0, own
