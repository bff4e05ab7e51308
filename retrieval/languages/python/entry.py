"""Entry points: where a run of the system can start.

Python ``__main__`` guards, argparse parsers, click/typer commands, console scripts
declared in pyproject.toml / setup.cfg / setup.py, and shell scripts or Dockerfiles
that run Python.  Non-Python declarations carry a ``target`` (a path or a module)
that the runner resolves to a call-graph node so routes can start from them.
"""

from __future__ import annotations

import re

from retrieval.languages.python.values import literal
from retrieval.survey.base import Hit, clip
from retrieval.survey.details import EntryDetail
from retrieval.survey.model import Category, EntryKind
from retrieval.survey.source import PyFile

_CLI_DECORATOR = re.compile(r"^(?:[\w.]+\.)?(command|group|callback)\b")
#: Calls in a ``__main__`` block that start a server, an event loop or a worker.
_SERVES = frozenset(
    {"run", "serve", "serve_forever", "listen", "run_forever", "run_until_complete", "start",
     "join", "run_app", "run_polling", "start_server", "mainloop", "wait", "communicate"}
)  # fmt: skip
#: Calls that run a module's own tests: the block is a self-test whatever else it does.
_TEST_RUNNERS = frozenset({"unittest.main", "pytest.main", "doctest.testmod", "doctest.testfile"})


def main_block_does(pf: PyFile) -> list[str]:
    """What the file's ``if __name__ == "__main__":`` block does, as an analyst tells a
    way of starting the system from a module's self-test: ``arguments`` (it parses a
    command line), ``serves`` (starts a server, event loop or a blocking worker, or loops
    with ``while``), ``main`` (calls a ``main``-named function), ``environment`` (reads its
    settings from environment variables); ``self_test`` when it runs a test framework."""
    if not pf.main_guard:
        return []
    start, end = pf.main_guard
    body = pf.snippet(start, end)
    calls = [c for c in pf.calls if start <= c.start_line <= end]
    lasts = {c.callee.rsplit(".", 1)[-1] for c in calls}
    if any(c.full in _TEST_RUNNERS for c in calls):
        return ["self_test"]
    does = []
    if any("parse_arg" in n or n == "parse_known_args" for n in lasts) or "sys.argv" in body:
        does.append("arguments")
    loops = any(
        start <= sp.start_line <= end and sp.extra.get("type") == "while" for sp in pf.loops
    )
    if lasts & _SERVES or loops:
        does.append("serves")
    if any(n == "main" or n.endswith("_main") for n in lasts):
        does.append("main")
    if re.search(r"\bos\.environ\b|\bgetenv\(", body):
        does.append("environment")
    return does


def python_entries(pf: PyFile) -> list[Hit]:
    hits: list[Hit] = []
    if pf.main_guard:
        start = pf.main_guard[0]
        hits.append(
            Hit.at_line(
                pf.path,
                start,
                symbol="<main>",
                category=Category.ENTRY_POINT,
                kind="main_guard",
                detail={"module": pf.module, "does": main_block_does(pf)},
            )
        )
    for c in pf.calls:
        last = c.full.rsplit(".", 1)[-1]
        if last == "ArgumentParser" and ("argparse" in c.full or pf.uses("argparse")):
            desc = literal(c.kwargs.get("description", "")) or ""
            hits.append(
                Hit.at_call(
                    pf,
                    c,
                    category=Category.ENTRY_POINT,
                    kind="argparse",
                    detail={"description": desc} if desc else {},
                )
            )
        elif last == "add_argument" and pf.uses("argparse") and c.positional:
            opt = literal(c.positional[0]) or ""
            if opt.startswith("-") and re.search(
                r"model|endpoint|url|api|key|provider|temperature", opt
            ):
                hits.append(
                    Hit.at_call(
                        pf,
                        c,
                        category=Category.CONFIG_READ,
                        kind="cli_option",
                        detail={"option": opt, "default": clip(c.kwargs.get("default", ""), 80)},
                    )
                )
    if pf.uses("click", "typer"):
        for d in pf.defs:
            for dec in d.decorators:
                m = _CLI_DECORATOR.match(dec)
                if m and not dec.startswith(("property", "staticmethod")):
                    kind: EntryKind = "typer" if pf.uses("typer") else "click"
                    hits.append(
                        Hit(
                            category=Category.ENTRY_POINT,
                            kind=kind,
                            path=pf.path,
                            start_line=d.start_line,
                            end_line=d.def_line,
                            symbol=d.symbol,
                            detail={"decorator": clip(dec, 80), "function": d.symbol},
                        )
                    )
                    break
    return hits


_SCRIPT_LINE = re.compile(
    r"^\s*([A-Za-z0-9_.\-]+)\s*=\s*['\"]?([A-Za-z0-9_.]+):([A-Za-z0-9_.]+)['\"]?"
)


_SETUP_SCRIPT = re.compile(r"['\"]([A-Za-z0-9_.\-]+)\s*=\s*([A-Za-z0-9_.]+):([A-Za-z0-9_.]+)['\"]")


def console_scripts(path: str, text: str) -> list[Hit]:
    """``name = "pkg.mod:func"`` lines of [project.scripts], poetry scripts, setup.cfg, setup.py."""
    hits: list[Hit] = []
    lines = text.split("\n")
    in_section = False
    for i, line in enumerate(lines, 1):
        s = line.strip()
        if path.endswith(".toml") or path.endswith(".cfg"):
            if s.startswith("["):
                in_section = s in (
                    "[project.scripts]",
                    "[tool.poetry.scripts]",
                    "[project.gui-scripts]",
                )
                continue
            if path.endswith(".cfg") and s.startswith("console_scripts"):
                in_section = True
                continue
            if not in_section:
                continue
        # setup.py names them inside a string anywhere on the line; the others start it
        m = _SETUP_SCRIPT.search(s) if path.endswith("setup.py") else _SCRIPT_LINE.match(s)
        if m:
            hits.append(
                Hit.at_line(
                    path,
                    i,
                    symbol="<module>",
                    category=Category.ENTRY_POINT,
                    kind="console_script",
                    detail={
                        "script": m.group(1),
                        "target_module": m.group(2),
                        "target_function": m.group(3),
                    },
                )
            )
    return hits


_PY_RUN = re.compile(
    r"(?:^|[\s;&|(\"'])(?:python[0-9.]*|uv run(?: python)?|poetry run python)\s+(?:-u\s+)?"
    r"(-m\s+([A-Za-z0-9_.]+)|([A-Za-z0-9_./\-]+\.py))"
)


def shell_entries(path: str, text: str) -> list[Hit]:
    """Lines of shell scripts and Dockerfiles that start Python."""
    hits: list[Hit] = []
    docker = path.rsplit("/", 1)[-1].startswith("Dockerfile")
    for i, line in enumerate(text.split("\n"), 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        if docker and not re.match(r"^(CMD|ENTRYPOINT)\b", s):
            continue
        m = _PY_RUN.search(s)
        if not m:
            continue
        detail: EntryDetail = {"command": clip(s, 120)}
        if m.group(2):
            detail["target_module"] = m.group(2)
        else:
            detail["target_path"] = m.group(3).removeprefix("./")
        hits.append(
            Hit.at_line(
                path,
                i,
                symbol="<script>",
                category=Category.ENTRY_POINT,
                kind="dockerfile" if docker else "shell",
                detail=detail,
            )
        )
    return hits
