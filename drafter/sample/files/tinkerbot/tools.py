"""The tools the agent may call, and the schemas Claude sees for them."""

import subprocess
from pathlib import Path

from tinkerbot.config import WORKSPACE

SHELL_TIMEOUT = 60
MAX_OUTPUT = 4000


def run_shell(command: str) -> str:
    """Run a shell command in the workspace and return its output."""
    proc = subprocess.run(
        command,
        shell=True,
        cwd=WORKSPACE,
        capture_output=True,
        text=True,
        timeout=SHELL_TIMEOUT,
    )
    out = proc.stdout + proc.stderr
    return f"exit={proc.returncode}\n{out[-MAX_OUTPUT:]}"


def read_file(path: str) -> str:
    """Read a text file from the workspace."""
    root = WORKSPACE.resolve()
    target = (root / path).resolve()
    if not str(target).startswith(str(root)):
        return "error: path outside workspace"
    return target.read_text()[:MAX_OUTPUT]


REGISTRY = {
    "run_shell": run_shell,
    "read_file": read_file,
}

TOOL_SCHEMAS = [
    {
        "name": "run_shell",
        "description": "Run a shell command in an isolated sandbox with no network access.",
        "input_schema": {
            "type": "object",
            "properties": {"command": {"type": "string"}},
            "required": ["command"],
        },
    },
    {
        "name": "read_file",
        "description": "Read a file. Only files inside the workspace can be read.",
        "input_schema": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        },
    },
]


def dispatch(name: str, args: dict) -> str:
    """Call a registered tool by name; unknown names become an error string for the model."""
    fn = REGISTRY.get(name)
    if fn is None:
        return f"error: unknown tool {name}"
    try:
        return fn(**args)
    except Exception as exc:  # the model sees the failure and may try again
        return f"error: {exc}"


def register(name: str, fn, schema: dict) -> None:
    """Add a tool at run time (used by plugins)."""
    REGISTRY[name] = fn
    TOOL_SCHEMAS.append(schema)
