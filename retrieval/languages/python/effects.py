"""Execution effects: where the system runs commands or code outside its own logic.

subprocess and os process calls, shells, docker, ``exec``/``eval``, and delegated
execution (``environment.exec(...)``) that hands a model-chosen command to a sandbox.
"""

from __future__ import annotations

import re

from retrieval.survey.base import Hit, clip
from retrieval.survey.details import ExecDetail
from retrieval.survey.model import Category, ExecKind
from retrieval.survey.source import PyFile

_PROCESS = {
    "subprocess.run",
    "subprocess.call",
    "subprocess.check_call",
    "subprocess.check_output",
    "subprocess.Popen",
    "subprocess.getoutput",
    "subprocess.getstatusoutput",
    "os.system",
    "os.popen",
    "os.execv",
    "os.execvp",
    "os.execvpe",
    "os.spawnv",
    "os.spawnl",
    "asyncio.create_subprocess_exec",
    "asyncio.create_subprocess_shell",
    "pexpect.spawn",
    "pty.spawn",
}
_DOCKER_SUFFIX = (".containers.run", ".containers.create", ".exec_run", ".images.build")


def _command(args: list[str], kwargs: dict[str, str]) -> str:
    if args:
        return clip(args[0], 120)
    return clip(kwargs.get("args", kwargs.get("cmd", "")), 120)


def effect_findings(pf: PyFile) -> list[Hit]:
    hits: list[Hit] = []
    for c in pf.calls:
        full = c.full
        kind: ExecKind | None = None
        if full in _PROCESS:
            kind = (
                "subprocess"
                if full.startswith(("subprocess", "asyncio", "pexpect", "pty"))
                else "os_process"
            )
        elif full.startswith("docker.") or c.callee.endswith(_DOCKER_SUFFIX):
            kind = "docker"
        elif (
            c.callee in ("exec", "eval", "compile") and c.callee not in pf.imports and c.positional
        ):
            if c.callee == "compile" and "exec" not in c.args_text:
                continue
            kind = "exec_eval"
        elif c.callee_type == "attribute" and re.search(
            r"\.(exec|execute_command|run_command|run_shell|arun)$", c.callee
        ):
            if not re.search(r"cursor|conn|db|session\.execute", c.callee):
                kind = "delegated_exec"
        if kind is None:
            continue
        cmd = _command(c.positional, c.kwargs)
        detail: ExecDetail = {"call": clip(c.callee, 60), "command": cmd}
        if c.kwargs.get("shell", "").strip() == "True" or full in (
            "os.system",
            "os.popen",
            "asyncio.create_subprocess_shell",
        ):
            detail["shell"] = True
        low = c.args_text.lower()
        if "docker" in low and kind != "docker":
            detail["runs_docker"] = True
        if re.search(r"""['"]git['"]|\bgit\s""", c.args_text):
            detail["git"] = True
        hits.append(Hit.at_call(pf, c, category=Category.EXEC_EFFECT, kind=kind, detail=detail))
    return hits
