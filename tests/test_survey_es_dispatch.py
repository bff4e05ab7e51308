"""A TypeScript agent loop that looks its tools up in a registry reaches the tools' code
through a dispatch node, on repositories the test builds: tools kept in a ``Map`` filled
in another file, in an object literal of handlers, in an array searched with ``find``,
registered through a function that stores its parameter, and handed in from outside
(no registry in sight: every tool the repository declares)."""

from __future__ import annotations

from pathlib import Path

from gitrepo import make_repo

from drafter.snapshot import Snapshot
from graph.proposers.offline.prose import short_symbol
from retrieval.survey import Survey, run_survey
from retrieval.survey.dispatch import is_dispatch

MAP_FILES = {
    "src/tools/shell.ts": """import { spawn } from "node:child_process";

export class ShellTool {
  name = "shell";
  async execute(input: { cmd: string }): Promise<string> {
    spawn("bash", ["-lc", input.cmd]);
    return "ok";
  }
}
""",
    "src/tools/read.ts": """import { readFileSync } from "node:fs";

export async function readFile(input: { path: string }): Promise<string> {
  return readFileSync(input.path, "utf8");
}
""",
    "src/registry.ts": """import { ShellTool } from "./tools/shell";
import { readFile } from "./tools/read";

export const tools = new Map<string, any>([
  ["shell", new ShellTool()],
]);
tools.set("read", { name: "read", description: "read a file", execute: readFile });
""",
    "src/loop.ts": """import { tools } from "./registry";

export async function runTurn(call: { name: string; input: any }): Promise<string> {
  const tool = tools.get(call.name);
  if (!tool) {
    return "no such tool";
  }
  return await tool.execute(call.input);
}
""",
}

OBJECT_FILES = {
    "src/handlers.ts": """import { writeFileSync } from "node:fs";
import { execSync } from "node:child_process";

export const toolHandlers = {
  write_file: async (args: { path: string; text: string }) => {
    writeFileSync(args.path, args.text);
    return "written";
  },
  run: runCommand,
};

function runCommand(args: { cmd: string }): string {
  return execSync(args.cmd).toString();
}
""",
    "src/agent.ts": """import { toolHandlers } from "./handlers";

export class Agent {
  async step(name: string, args: any): Promise<string> {
    return toolHandlers[name](args);
  }
}
""",
}

ARRAY_FILES = {
    "src/tool.ts": """export function tool(def: { name: string; execute: Function }) {
  return def;
}
""",
    "src/tools.ts": """import { spawnSync } from "node:child_process";
import { tool } from "./tool";

export function createBashTool(cwd: string) {
  return tool({
    name: "bash",
    description: "run a command",
    execute: async ({ cmd }: { cmd: string }) => spawnSync("bash", ["-c", cmd], { cwd }),
  });
}
""",
    "src/runtime.ts": """import { createBashTool } from "./tools";

export class Runtime {
  private readonly tools = [createBashTool(".")];

  async handle(name: string, input: unknown): Promise<unknown> {
    const found = this.tools.find((t) => t.name === name);
    return found?.execute(input);
  }
}
""",
}

REGISTRAR_FILES = {
    "src/registry.ts": """const tools = new Map<string, Tool>();

export interface Tool {
  name: string;
  run: (input: unknown) => Promise<string>;
}

export function registerTool(tool: Tool): void {
  tools.set(tool.name, tool);
}

export async function dispatch(name: string, input: unknown): Promise<string> {
  const tool = tools.get(name);
  return tool ? tool.run(input) : "none";
}
""",
    "src/shell.ts": """import { execFileSync } from "node:child_process";
import { registerTool } from "./registry";

registerTool({
  name: "run_shell",
  description: "Run a command",
  async run(input: any) {
    return execFileSync("sh", ["-c", input.command]).toString();
  },
});
""",
}

HANDED_FILES = {
    "src/runtime.ts": """export class AgentRuntime {
  private readonly tools = new Map<string, AgentTool>();

  constructor(private readonly config: { tools: AgentTool[] }) {
    for (const tool of config.tools) {
      this.tools.set(tool.name, tool);
    }
  }

  async executePrepared(prepared: { tool: AgentTool; input: unknown }): Promise<unknown> {
    return prepared.tool.execute(prepared.input);
  }
}

export interface AgentTool {
  name: string;
  execute(input: unknown): Promise<unknown>;
}
""",
    "src/definitions.ts": """import { spawn } from "node:child_process";
import { createTool } from "./create";

export function createShellTool() {
  return createTool({
    name: "run_commands",
    description: "Run shell commands",
    inputSchema: {},
    execute: async (input: { cmd: string }) => spawn("sh", ["-c", input.cmd]),
  });
}
""",
    "src/create.ts": """export function createTool<T>(t: T): T {
  return t;
}
""",
    "test/runtime.test.ts": """export const fake = {
  name: "fake", description: "x", execute: async () => 1,
};
""",
}


def _survey(tmp_path: Path, files: dict[str, str]) -> Survey:
    with Snapshot(make_repo(tmp_path / "repo", files), "HEAD") as snap:
        return run_survey(snap)


def _dispatched(sv: Survey, caller: str) -> tuple[str, list[str]]:
    """The dispatch node a caller calls, and what it leads to."""
    edges = sv.call_graph.edges
    nodes = [n for n in edges.get(caller, []) if is_dispatch(n)]
    assert len(nodes) == 1, edges.get(caller)
    return nodes[0], edges.get(nodes[0], [])


def _exec_reached(sv: Survey, node: str) -> set[str]:
    reach = set(sv.reachable(node))
    return {f.path for f in sv.findings if f.category == "exec_effect" and f.node in reach}


def test_a_map_filled_in_another_file_leads_to_its_class_and_object_handlers(
    tmp_path: Path,
) -> None:
    sv = _survey(tmp_path, MAP_FILES)
    node, targets = _dispatched(sv, "src/loop.ts::runTurn")
    assert node == "src/loop.ts::<dispatch through tools>"
    assert targets == ["src/tools/shell.ts::ShellTool.execute", "src/tools/read.ts::readFile"]
    assert _exec_reached(sv, "src/loop.ts::runTurn") == {"src/tools/shell.ts"}
    assert short_symbol(node) == "[dispatch through tools]"


def test_an_object_literal_of_handlers_leads_to_each_function(tmp_path: Path) -> None:
    sv = _survey(tmp_path, OBJECT_FILES)
    node, targets = _dispatched(sv, "src/agent.ts::Agent.step")
    assert node == "src/agent.ts::<dispatch through toolHandlers>"
    assert targets == ["src/handlers.ts::write_file", "src/handlers.ts::runCommand"]
    reach = set(sv.reachable("src/agent.ts::Agent.step"))
    kinds = {f.category for f in sv.findings if f.node in reach}
    assert {"exec_effect", "persistence"} <= kinds


def test_an_array_searched_with_find_leads_to_the_factory_made_handler(tmp_path: Path) -> None:
    sv = _survey(tmp_path, ARRAY_FILES)
    node, targets = _dispatched(sv, "src/runtime.ts::Runtime.handle")
    assert node == "src/runtime.ts::<dispatch through this.tools>"
    assert targets == ["src/tools.ts::createBashTool.execute"]
    assert _exec_reached(sv, "src/runtime.ts::Runtime.handle") == {"src/tools.ts"}


def test_a_function_registering_its_parameter_registers_what_its_callers_hand_it(
    tmp_path: Path,
) -> None:
    sv = _survey(tmp_path, REGISTRAR_FILES)
    _, targets = _dispatched(sv, "src/registry.ts::dispatch")
    assert targets == ["src/shell.ts::run"]
    assert _exec_reached(sv, "src/registry.ts::dispatch") == {"src/shell.ts"}


def test_tools_handed_in_lead_to_every_declared_tool_outside_tests(tmp_path: Path) -> None:
    sv = _survey(tmp_path, HANDED_FILES)
    node, targets = _dispatched(sv, "src/runtime.ts::AgentRuntime.executePrepared")
    assert node == "src/runtime.ts::<dispatch through this.tools>" or node.endswith(
        "<dispatch prepared.tool.execute>"
    )
    assert targets == ["src/definitions.ts::createShellTool.execute"]
    assert _exec_reached(sv, "src/runtime.ts::AgentRuntime.executePrepared") == {
        "src/definitions.ts"
    }


def test_a_lookup_of_a_collection_not_named_as_tools_is_no_dispatch(tmp_path: Path) -> None:
    files = {
        "src/cache.ts": """export class Cache {
  private readonly entries = new Map<string, { run(): void }>();
  use(key: string): void {
    const e = this.entries.get(key);
    e?.run();
  }
}
""",
    }
    sv = _survey(tmp_path, files)
    assert not any(is_dispatch(n) for n in sv.call_graph.functions)


def test_the_dispatch_line_is_a_tool_dispatch_finding_that_says_why(tmp_path: Path) -> None:
    sv = _survey(tmp_path, MAP_FILES)
    found = [f for f in sv.findings if f.kind == "registry_dispatch"]
    assert [(f.path, f.start_line, f.symbol) for f in found] == [("src/loop.ts", 8, "runTurn")]
    assert found[0].detail["why"] == "a handler looked up in tools is run (.execute())"
    assert found[0].snippet.strip() == "return await tool.execute(call.input);"


SESSION_FILES = {
    "src/session.ts": """export interface Session {
  execCommand(cmd: string): Promise<string>;
}

export type SessionLike<T = unknown> = Session | Readonly<T>;

export function requireBound(session?: SessionLike): SessionLike {
  if (!session) throw new Error("unbound");
  return session;
}
""",
    "src/local.ts": """import { spawn } from "node:child_process";
import type { Session } from "./session";

export class LocalSession implements Session {
  async execCommand(cmd: string): Promise<string> {
    spawn("sh", ["-c", cmd]);
    return "";
  }
}
""",
    "src/shell.ts": """import { requireBound, type SessionLike } from "./session";

export class ShellCapability {
  constructor(private readonly bound?: SessionLike) {}

  tools() {
    const session = requireBound(this.bound);
    return [
      {
        name: "exec_command",
        description: "Runs a command",
        execute: async (input: { cmd: string }) => session.execCommand(input.cmd),
      },
    ];
  }
}
""",
    "src/loop.ts": """export async function runTool(tool: { invoke(i: unknown): Promise<string> }) {
  return tool.invoke({});
}
""",
}


def test_a_value_returned_as_a_type_alias_resolves_to_its_implementations(
    tmp_path: Path,
) -> None:
    """``const session = requireBound(...)`` declared to return ``SessionLike``, an alias
    of the ``Session`` interface: the call on it reaches the class implementing it, so a
    tool handed to the loop reaches the process it starts."""
    sv = _survey(tmp_path, SESSION_FILES)
    handler = "src/shell.ts::ShellCapability.tools.execute"
    assert "src/local.ts::LocalSession.execCommand" in sv.call_graph.edges.get(handler, [])
    _, targets = _dispatched(sv, "src/loop.ts::runTool")
    assert targets == [handler]
    assert _exec_reached(sv, "src/loop.ts::runTool") == {"src/local.ts"}
