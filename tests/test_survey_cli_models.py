"""Survey: a model or agent CLI started as a process is a model call; documentation and
housekeeping files are not prompts unless the code names them.

Real runs had to work around both: a system that drove its coding agent through
``npx …`` / ``claude -p`` showed no model call, and a pull-request template and a
``docs/configuration.md`` ("you must set …") were listed as prompts.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gitrepo import make_repo

from drafter.snapshot import Snapshot
from retrieval.survey import run_survey
from retrieval.survey.model import Category, Survey

DRIVER = """import os
import subprocess


def ask_claude(prompt):
    return subprocess.run(["claude", "-p", prompt], capture_output=True, text=True)


def ask_codex(task):
    cmd = ["npx", "-y", "@openai/codex@latest", "exec", task]
    return subprocess.run(cmd, check=True)


def ask_gemini(task):
    os.system(f"gemini --prompt '{task}'")


def ask_house_agent(task):
    return subprocess.run(["uvx", "house-agent", "--print", task])


def format_code(path):
    subprocess.run(["npx", "prettier", "--write", path])
    subprocess.run(["git", "commit", "-am", "format"])


def load_agent_prompt():
    return open("docs/agent_prompt.md").read()
"""

FILES = {
    "driver.py": DRIVER,
    ".github/pull_request_template.md": "## What\n\nYou must describe the change and you "
    "must link the issue. Always run the tests before asking for review.\n",
    "docs/configuration.md": "# Configuration\n\nYou must set OPENAI_API_KEY. You should "
    "never commit it. Always keep the config file private.\n",
    "docs/agent_prompt.md": "You are a careful coding agent. You must never delete tests.\n",
    "prompts/system.md": "You are the planner. Always answer in JSON.\n",
}


@pytest.fixture(scope="module")
def survey(tmp_path_factory: pytest.TempPathFactory) -> Survey:
    path: Path = make_repo(tmp_path_factory.mktemp("cli") / "repo", FILES)
    with Snapshot(path) as snap:
        return run_survey(snap)


def test_agent_clis_started_as_processes_are_model_calls(survey) -> None:
    calls = {
        f.symbol: f
        for f in survey.findings
        if f.category == Category.MODEL_CALL and f.kind == "cli"
    }
    assert set(calls) == {"ask_claude", "ask_codex", "ask_gemini", "ask_house_agent"}
    assert calls["ask_claude"].detail["provider"] == "claude"
    assert '"claude", "-p", prompt' in calls["ask_claude"].detail["command"]
    assert calls["ask_codex"].detail["provider"] == "codex"  # read from the cmd variable
    assert "@openai/codex@latest" in calls["ask_codex"].detail["command"]
    assert calls["ask_gemini"].detail["provider"] == "gemini"
    assert calls["ask_house_agent"].detail["provider"] == "house-agent"  # headless *agent*
    # the same calls are still execution effects
    execs = {f.symbol for f in survey.findings if f.category == Category.EXEC_EFFECT}
    assert {"ask_claude", "ask_codex", "format_code"} <= execs


def test_other_programs_are_not_model_calls(survey) -> None:
    assert not [
        f
        for f in survey.findings
        if f.category == Category.MODEL_CALL and f.symbol == "format_code"
    ]


def test_templates_and_configuration_docs_are_not_prompts_unless_code_names_them(survey) -> None:
    prompt_files = {
        f.path for f in survey.findings if f.category == Category.PROMPT and f.kind == "prompt_file"
    }
    assert ".github/pull_request_template.md" not in prompt_files
    assert "docs/configuration.md" not in prompt_files
    assert "docs/agent_prompt.md" in prompt_files  # the code opens it
    assert "prompts/system.md" in prompt_files
