"""The survey on TypeScript and JavaScript repositories the tests build (see es_fixture).

Each rule family is checked on the shape it is written for, including the tricky ones:
a re-export through ``index.ts``, a default export, an aliased import, a template-literal
prompt, a model call through a wrapper the code defines, and a method resolved across
two files by the call graph.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from es_fixture import FILES
from gitrepo import make_repo

from drafter.snapshot import Snapshot
from retrieval.languages import for_path
from retrieval.survey import Survey, run_survey
from retrieval.survey.model import Finding


@pytest.fixture(scope="module")
def survey(tmp_path_factory: pytest.TempPathFactory) -> Survey:
    repo = make_repo(tmp_path_factory.mktemp("es") / "repo", FILES)
    with Snapshot(repo, "HEAD") as snap:
        return run_survey(snap)


def _find(sv: Survey, category: str, kind: str, path: str) -> list[Finding]:
    return [f for f in sv.findings if f.category == category and f.kind == kind and f.path == path]


def test_the_table_gives_each_suffix_its_language() -> None:
    assert for_path("a/b.ts") is not None and for_path("a/b.ts").name == "typescript"  # type: ignore[union-attr]
    assert for_path("a/b.tsx").name == "typescript"  # type: ignore[union-attr]
    for p in ("x.js", "x.jsx", "x.mjs", "x.cjs"):
        assert for_path(p).name == "javascript"  # type: ignore[union-attr]
    assert for_path("x.py").name == "python"  # type: ignore[union-attr]
    assert for_path("x.rs") is None


def test_every_finding_of_an_es_file_says_why(survey: Survey) -> None:
    es = [f for f in survey.findings if f.path.endswith((".ts", ".js"))]
    assert len(es) >= 15
    missing = [f.id for f in es if f.kind != "via_wrapper" and not f.detail.get("why")]
    assert not missing


def test_entry_points(survey: Survey) -> None:
    bins = _find(survey, "entry_point", "package_bin", "package.json")
    assert bins and bins[0].detail["target_path"] == "src/cli.ts"  # dist/cli.js built from src
    assert bins[0].detail["target_node"] == "src/cli.ts::<module>"
    scripts = _find(survey, "entry_point", "package_script", "package.json")
    assert [f.detail["script"] for f in scripts] == ["start"]  # lint is not a way to start it
    assert _find(survey, "entry_point", "shebang", "src/cli.ts")
    assert _find(survey, "entry_point", "cli_framework", "src/cli.ts")
    mains = _find(survey, "entry_point", "main_call", "src/cli.ts")
    assert [f.start_line for f in mains] == [15]
    guard = _find(survey, "entry_point", "require_main", "src/server.js")
    assert guard and guard[0].symbol == "<main>"
    listen = _find(survey, "entry_point", "listen", "src/server.js")
    assert listen and listen[0].symbol == "<main>"


def test_model_calls_with_their_provider(survey: Survey) -> None:
    chat = _find(survey, "model_call", "chat", "src/agent/agent.ts")
    assert len(chat) == 1 and chat[0].symbol == "Agent.ask"
    assert chat[0].detail["provider"] == "openai" and chat[0].detail["model"] == '"gpt-4o"'
    client = _find(survey, "model_call", "client", "src/agent/agent.ts")
    assert client and client[0].detail["provider"] == "openai"  # a default import, constructed
    anth = _find(survey, "model_call", "chat", "src/llm.ts")
    assert anth and anth[0].detail["provider"] == "anthropic"
    ai = _find(survey, "model_call", "generate", "src/server.js")
    assert ai and ai[0].detail["provider"] == "ai-sdk"  # const { generateText } = require("ai")


def test_a_model_call_through_a_wrapper_under_an_alias(survey: Survey) -> None:
    via = _find(survey, "model_call", "via_wrapper", "src/summarise.ts")
    assert via and via[0].detail["via"] == "src/llm.ts::complete"  # imported as llm


def test_exec_persistence_and_read_back(survey: Survey) -> None:
    ex = _find(survey, "exec_effect", "subprocess", "src/agent/agent.ts")
    assert ex and ex[0].detail["shell"] is True  # namespace import of node:child_process
    spawn = _find(survey, "exec_effect", "subprocess", "src/tools/shell.ts")
    assert spawn and spawn[0].symbol == "shell"  # an arrow function bound to a name
    writes = _find(survey, "persistence", "json", "src/agent/agent.ts")
    assert writes and writes[0].detail["target"] == "STATE"
    back = _find(survey, "read_back", "read", "src/agent/agent.ts")
    assert back and back[0].symbol == "lastAnswer"


def test_prompts_gating_and_environment(survey: Survey) -> None:
    tmpl = _find(survey, "prompt", "instruction_string", "src/agent/prompts.ts")
    assert tmpl and tmpl[0].detail["fstring"] is True  # a template literal with ${task}
    assert _find(survey, "prompt", "system_message", "src/agent/agent.ts")
    kinds = {f.kind for f in survey.findings if f.category == "gating"}
    assert {"mode_switch", "allow_list"} <= kinds
    env = [f for f in survey.findings if f.category == "config_read" and f.kind == "env"]
    assert env and env[0].detail["env"] == "OPENAI_API_KEY" and env[0].detail.get("secret")


def test_call_graph_follows_reexports_default_exports_and_methods(survey: Survey) -> None:
    edges = survey.call_graph.edges
    main = set(edges["src/cli.ts::main"])
    # Runner is Agent re-exported by src/agent/index.ts; runner.run is its method, in
    # another file; shell is a default export
    assert "src/agent/agent.ts::Agent.run" in main
    assert "src/tools/shell.ts::shell" in main
    assert "src/agent/agent.ts::Agent.ask" in edges["src/agent/agent.ts::Agent.run"]  # this.ask
    assert "src/agent/prompts.ts::buildPrompt" in edges["src/agent/agent.ts::Agent.ask"]
    names = {n.symbol for n in survey.call_graph.functions.values()}
    assert {"Agent.run", "Agent.ask", "shell", "buildPrompt", "lastAnswer"} <= names
    chains = survey.chains_from("src/cli.ts::main")
    assert any(c[-1] == "src/agent/agent.ts::Agent.ask" for c in chains)


def test_languages_side_by_side(survey: Survey) -> None:
    shares = {s.name: s for s in survey.languages}
    assert set(shares) == {"typescript", "javascript"}
    assert shares["typescript"].surveyed == 8 and shares["javascript"].files == 1
    assert shares["typescript"].line_share > shares["javascript"].line_share
    assert any(n.startswith("languages: TypeScript") for n in survey.notices)


MIXED = {
    "agent/loop.py": "import subprocess\n\ndef step():\n    subprocess.run(['ls'])\n",
    "web/src/api.ts": (
        'import { post } from "./http";\n\nexport async function send(): Promise<void> {\n'
        '  await post("/api/step");\n}\n'
    ),
    "web/src/http.ts": "export async function post(url: string) {\n  return fetch(url);\n}\n",
    "engine/core.rs": 'fn main() {\n    println!("hi");\n}\n',
    "web/node_modules/left-pad/index.js": "module.exports = function leftPad() {};\n",
    "web/public/bundle.js": "var a=1;" + "x" * 3000 + "\n",
    "web/src/types.d.ts": "export type Step = { id: string };\n",
    "web/package.json": '{"name": "web", "main": "dist/api.js"}\n',
    "web/dist/api.js": "exports.send = function send() {};\n",
    "web/src/__snapshots__/api.test.ts.snap": "exports[`x`] = `1`;\n",
}


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Survey:
    repo = make_repo(tmp_path_factory.mktemp("mixed") / "repo", MIXED)
    with Snapshot(repo, "HEAD") as snap:
        return run_survey(snap)


def test_a_mixed_repository_has_one_graph_per_language(mixed: Survey) -> None:
    shares = {s.name: s for s in mixed.languages}
    assert shares["python"].surveyed == 1 and shares["typescript"].surveyed == 2
    rust = shares["Rust"]
    assert not rust.supported and rust.files == 1 and rust.lines == 4
    assert any("Rust 1 file(s)" in n and "not supported" in n for n in mixed.notices)
    assert mixed.call_graph.edges["web/src/api.ts::send"] == ["web/src/http.ts::post"]
    for src, dsts in mixed.call_graph.edges.items():
        assert all(d.endswith(".py") == src.split("::")[0].endswith(".py") for d in dsts)
    assert mixed.python_files == 1
    assert [f.path for f in mixed.findings if f.category == "exec_effect"] == ["agent/loop.py"]


def test_node_modules_bundles_and_build_output_are_left_out_with_reasons(mixed: Survey) -> None:
    parsed = {n.path for n in mixed.call_graph.functions.values()}
    assert not any("node_modules" in p or "dist/" in p or p.endswith(".d.ts") for p in parsed)
    assert "web/public/bundle.js" not in parsed
    assert any(
        s.path == "web/public/bundle.js" and s.reason == "minified bundle" for s in mixed.skipped
    )
    text = " ".join(mixed.notices)
    assert "skipped 1 file(s): minified bundle" in text
    assert "build output under dist/" in text and "type declarations (.d.ts)" in text


def test_file_roles_of_the_javascript_world(tmp_path: Path) -> None:
    from retrieval.roles import Role, Treatment, classify_revision, is_test_path

    repo = make_repo(tmp_path / "r", {**MIXED, "web/src/api.test.ts": "test('x', () => {});\n"})
    with Snapshot(repo, "HEAD") as snap:
        roles = classify_revision(snap)
    got = {p: (f.role, f.treatment, f.reason) for p, f in roles.files.items()}
    assert got["web/node_modules/left-pad/index.js"][:2] == (Role.vendored, Treatment.listed)
    assert got["web/dist/api.js"][2] == "build output under dist/"
    assert got["web/src/types.d.ts"][2] == "type declarations (.d.ts)"
    assert got["web/src/__snapshots__/api.test.ts.snap"][0] is Role.data
    assert got["web/src/api.test.ts"][2].startswith("test source")
    assert got["web/public/bundle.js"][1] is Treatment.lexical  # a line too long to embed
    assert is_test_path("web/src/api.test.ts") and not is_test_path("web/src/api.ts")


GO = {
    "go.mod": "module example.com/agent\n",
    "cmd/agent/main.go": """package main

import (
	"context"
	"os"
	"os/exec"

	"github.com/anthropics/anthropic-sdk-go"
	oai "github.com/openai/openai-go/v2"
)

func main() {
	client := anthropic.NewClient()
	msg, _ := client.Messages.New(context.TODO(), anthropic.MessageNewParams{})
	o := oai.NewClient()
	_, _ = o.Chat.Completions.New(context.TODO(), oai.ChatCompletionNewParams{})
	out, _ := exec.Command("bash", "-c", os.Getenv("AGENT_CMD")).Output()
	_ = os.WriteFile("last.txt", out, 0o644)
	_ = msg
	run()
}

func run() {}
""",
    "internal/util/util.go": "package util\n\nfunc main() {}\n",
}


def test_go_rules(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "go", GO)
    with Snapshot(repo, "HEAD") as snap:
        sv = run_survey(snap)
    entries = [f for f in sv.findings if f.category == "entry_point"]
    assert [(f.path, f.kind) for f in entries] == [("cmd/agent/main.go", "go_main")]  # not util
    models = [(f.kind, f.detail["provider"]) for f in sv.findings if f.category == "model_call"]
    assert models == [
        ("client", "anthropic"),
        ("chat", "anthropic"),
        ("client", "openai"),
        ("chat", "openai"),
    ]
    ex = [f for f in sv.findings if f.category == "exec_effect"]
    assert len(ex) == 1 and ex[0].detail["shell"] is True
    writes = [f for f in sv.findings if f.category == "persistence"]
    assert [f.kind for f in writes] == ["write"] and writes[0].detail["target"] == '"last.txt"'
    assert [f.detail["env"] for f in sv.findings if f.category == "config_read"] == ["AGENT_CMD"]
    assert "cmd/agent/main.go::run" in sv.call_graph.edges["cmd/agent/main.go::main"]
    assert {s.name for s in sv.languages} == {"go"}


def test_typescript_chunks_follow_classes_and_methods() -> None:
    from retrieval.chunking import chunk_file

    got = chunk_file("src/agent/agent.ts", FILES["src/agent/agent.ts"])
    assert not got.syntax_error
    spans = {(c.symbol, c.kind) for c in got.chunks}
    assert {("Agent.run", "method"), ("Agent.ask", "method"), ("lastAnswer", "function")} <= spans
    lines = FILES["src/agent/agent.ts"].split("\n")
    for c in got.chunks:  # every chunk is the file's own lines
        assert c.text.rstrip("\n") == "\n".join(lines[c.start_line - 1 : c.end_line])


@pytest.mark.parametrize("lang", ["python", "typescript", "javascript", "go"])
def test_each_language_rules_module_imports_on_its_own(lang: str) -> None:
    import subprocess
    import sys

    code = f"import retrieval.languages.{lang}.rules; from retrieval.survey import run_survey"
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert got.returncode == 0, got.stderr


def test_a_typescript_agent_loop_is_a_model_loop(tmp_path: Path) -> None:
    files = {
        "src/loop.ts": """import Anthropic from "@anthropic-ai/sdk";

const client = new Anthropic();

export async function agentLoop(task: string): Promise<void> {
  let done = false;
  while (!done) {
    const msg = await client.messages.create({ model: "m", max_tokens: 9, messages: [] });
    done = handle(msg);
  }
}

function handle(msg: unknown): boolean {
  return msg !== null;
}
""",
    }
    with Snapshot(make_repo(tmp_path / "loop", files), "HEAD") as snap:
        sv = run_survey(snap)
    loops = [f for f in sv.findings if f.category == "model_loop"]
    assert [(f.kind, f.start_line, f.symbol) for f in loops if f.kind == "while"] == [
        ("while", 7, "agentLoop")
    ]
    assert any(f.kind == "loop_step" and f.detail["step"] == "src/loop.ts::handle" for f in loops)
