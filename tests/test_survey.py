"""The static survey on repositories the tests build: every rule family at exact lines,
snippets equal to the file's lines, a call graph that chains an entry point to the model
call it reaches, and bad input (syntax errors, huge/generated files, no Python, deep
recursion) handled with notices instead of failures."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from gitrepo import make_repo

from drafter.cli import main
from drafter.snapshot import Snapshot
from retrieval.survey import Survey, run_survey
from retrieval.survey.model import MAX_CHAIN_DEPTH

AGENT = '''\
"""Agent loop."""
import anthropic
from pkg.llm import ask
from pkg import tools

SYSTEM_PROMPT = """You are a careful agent. You must never delete files and you should
always explain what you did. Respond with a short summary when you are done with the task.
Do not call tools that are not listed in the registry below, and stop after ten steps."""


class Agent:
    def __init__(self, model):
        self.client = anthropic.Anthropic()
        self.model = model

    def step(self, messages):
        return self.client.messages.create(
            model=self.model, system=SYSTEM_PROMPT, messages=messages
        )

    def run(self, task):
        messages = [{"role": "system", "content": SYSTEM_PROMPT}]
        for turn in range(10):
            reply = self.step(messages)
            out = tools.dispatch(reply.name, reply.args)
            messages.append(out)
        return ask(task)
'''

LLM = """\
import requests
from litellm import completion

ENDPOINT = "http://localhost:8000/v1/chat/completions"


def ask(prompt):
    completion(model="gpt-4o", messages=[{"role": "user", "content": prompt}])
    return requests.post(ENDPOINT, json={"prompt": prompt})
"""

TOOLS = """\
import importlib
import subprocess
import os


def run_shell(cmd):
    return subprocess.run(cmd, shell=True, capture_output=True)


def read(path):
    return open(path).read()


REGISTRY = {"run_shell": run_shell, "read": read}

SCHEMA = {
    "name": "run_shell",
    "description": "Run a shell command in an isolated sandbox with no network access.",
    "input_schema": {"type": "object", "properties": {"cmd": {"type": "string"}}},
}


def dispatch(name, args):
    return REGISTRY[name](**args)


def by_attr(obj, name):
    return getattr(obj, name)()


def load_plugin(mod):
    os.system("echo loading")
    return importlib.import_module(mod)


def unsafe(expr):
    return eval(expr)
"""

STORE = """\
import json
import pickle
import sqlite3
import subprocess

RESULTS = "out/results.jsonl"


def save(record, scores):
    with open(RESULTS, "a") as f:
        f.write(json.dumps(record))
    with open("out/state.pkl", "wb") as f:
        pickle.dump(scores, f)
    conn = sqlite3.connect("out/db.sqlite")
    conn.execute("INSERT INTO runs VALUES (?)", (1,))
    subprocess.run(["git", "commit", "-am", "update"], check=False)


def gate(score, best, threshold):
    if score >= threshold:
        return max(best, score)
    return best
"""

CLI = """\
import argparse
import os

from pkg.agent import Agent

MODEL = os.environ.get("AGENT_MODEL", "claude-x")
KEY = os.environ.get("API_KEY", "sk-not-a-real-default")


def main():
    parser = argparse.ArgumentParser(description="Run the agent")
    parser.add_argument("--model", default=MODEL)
    args = parser.parse_args()
    agent = Agent(args.model)
    agent.run("task")


if __name__ == "__main__":
    main()
"""

EVALUATE = """\
import json

GROUND_TRUTH_KEY = "label"
SCALE = {"incorrect": 0, "partial": 1, "correct": 7}


def judge(reply, row):
    prediction = json.loads(reply)["answers"][-1]
    match = row[GROUND_TRUTH_KEY] == prediction
    return {
        "overall_accuracy": float(match),
    }


def metric_name(domain):
    return "overall_accuracy"
"""

CLICK = '''\
import click


@click.command()
def hello():
    """Say hello."""
    print("hello")
'''

FILES = {
    "pkg/__init__.py": "",
    "pkg/agent.py": AGENT,
    "pkg/llm.py": LLM,
    "pkg/tools.py": TOOLS,
    "pkg/store.py": STORE,
    "pkg/cli.py": CLI,
    "pkg/click_cmd.py": CLICK,
    "pkg/evaluate.py": EVALUATE,
    "pyproject.toml": '[project]\nname = "pkg"\n\n[project.scripts]\npkg-run = "pkg.cli:main"\n',
    "scripts/run.sh": "#!/bin/sh\nset -e\npython -m pkg.cli --model x\n",
    "prompts/system.md": "# System\n\nYou are a careful agent working in a scratch workspace.\n",
    "README.md": "# pkg\n\nThe shell tool never reaches the internet. "
    "State is persistent across runs.\n",
}


@pytest.fixture(scope="module")
def survey(tmp_path_factory: pytest.TempPathFactory) -> Survey:
    repo = make_repo(tmp_path_factory.mktemp("survey") / "repo", FILES)
    with Snapshot(repo, "HEAD") as snap:
        return run_survey(snap)


def _line(files: dict[str, str], path: str, needle: str) -> int:
    for i, line in enumerate(files[path].split("\n"), 1):
        if needle in line:
            return i
    raise AssertionError(f"{needle!r} not in {path}")


def _has(survey: Survey, category: str, kind: str, path: str, needle: str) -> None:
    line = _line(FILES, path, needle)
    got = [
        f for f in survey.findings if f.category == category and f.kind == kind and f.path == path
    ]
    assert any(f.start_line <= line <= f.end_line for f in got), (
        f"no {category}/{kind} at {path}:{line}; "
        f"have {[(f.kind, f.anchor) for f in survey.by_category(category)]}"
    )


@pytest.mark.parametrize(
    ("category", "kind", "path", "needle"),
    [
        ("entry_point", "main_guard", "pkg/cli.py", 'if __name__ == "__main__":'),
        ("entry_point", "argparse", "pkg/cli.py", "argparse.ArgumentParser("),
        ("entry_point", "click", "pkg/click_cmd.py", "@click.command()"),
        ("entry_point", "console_script", "pyproject.toml", "pkg-run"),
        ("entry_point", "shell", "scripts/run.sh", "python -m pkg.cli"),
        ("model_call", "chat", "pkg/agent.py", "self.client.messages.create("),
        ("model_call", "client", "pkg/agent.py", "anthropic.Anthropic()"),
        ("model_call", "chat", "pkg/llm.py", 'completion(model="gpt-4o"'),
        ("model_call", "chat", "pkg/llm.py", "requests.post(ENDPOINT"),
        ("model_call", "via_wrapper", "pkg/agent.py", "return ask(task)"),
        ("tool_dispatch", "callable_registry", "pkg/tools.py", "REGISTRY = {"),
        ("tool_dispatch", "tool_schema", "pkg/tools.py", '"name": "run_shell",'),
        ("tool_dispatch", "subscript_dispatch", "pkg/tools.py", "REGISTRY[name](**args)"),
        ("tool_dispatch", "getattr_dispatch", "pkg/tools.py", "getattr(obj, name)()"),
        ("tool_dispatch", "import_module", "pkg/tools.py", "importlib.import_module(mod)"),
        ("exec_effect", "subprocess", "pkg/tools.py", "subprocess.run(cmd, shell=True"),
        ("exec_effect", "os_process", "pkg/tools.py", 'os.system("echo loading")'),
        ("exec_effect", "exec_eval", "pkg/tools.py", "eval(expr)"),
        ("persistence", "append", "pkg/store.py", 'with open(RESULTS, "a") as f:'),
        ("persistence", "write", "pkg/store.py", 'with open("out/state.pkl", "wb") as f:'),
        ("persistence", "sqlite", "pkg/store.py", 'conn.execute("INSERT INTO runs'),
        ("persistence", "git", "pkg/store.py", '"git", "commit"'),
        ("prompt", "instruction_string", "pkg/agent.py", "You are a careful agent. You must never"),
        (
            "prompt",
            "system_message",
            "pkg/agent.py",
            '{"role": "system", "content": SYSTEM_PROMPT}',
        ),
        ("prompt", "prompt_file", "prompts/system.md", "You are a careful agent working"),
        ("model_loop", "for", "pkg/agent.py", "for turn in range(10):"),
        ("model_loop", "loop_step", "pkg/agent.py", "out = tools.dispatch(reply.name"),
        ("gating", "threshold", "pkg/store.py", "if score >= threshold:"),
        ("gating", "selection", "pkg/store.py", "return max(best, score)"),
        ("gating", "answer_extraction", "pkg/evaluate.py", "prediction = json.loads(reply)"),
        ("gating", "reference_def", "pkg/evaluate.py", 'GROUND_TRUTH_KEY = "label"'),
        ("gating", "answer_check", "pkg/evaluate.py", "row[GROUND_TRUTH_KEY] == prediction"),
        ("gating", "grading_scale", "pkg/evaluate.py", '"incorrect": 0'),
        ("gating", "score_report", "pkg/evaluate.py", '"overall_accuracy": float(match)'),
        ("gating", "score_report", "pkg/evaluate.py", 'return "overall_accuracy"'),
        ("prompt", "prompt_rule", "pkg/agent.py", "Do not call tools that are not listed"),
        ("config_read", "model_setting", "pkg/agent.py", "self.model = model"),
        ("config_read", "env", "pkg/cli.py", 'os.environ.get("AGENT_MODEL"'),
        ("config_read", "cli_option", "pkg/cli.py", 'parser.add_argument("--model"'),
        ("claim", "doc_sentence", "README.md", "never reaches the internet"),
        ("claim", "tool_description", "pkg/tools.py", "isolated sandbox"),
    ],
)
def test_rule_finds_fact_at_its_line(
    survey: Survey, category: str, kind: str, path: str, needle: str
) -> None:
    _has(survey, category, kind, path, needle)


def test_snippets_are_the_files_exact_lines(survey: Survey) -> None:
    for f in survey.findings:
        lines = FILES[f.path].split("\n")
        assert f.snippet == "\n".join(lines[f.start_line - 1 : f.end_line]), f.id


def test_ids_unique_and_readable(survey: Survey) -> None:
    ids = [f.id for f in survey.findings]
    assert len(ids) == len(set(ids))
    assert "model_call:pkg/agent.py:17" in ids


def test_model_detail_names_provider_model_and_endpoint(survey: Survey) -> None:
    calls = {(f.path, f.start_line): f for f in survey.by_category("model_call")}
    lit = calls[("pkg/llm.py", _line(FILES, "pkg/llm.py", "completion(model="))]
    assert lit.detail["provider"] == "litellm" and lit.detail["model_value"] == "gpt-4o"
    http = calls[("pkg/llm.py", _line(FILES, "pkg/llm.py", "requests.post("))]
    assert http.detail["provider"] == "http"


def test_wrapper_call_names_the_model_call_it_reaches(survey: Survey) -> None:
    via = [f for f in survey.by_category("model_call") if f.kind == "via_wrapper"]
    ask = next(f for f in via if "ask(task)" in f.snippet)
    assert ask.detail["via"] == "pkg/llm.py::ask"
    assert survey.finding(ask.detail["reaches"]).path == "pkg/llm.py"
    # a script's own main() is a route, never counted as a model wrapper
    assert not any(f.symbol in ("<main>", "<module>") for f in via)


def test_env_reads_keep_names_never_secret_defaults(survey: Survey) -> None:
    env = {f.detail["env"]: f for f in survey.by_category("config_read") if f.kind == "env"}
    assert env["AGENT_MODEL"].detail["default"] == "claude-x"
    assert env["API_KEY"].detail.get("secret") is True
    assert "default" not in env["API_KEY"].detail
    assert "sk-not-a-real-default" not in json.dumps([f.detail for f in survey.findings])


def test_call_graph_chains_entry_to_model_call(survey: Survey) -> None:
    entry = next(f for f in survey.by_category("entry_point") if f.kind == "main_guard")
    chains = survey.chains_from(entry, targets=("model_call",))
    ends = {c[-1] for c in chains}
    assert "pkg/agent.py::Agent.step" in ends  # through main() -> Agent.run -> self.step
    assert "pkg/llm.py::ask" in ends  # through an imported repository function
    chain = next(c for c in chains if c[-1] == "pkg/agent.py::Agent.step")
    assert chain[:3] == ["pkg/cli.py::<main>", "pkg/cli.py::main", "pkg/agent.py::Agent.run"]
    assert survey.call_graph.best_effort is True


def test_console_script_and_shell_point_at_graph_nodes(survey: Survey) -> None:
    targets = {f.kind: f.detail.get("target_node") for f in survey.by_category("entry_point")}
    assert targets["console_script"] == "pkg/cli.py::main"
    assert targets["shell"] == "pkg/cli.py::<main>"


def test_survey_is_deterministic(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", FILES)
    with Snapshot(repo, "HEAD") as snap:
        a = run_survey(snap).model_dump_json()
    with Snapshot(repo, "HEAD") as snap:
        b = run_survey(snap).model_dump_json()
    assert a == b


# -- bad input ----------------------------------------------------------------------------


def test_syntax_errors_are_surveyed_and_flagged(tmp_path: Path) -> None:
    files = {
        "broken.py": "import subprocess\n\ndef f(:\n    pass\n\nsubprocess.run(['ls'])\n",
    }
    with Snapshot(make_repo(tmp_path / "r", files), "HEAD") as snap:
        sv = run_survey(snap)
    assert any("broken.py: syntax errors" in n for n in sv.notices)
    assert [f.start_line for f in sv.by_category("exec_effect")] == [6]


def test_huge_and_generated_files_are_skipped_with_notice(tmp_path: Path) -> None:
    huge = "import os\n" + "".join(f"X{i} = os.system('echo {i}')\n" for i in range(25_000))
    files = {
        "gen/huge.py": huge,
        "gen/made.py": "# Code generated by protoc. DO NOT EDIT.\nimport os\nos.system('x')\n",
        "ok.py": "import os\nos.system('ok')\n",
    }
    with Snapshot(make_repo(tmp_path / "r", files), "HEAD") as snap:
        t0 = time.perf_counter()
        sv = run_survey(snap)
        took = time.perf_counter() - t0
    reasons = {s.path: s.reason for s in sv.skipped}
    assert reasons["gen/huge.py"].startswith("huge file")
    assert reasons["gen/made.py"] == "generated"
    assert any(n.startswith("skipped 1 file(s): huge file") for n in sv.notices)
    assert [f.path for f in sv.by_category("exec_effect")] == ["ok.py"]
    assert took < 5


def test_repository_without_python_gives_notice(tmp_path: Path) -> None:
    files = {"data.csv": "a,b\n1,2\n", "notes/readme.txt": "plain notes\n"}
    with Snapshot(make_repo(tmp_path / "r", files), "HEAD") as snap:
        sv = run_survey(snap)
    assert sv.python_files == 0 and sv.findings == []
    assert any("no Python files" in n for n in sv.notices)


def test_deep_and_cyclic_call_chains_are_bounded(tmp_path: Path) -> None:
    n = 300
    body = ["import subprocess", ""]
    for i in range(n):
        body += [f"def f{i}():", f"    f{(i + 1) % n}()", f"    g{i}()", ""]
        body += [f"def g{i}():", f"    f{i}()", ""]
    body += ["def f299_effect():", "    subprocess.run(['x'])", ""]
    body[body.index("def f299():") + 1] = "    f0(); f299_effect()"
    body += ['if __name__ == "__main__":', "    f0()", ""]
    with Snapshot(make_repo(tmp_path / "r", {"deep.py": "\n".join(body)}), "HEAD") as snap:
        sv = run_survey(snap)
    entry = sv.by_category("entry_point")[0]
    t0 = time.perf_counter()
    chains = sv.chains_from(entry)
    took = time.perf_counter() - t0
    assert took < 2
    assert all(len(c) <= MAX_CHAIN_DEPTH + 1 for c in chains)
    assert all(len(c) == len(set(c)) for c in chains)  # no node twice on a chain
    assert chains == []  # the effect is ~300 calls deep: beyond the bound, not followed
    assert len(sv.reachable(entry)) <= MAX_CHAIN_DEPTH * 3 + 2


# -- CLI ----------------------------------------------------------------------------------


def test_cli_json_and_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", FILES)
    assert main(["survey", str(repo), "--rev", "HEAD", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {f["category"] for f in data["findings"]} >= {"entry_point", "model_call", "persistence"}
    assert data["call_graph"]["best_effort"] is True
    assert main(["survey", str(repo), "--rev", "HEAD", "--category", "exec_effect"]) == 0
    out = capsys.readouterr().out
    assert "exec_effect/subprocess" in out and "pkg/tools.py:" in out and "persistence/" not in out


def test_cli_unknown_revision_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    assert main(["survey", str(repo), "--rev", "nope"]) == 2
    assert "nope" in capsys.readouterr().err
