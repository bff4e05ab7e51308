"""The TypeScript call graph through declared types, on a small monorepo the test builds.

The shapes an agent SDK reaches its model by: a runner whose model is a parameter or a
field typed by an interface (``model: Model``), the interface implemented by a class in
another workspace package that imports it by its scoped package name, an abstract base
class whose subclass overrides a method, an inherited method called as ``this.m()``, and
a package entry (``index.ts``) that only re-exports the runner.  A class in a test file
implementing the interface is not a target of the runner's call.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gitrepo import survey_of

from retrieval.languages import by_name
from retrieval.survey import Survey

FILES = {
    "packages/core/package.json": '{"name": "@acme/core", "main": "dist/index.js"}\n',
    "packages/core/src/index.ts": (
        "export { Runner, run } from './run';\n"
        "export * from './model';\n"
        "export type { Tool } from './tool';\n"
    ),
    "packages/core/src/model.ts": (
        "export interface Model {\n"
        "  getResponse(request: string): Promise<string>;\n"
        "}\n"
        "export interface StreamingModel extends Model {\n"
        "  stream(request: string): AsyncIterable<string>;\n"
        "}\n"
    ),
    "packages/core/src/tool.ts": (
        "export abstract class Tool {\n"
        "  abstract invoke(input: string): Promise<string>;\n"
        "  describe(): string { return 'tool'; }\n"
        "}\n"
        "export class ShellTool extends Tool {\n"
        "  async invoke(input: string): Promise<string> { return this.describe() + input; }\n"
        "}\n"
    ),
    "packages/core/src/run.ts": (
        "import type { Model } from './model';\n"
        "import { Tool } from './tool';\n"
        "\n"
        "async function turn(model: Model, input: string): Promise<string> {\n"
        "  return model.getResponse(input);\n"
        "}\n"
        "\n"
        "export class Runner {\n"
        "  private tools: Tool[] = [];\n"
        "  constructor(private readonly model: Model, private tool: Tool) {}\n"
        "  async run(input: string): Promise<string> {\n"
        "    const out = await turn(this.model, input);\n"
        "    return this.tool.invoke(out);\n"
        "  }\n"
        "  async direct(input: string): Promise<string> {\n"
        "    return this.model.getResponse(input);\n"
        "  }\n"
        "}\n"
        "\n"
        "export async function run(model: Model, tool: Tool, input: string) {\n"
        "  return new Runner(model, tool).run(input);\n"
        "}\n"
    ),
    "packages/core/test/fake.ts": (
        "import type { Model } from '../src/model';\n"
        "export class FakeModel implements Model {\n"
        "  async getResponse(request: string): Promise<string> { return request; }\n"
        "}\n"
    ),
    "packages/core/test/tools.test.ts": (
        "const shell = { name: 'shell', description: 'run', parameters: { type: 'object' } };\n"
        "const key = process.env.TEST_KEY;\n"
    ),
    "packages/core/src/settings.ts": (
        "const tool = { name: 'shell', description: 'run', parameters: { type: 'object' } };\n"
        "export const key = process.env.ACME_KEY ?? '';\n"
        "export function again(): string { return process.env.ACME_KEY || process.env.HOME!; }\n"
    ),
    "examples/echo.ts": (
        "import type { Model } from '@acme/core';\n"
        "export class EchoModel implements Model {\n"
        "  async getResponse(request: string): Promise<string> { return request; }\n"
        "}\n"
    ),
    "packages/openai/package.json": '{"name": "@acme/openai", "main": "dist/index.js"}\n',
    "packages/openai/src/index.ts": "export { OpenAIModel } from './openaiModel';\n",
    "packages/openai/src/openaiModel.ts": (
        "import OpenAI from 'openai';\n"
        "import { StreamingModel } from '@acme/core';\n"
        "\n"
        "export class OpenAIModel implements StreamingModel {\n"
        "  #client = new OpenAI();\n"
        "  async getResponse(request: string): Promise<string> {\n"
        "    const r = await this.#client.responses.create({ model: 'gpt-4o', input: request });\n"
        "    return r.output_text;\n"
        "  }\n"
        "  async *stream(request: string): AsyncIterable<string> { yield request; }\n"
        "}\n"
    ),
}


@pytest.fixture(scope="module")
def survey(tmp_path_factory: pytest.TempPathFactory) -> Survey:
    return survey_of(tmp_path_factory.mktemp("tsd") / "repo", FILES)


RUN = "packages/core/src/run.ts"
IMPL = "packages/openai/src/openaiModel.ts::OpenAIModel.getResponse"


def test_a_parameter_typed_by_an_interface_reaches_its_implementation(survey: Survey) -> None:
    # the interface is implemented through an interface extending it, in another package
    # that imports it by its scoped name; the test's and the example's are not targets
    assert survey.call_graph.callees(f"{RUN}::turn") == [IMPL]


def test_a_constructor_parameter_property_is_a_typed_field(survey: Survey) -> None:
    assert survey.call_graph.callees(f"{RUN}::Runner.direct") == [IMPL]


def test_an_abstract_method_reaches_the_override_and_inherited_methods(survey: Survey) -> None:
    callees = survey.call_graph.callees(f"{RUN}::Runner.run")
    assert f"{RUN}::turn" in callees
    assert "packages/core/src/tool.ts::ShellTool.invoke" in callees
    # ``this.describe()`` in the subclass is the base class's method
    assert survey.call_graph.callees("packages/core/src/tool.ts::ShellTool.invoke") == [
        "packages/core/src/tool.ts::Tool.describe"
    ]


def test_a_package_entry_reaches_what_it_re_exports(survey: Survey) -> None:
    reach = set(survey.reachable("packages/core/src/index.ts::<module>"))
    assert {f"{RUN}::run", f"{RUN}::Runner.run", f"{RUN}::Runner.direct", IMPL} <= reach
    # private helpers are not offered; the model call is reached through the runner
    assert f"{RUN}::turn" in reach
    calls = [f for f in survey.findings if f.category == "model_call" and f.kind != "client"]
    assert calls and all(f.node in reach for f in calls)


def test_a_module_that_re_exports_nothing_offers_nothing(survey: Survey) -> None:
    # run.ts defines and exports: reaching it as a module runs only its top level
    assert survey.call_graph.callees(f"{RUN}::<module>") == []


def test_a_closure_a_callback_by_name_and_a_module_imported_when_needed(tmp_path: Path) -> None:
    files = {
        "src/loop.ts": (
            "import { traced } from './trace';\n"
            "async function step(): Promise<void> { return; }\n"
            "export async function loop(): Promise<void> {\n"
            "  const once = async () => { await step(); };\n"
            "  await traced('turn', once);\n"
            "  const { later } = await import('./later');\n"
            "  await later();\n"
            "  await once();\n"
            "}\n"
        ),
        "src/trace.ts": "export async function traced(n: string, f: () => Promise<void>) {}\n",
        "src/later.ts": "export async function later(): Promise<void> {}\n",
    }
    sv = survey_of(tmp_path / "repo", files)
    assert sv.call_graph.callees("src/loop.ts::loop") == [
        "src/trace.ts::traced",
        "src/loop.ts::loop.once",
        "src/later.ts::later",
    ]
    assert sv.call_graph.callees("src/loop.ts::loop.once") == ["src/loop.ts::step"]


def test_tests_declare_no_tools_and_env_reads_count_once_a_file(survey: Survey) -> None:
    schemas = [f.path for f in survey.findings if f.kind == "tool_schema"]
    assert schemas == ["packages/core/src/settings.ts"]
    env = [(f.path, f.detail["env"], f.start_line) for f in survey.findings if f.kind == "env"]
    assert env == [
        ("packages/core/src/settings.ts", "ACME_KEY", 2),
        ("packages/core/src/settings.ts", "HOME", 3),
    ]


def test_go_calls_across_files_of_a_package_and_across_packages(tmp_path: Path) -> None:
    files = {
        "go.mod": "module example.com/agent\n",
        "cmd/agent/main.go": ("package main\n\nfunc main() { run() }\n"),
        "cmd/agent/run.go": (
            'package main\n\nimport "example.com/agent/internal/llm"\n\n'
            'func run() { llm.Ask("hi") }\n'
        ),
        "internal/llm/llm.go": "package llm\n\nfunc Ask(q string) string { return q }\n",
    }
    sv = survey_of(tmp_path / "repo", files)
    assert sv.call_graph.callees("cmd/agent/main.go::main") == ["cmd/agent/run.go::run"]
    # the import path ends with the package's folder
    assert sv.call_graph.callees("cmd/agent/run.go::run") == ["internal/llm/llm.go::Ask"]


def test_imports_from_the_query_in_a_broken_file_and_not_in_a_declared_module() -> None:
    text = (
        "import def_, { a as b, c } from './m';\n"
        "import * as ns from 'pkg';\n"
        "declare module 'other' { import { hidden } from 'x'; }\n"
        "const broken = ;\n"
        "import { late } from './late';\n"
    )
    sf = by_name("typescript").parse("src/f.ts", text)
    assert sf.has_errors
    assert sf.imports == {
        "def_": "src.m.default",
        "b": "src.m.a",
        "c": "src.m.c",
        "ns": "pkg",
        "late": "src.late.late",
    }
    assert sf.imported_modules == {"src.m", "pkg", "src.late"}
