"""Documented promises of a TypeScript system the survey offers as claims: product docs
(MDX pages at any depth of a docs folder, not their translations), JSDoc sentences and
tool descriptions; never the repository's development files (contributor guides,
changelogs, a coding agent's instructions, top-level dot folders)."""

from __future__ import annotations

import pytest
from gitrepo import make_repo

from drafter.snapshot import Snapshot
from retrieval.roles import is_repo_tooling
from retrieval.survey import Survey, run_survey
from retrieval.survey.select import doc_claim_file

FILES: dict[str, str] = {
    "package.json": '{ "name": "kit", "main": "dist/index.js" }\n',
    "README.md": "# kit\n\nThe runner never executes a tool without approval by default.\n",
    "docs/src/content/docs/guides/sessions.mdx": (
        "---\ntitle: Sessions\n---\n"
        'import { Code } from "@astrojs/starlight/components";\n\n'
        "A session is persisted between runs, so the history is always sent to the model.\n"
    ),
    "docs/src/content/docs/ja/guides/sessions.mdx": (
        "A translated session page that is persisted and always sent again to the model.\n"
    ),
    "CONTRIBUTING.md": "You must always run the linter before you open a pull request here.\n",
    "AGENTS.md": "You are working on this repository. You must never skip the tests here.\n",
    ".agents/skills/review/SKILL.md": (
        "You are a reviewer. You must always check that changesets are present first.\n"
    ),
    ".changeset/brave-cats.md": "---\nkit: patch\n---\n\nThe runner now always retries once.\n",
    "src/run.ts": """import { tool } from "ai";
import { z } from "zod";

export interface RunOptions {
  /**
   * Maximum number of turns. Defaults to 10 and the run never goes past it.
   * @param n the turns
   */
  maxTurns?: number;
}

/** Runs the agent. */
export function run(opts: RunOptions): number {
  return opts.maxTurns ?? 10;
}

export const readTool = tool({
  name: "read_file",
  description: "Reads a file of the workspace; it only reads inside the workspace root.",
  parameters: z.object({ path: z.string().describe("the path to read, relative") }),
  execute: async ({ path }) => path,
});
""",
    "src/run.test.ts": """/** A fixture that always approves every call it is given by default. */
export const fixture = 1;
""",
}


@pytest.fixture(scope="module")
def survey(tmp_path_factory: pytest.TempPathFactory) -> Survey:
    repo = make_repo(tmp_path_factory.mktemp("claims") / "repo", FILES)
    with Snapshot(repo, "HEAD") as snap:
        return run_survey(snap)


def _claims(sv: Survey) -> dict[str, list[tuple[str, int]]]:
    out: dict[str, list[tuple[str, int]]] = {}
    for f in sv.findings:
        if f.category == "claim":
            out.setdefault(f.kind, []).append((f.path, f.start_line))
    return out


def test_docs_pages_at_any_depth_are_claims_but_not_translations(survey: Survey) -> None:
    docs = {p for p, _ in _claims(survey)["doc_sentence"]}
    assert "README.md" in docs
    assert "docs/src/content/docs/guides/sessions.mdx" in docs
    assert "docs/src/content/docs/ja/guides/sessions.mdx" not in docs
    lines = [ln for p, ln in _claims(survey)["doc_sentence"] if p.endswith("sessions.mdx")]
    assert lines == [6]  # the prose line, not the front matter or the import


def test_development_files_make_no_claims_and_no_prompts(survey: Survey) -> None:
    for f in survey.findings:
        if f.category in ("claim", "prompt"):
            assert not is_repo_tooling(f.path), f.id
    assert is_repo_tooling(".changeset/brave-cats.md")
    assert is_repo_tooling("packages/core/CHANGELOG.md") and is_repo_tooling("AGENTS.md")
    assert not is_repo_tooling("src/agents.ts") and not is_repo_tooling("docs/agents.md")
    assert not doc_claim_file("CONTRIBUTING.md") and doc_claim_file("docs/a/b/c.md")


def test_jsdoc_sentences_are_docstring_claims(survey: Survey) -> None:
    found = {(f.path, f.start_line): f for f in survey.findings if f.kind == "docstring"}
    assert ("src/run.ts", 6) in found  # the promise sentence, not the @param tag
    assert found[("src/run.ts", 6)].detail["sentence"].startswith("Defaults to 10")
    assert not any(p == "src/run.test.ts" for p, _ in found)  # a test's fixture
    assert ("src/run.ts", 12) not in found  # "Runs the agent." promises nothing


def test_a_tools_own_description_is_a_claim_not_its_parameters(survey: Survey) -> None:
    descs = [f for f in survey.findings if f.kind == "tool_description"]
    assert [(f.path, f.start_line) for f in descs] == [("src/run.ts", 19)]
    assert "only reads inside the workspace root" in descs[0].detail["sentence"]
