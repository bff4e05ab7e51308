"""A TypeScript agent loop whose model is an object it is handed (an interface of its
own, implemented elsewhere by an SDK adapter) is a model loop, on a repository the test
builds: the loop file imports no model SDK, and the call graph cannot follow the
interface to the adapter, so the call on the handed model is what makes the loop one."""

from __future__ import annotations

from pathlib import Path

from gitrepo import make_repo

from drafter.snapshot import Snapshot
from retrieval.survey import Survey, run_survey

FILES = {
    "packages/shared/src/model.ts": """export interface AgentModel {
  stream(request: ModelRequest): Promise<AsyncIterable<ModelEvent>>;
}

export interface ModelRequest {
  messages: string[];
}

export type ModelEvent = { text: string };
""",
    "packages/agent/src/runtime.ts": """import type { AgentModel, ModelRequest } from "@a/shared";

export interface RuntimeConfig {
  model: AgentModel;
  maxTurns: number;
}

export class Runtime {
  private readonly state = { messages: [] as string[], turn: 0 };

  constructor(private readonly config: RuntimeConfig) {}

  async run(input: string): Promise<string> {
    this.state.messages.push(input);
    while (this.state.turn < this.config.maxTurns) {
      this.state.turn += 1;
      const reply = await this.nextMessage();
      if (!this.useTools(reply)) {
        return reply;
      }
    }
    return "";
  }

  private async nextMessage(): Promise<string> {
    const request: ModelRequest = { messages: this.state.messages };
    let text = "";
    const events = await this.config.model.stream(request);
    for await (const e of events) {
      text += e.text;
    }
    return text;
  }

  private useTools(reply: string): boolean {
    return reply.includes("tool:");
  }
}
""",
    "packages/agent/src/views.ts": """export class Page {
  constructor(private readonly viewModel: { render(): string }) {}

  show(): string {
    return this.viewModel.render();
  }
}

export function build(Model: { generate(): number }): number {
  return Model.generate();
}
""",
    "packages/agent/test/runtime.test.ts": """const model = { stream: async () => [] };

export async function fake(): Promise<void> {
  await model.stream({ messages: [] });
}
""",
}


def _survey(tmp_path: Path) -> Survey:
    with Snapshot(make_repo(tmp_path / "repo", FILES), "HEAD") as snap:
        return run_survey(snap)


def test_a_call_on_a_handed_model_is_a_model_call_that_says_why(tmp_path: Path) -> None:
    sv = _survey(tmp_path)
    calls = [f for f in sv.findings if f.category == "model_call" and f.kind != "via_wrapper"]
    assert [(f.path, f.start_line, f.symbol) for f in calls] == [
        ("packages/agent/src/runtime.ts", 28, "Runtime.nextMessage")
    ]
    why = str(calls[0].detail["why"])
    assert why.startswith("stream() on this.config.model: a call of a model object")
    assert calls[0].detail["provider"] == "injected"


def test_the_loop_that_reaches_it_through_a_method_is_a_model_loop(tmp_path: Path) -> None:
    sv = _survey(tmp_path)
    loops = [f for f in sv.findings if f.category == "model_loop"]
    assert [(f.kind, f.start_line, f.symbol) for f in loops if f.kind == "while"] == [
        ("while", 15, "Runtime.run")
    ]
    steps = {str(f.detail["step"]) for f in loops if f.kind == "loop_step"}
    assert "packages/agent/src/runtime.ts::Runtime.useTools" in steps


def test_view_models_classes_and_test_doubles_are_not_model_calls(tmp_path: Path) -> None:
    sv = _survey(tmp_path)
    paths = {f.path for f in sv.findings if f.category == "model_call"}
    assert "packages/agent/src/views.ts" not in paths  # render() is no model verb; Model a class
    assert "packages/agent/test/runtime.test.ts" not in paths  # a test's fake model
