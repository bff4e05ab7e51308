"""Core in-memory state of a TypeScript agent is found as ``state`` and drafted as an
object record with verified witnesses, on a repository the test builds: a class's
``#private`` Map of approvals, a message list in a state object field, a state class
that serializes itself, a module-level array; not a helper collection two functions
share, nor a test's."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitrepo import commit

from drafter.cli import main
from drafter.model import Report
from drafter.snapshot import Snapshot
from retrieval.survey import Survey, run_survey

FILES = {
    "package.json": '{ "name": "agent", "main": "src/index.ts" }\n',
    "src/index.ts": 'export { Runner } from "./runner";\n',
    "src/context.ts": """export interface ApprovalRecord {
  approved: boolean;
}

export class RunContext {
  #approvals: Map<string, ApprovalRecord> = new Map();
  private readonly scratch = new Set<string>();

  approveTool(name: string): void {
    this.#approvals.set(name, { approved: true });
  }

  rejectTool(name: string): void {
    this.#approvals.set(name, { approved: false });
    this.scratch.add(name);
  }

  isToolApproved(name: string): boolean | undefined {
    return this.#approvals.get(name)?.approved;
  }

  clearScratch(): void {
    this.scratch.clear();
  }
}
""",
    "src/runner.ts": """import { RunContext } from "./context";

export class RunState {
  private readonly state = { messages: [] as string[], turn: 0 };

  constructor(readonly context: RunContext) {}

  addMessage(text: string): void {
    this.state.messages.push(text);
  }

  nextTurn(): number {
    this.state.turn += 1;
    return this.state.turn;
  }

  lastMessage(): string | undefined {
    return this.state.messages[this.state.messages.length - 1];
  }

  toJSON(): object {
    return { messages: this.state.messages, turn: this.state.turn };
  }

  static fromString(text: string): RunState {
    const state = new RunState(new RunContext());
    for (const m of JSON.parse(text).messages) state.addMessage(m);
    return state;
  }
}

export class Runner {
  async run(input: string): Promise<string> {
    const state = new RunState(new RunContext());
    state.addMessage(input);
    state.nextTurn();
    return JSON.stringify(state.toJSON());
  }
}
""",
    "src/log.ts": """const lines: string[] = [];

export function record(line: string): void {
  lines.push(line);
}

export function all(): string[] {
  return [...lines];
}

export function size(): number {
  return lines.length;
}
""",
    "test/context.test.ts": """export class Fake {
  private readonly seen = new Map<string, number>();
  a(): void { this.seen.set("a", 1); }
  b(): number { return this.seen.size; }
  c(): void { this.seen.clear(); }
}
""",
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    path = tmp_path_factory.mktemp("state") / "repo"
    return path, commit(path, FILES)


@pytest.fixture(scope="module")
def survey(repo: tuple[Path, str]) -> Survey:
    with Snapshot(repo[0], repo[1]) as snap:
        return run_survey(snap)


def _states(sv: Survey) -> dict[str, str]:
    return {
        str(f.detail["state"]): str(f.kind)
        for f in sv.findings
        if f.category == "state" and f.kind in ("field", "module", "serialized")
    }


def test_fields_module_bindings_and_serializable_classes_are_state(survey: Survey) -> None:
    assert _states(survey) == {
        "RunContext.#approvals": "field",
        "RunState.state": "field",
        "RunState": "serialized",
        "lines": "module",
    }


def test_a_state_finding_says_who_uses_and_changes_it(survey: Survey) -> None:
    (f,) = [
        f
        for f in survey.findings
        if f.kind == "field" and f.detail["state"] == "RunContext.#approvals"
    ]
    assert f.snippet.strip().startswith("#approvals: Map<string, ApprovalRecord> = new Map();")
    assert f.detail["written_by"] == "RunContext.approveTool, RunContext.rejectTool"
    assert "used by 3 functions, 2 of them changing it" in str(f.detail["why"])
    lines = [
        (g.kind, g.start_line)
        for g in survey.findings
        if g.kind in ("state_write", "state_read") and g.detail["state"] == "RunContext.#approvals"
    ]
    assert lines == [("state_write", 10), ("state_write", 14), ("state_read", 19)]


def test_a_helper_set_of_two_functions_and_test_state_are_not_state(survey: Survey) -> None:
    states = _states(survey)
    assert "RunContext.scratch" not in states  # two methods touch it
    assert not any(f.path.startswith("test/") for f in survey.findings if f.category == "state")


def test_offline_draft_describes_the_state_with_verified_witnesses(
    repo: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "d.json"
    code = main(
        ["draft", str(repo[0]), "--rev", repo[1], "--out", str(out), "--offline", "--no-index"]
    )
    assert code in (0, 1), capsys.readouterr().err
    report = Report.from_json(out.read_text())
    states = [r for r in report.records_of_kind("OBJ") if r.label.startswith("In-memory state:")]
    labels = [r.label for r in states]
    assert labels[:1] == ["In-memory state: RunState (a class)"]
    assert "In-memory state: RunContext.#approvals (Map)" in labels
    quotes = {w.quote for r in states for w in r.witnesses}
    assert "this.#approvals.set(name, { approved: true });" in quotes
    assert all(w.verified for r in states for w in r.witnesses)
