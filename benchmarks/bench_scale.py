"""How drafter's costs grow with the repository: survey, offline draft and index at 1k/3k/10k files.

Generates synthetic Python repositories the same way every time (file ``i`` depends only on
``i``, so the 1,000-file repository is a subset of the 3,000 and that of the 10,000), with the
shapes the survey and the offline recipes look for spread over the files: model calls with
prompts, tool registries, subprocess effects, JSON state written and read back, environment
reads, entry points and tests.  For each size it runs the real commands as whole processes
(``drafter survey``, ``drafter draft --offline --no-index``, and the default offline draft
with the background index) and prints wall seconds and peak RSS, a bare tree-sitter parse of
the same files from git as the survey's reference, and the fitted growth exponent
(log time / log files) between the sizes.

    .venv/bin/python benchmarks/bench_scale.py [--sizes 1000,3000,10000] [--skip-default]
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_survey import commit_tree
from rich.console import Console
from rich.table import Table

BIN = Path(sys.executable).with_name("drafter")

_PLAIN = '''\
"""Helpers of part {i}."""
import json
import os

from pkg.part{prev} import step_{prev}

LIMIT_{i} = int(os.environ.get("LIMIT_{i}", "3"))


class Worker{i}:
    """Runs step {i} over a batch."""

    def __init__(self, name):
        self.name = name

    def run(self, items):
        out = []
        for item in items:
            out.append(step_{prev}(item))
        return out


def step_{i}(x):
    score = x * 2
    if score > LIMIT_{i}:
        return score - 1
    return score
'''

_MODEL = '''\
"""Asks the model about part {i}."""
import anthropic

from pkg.part{prev} import step_{prev}

PROMPT_{i} = """You are reviewer {i}. Read the candidate and answer with a score from 0 to 10.
Explain the weakest point first, then the strongest."""


def ask_{i}(candidate):
    client = anthropic.Anthropic()
    reply = client.messages.create(
        model="claude-sonnet-4-5",
        max_tokens=512,
        system=PROMPT_{i},
        messages=[{{"role": "user", "content": candidate}}],
    )
    return step_{prev}(len(reply.content))
'''

_TOOLS = '''\
"""Tools the agent of part {i} may call."""
import subprocess

from pkg.part{prev} import step_{prev}


def run_shell_{i}(command):
    return subprocess.run(command, shell=True, capture_output=True, text=True).stdout


def count_{i}(text):
    return step_{prev}(len(text))


TOOLS_{i} = {{"shell": run_shell_{i}, "count": count_{i}}}


def dispatch_{i}(name, args):
    if name not in TOOLS_{i}:
        raise KeyError(name)
    return TOOLS_{i}[name](**args)
'''

_STORE = '''\
"""State of part {i}, kept on disk between runs."""
import json
import os

from pkg.part{prev} import step_{prev}

STATE_{i} = os.path.join("runs", "state_{i}.json")


def save_{i}(state):
    with open(STATE_{i}, "w") as fh:
        json.dump(state, fh)


def load_{i}():
    if not os.path.exists(STATE_{i}):
        return {{}}
    with open(STATE_{i}) as fh:
        return json.load(fh)


def advance_{i}():
    state = load_{i}()
    state["n"] = step_{prev}(state.get("n", 0))
    save_{i}(state)
'''

_ENTRY = '''\
"""Command line of part {i}."""
import argparse

from pkg.part{prev} import step_{prev}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=3)
    args = parser.parse_args()
    print(step_{prev}(args.n))


if __name__ == "__main__":
    main()
'''

_TEST = """\
from pkg.part{i} import step_{i}


def test_step_{i}():
    assert step_{i}(1) >= 0
"""


def file_for(i: int) -> tuple[str, str]:
    """The path and text of generated file ``i``: a function of ``i`` alone."""
    prev = (i - 1) % max(i, 1) if i else 0
    kind = i % 20
    if kind == 19:
        return f"tests/test_part{i - 1}.py", _TEST.format(i=i - 1)
    template = _PLAIN
    if i % 100 == 1:
        template = _ENTRY
    elif kind in (3, 13):
        template = _MODEL
    elif kind == 7:
        template = _TOOLS
    elif kind == 11:
        template = _STORE
    return f"pkg/part{i}.py", template.format(i=i, prev=prev)


def generate(root: Path, n: int) -> Path:
    """A one-commit git repository of ``n`` generated files (plus a README and package init)."""
    (root / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "README.md").write_text(
        "# synthetic agent\n\nA generated system: every run starts fresh and the agent only "
        "runs shell commands the tool registry lists.\n"
    )
    for i in range(n):
        path, text = file_for(i)
        (root / path).write_text(text)
    return commit_tree(root)


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """Wall seconds, peak RSS in MiB and exit code of ``cmd`` run as a whole process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    took = time.perf_counter() - t0
    return took, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def bare_parse(repo: Path) -> float:
    """Seconds to read every Python file of HEAD from git and parse it once with tree-sitter."""
    code = (
        "import sys, time\n"
        "import tree_sitter_python as tsp\n"
        "from tree_sitter import Language, Parser\n"
        "from drafter.snapshot import Snapshot\n"
        "parser = Parser(Language(tsp.language()))\n"
        "t0 = time.perf_counter()\n"
        "with Snapshot(sys.argv[1], 'HEAD') as snap:\n"
        "    paths = [p for p in snap.files() if p.endswith('.py')]\n"
        "    snap.prefetch(paths)\n"
        "    for p in paths:\n"
        "        parser.parse(snap.read_bytes(p))\n"
        "print(time.perf_counter() - t0)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(repo)], capture_output=True, text=True, check=True
    )
    return float(out.stdout.strip())


def exponent(sizes: list[int], times: list[float]) -> str:
    """Least-squares slope of log time against log files: 1.0 is linear."""
    pts = [(math.log(n), math.log(t)) for n, t in zip(sizes, times, strict=True) if t > 0]
    if len(pts) < 2:
        return "-"
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    num = sum((x - mx) * (y - my) for x, y in pts)
    den = sum((x - mx) ** 2 for x, _ in pts)
    return f"{num / den:.2f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,3000,10000")
    ap.add_argument("--skip-default", action="store_true", help="no default (indexed) draft")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    console = Console()
    rows: dict[str, list[tuple[float, float, int]]] = {}
    parse: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            repo = generate(Path(tmp) / f"gen{n}", n)
            parse.append(bare_parse(repo))
            runs = {
                "survey": ["survey", str(repo), "--rev", "HEAD", "--json"],
                "draft --no-index": [
                    "draft",
                    str(repo),
                    "--rev",
                    "HEAD",
                    "--offline",
                    "--no-index",
                    "--out",
                    str(Path(tmp) / f"d{n}.json"),
                ],
            }
            if not args.skip_default:
                runs["draft (default)"] = [
                    "draft",
                    str(repo),
                    "--rev",
                    "HEAD",
                    "--offline",
                    "--out",
                    str(Path(tmp) / f"e{n}.json"),
                ]
            for what, argv in runs.items():
                data = Path(tmp) / f"data-{what.split()[0]}-{n}"
                env = {**os.environ, "DRAFTER_DATA_DIR": str(data)}
                rows.setdefault(what, []).append(timed([str(BIN), *argv], env))
                console.print(f"{n} files: {what} {rows[what][-1][0]:.1f} s", highlight=False)
    table = Table(title="growth with repository size (whole processes, empty data dirs)")
    table.add_column("step")
    for n in sizes:
        table.add_column(f"{n} files")
    table.add_column("exponent")
    table.add_row("bare parse (s)", *(f"{p:.2f}" for p in parse), exponent(sizes, parse))
    for what, vals in rows.items():
        cells = [
            f"{t:.1f} s, {rss:.0f} MiB" + ("" if rc in (0, 1) else f" exit {rc}")
            for t, rss, rc in vals
        ]
        table.add_row(what, *cells, exponent(sizes, [t for t, _, _ in vals]))
    survey = rows.get("survey", [])
    if survey:
        table.add_row(
            "survey / bare parse",
            *(f"{s[0] / p:.1f}x" for s, p in zip(survey, parse, strict=True)),
            "",
        )
    console.print(table)


if __name__ == "__main__":
    main()
