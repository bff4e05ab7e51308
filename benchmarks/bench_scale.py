"""How drafter's costs grow with the repository: survey, offline draft and index at 1k/3k/10k files.

Generates synthetic Python and TypeScript repositories the same way every time (file ``i``
depends only on ``i``, so the 1,000-file repository is a subset of the 3,000 and that of the
10,000; both languages take the same shape at the same ``i``), with the
shapes the survey and the offline recipes look for spread over the files: model calls with
prompts, tool registries, subprocess effects, JSON state written and read back, environment
reads, entry points and tests.  For each size it runs the real commands as whole processes
(``drafter survey``, ``drafter draft --offline --no-index``, and the default offline draft
with the background index) and prints wall and CPU seconds (user + system, children
included: on a shared machine CPU is the steadier figure) and peak RSS, a bare tree-sitter
parse of the same files from git as the survey's reference, the survey and default-draft
ratios, and the fitted growth exponent (log time / log files) between the sizes.

    .venv/bin/python benchmarks/bench_scale.py [--sizes 1000,3000,10000]
        [--languages python,typescript] [--skip-default]
"""

from __future__ import annotations

import argparse
import math
import os
import resource
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


_TS_PLAIN = """\
/** Helpers of part {i}. */
import {{ step{prev} }} from "./part{prev}";

export const LIMIT_{i} = Number(process.env.LIMIT_{i} ?? "3");

export class Worker{i} {{
  constructor(private readonly name: string) {{}}

  run(items: number[]): number[] {{
    const out: number[] = [];
    for (const item of items) {{
      out.push(step{prev}(item));
    }}
    return out;
  }}
}}

export function step{i}(x: number): number {{
  const score = x * 2;
  if (score > LIMIT_{i}) {{
    return score - 1;
  }}
  return score;
}}
"""

_TS_MODEL = """\
/** Asks the model about part {i}. */
import Anthropic from "@anthropic-ai/sdk";
import {{ step{prev} }} from "./part{prev}";

const PROMPT_{i} = `You are reviewer {i}. Read the candidate and answer with a score from 0 to 10.
Explain the weakest point first, then the strongest.`;

export async function ask{i}(candidate: string): Promise<number> {{
  const client = new Anthropic();
  const reply = await client.messages.create({{
    model: "claude-sonnet-4-5",
    max_tokens: 512,
    system: PROMPT_{i},
    messages: [{{ role: "user", content: candidate }}],
  }});
  return step{prev}(reply.content.length);
}}
"""

_TS_TOOLS = """\
/** Tools the agent of part {i} may call. */
import {{ execSync }} from "child_process";
import {{ step{prev} }} from "./part{prev}";

export function runShell{i}(command: string): string {{
  return execSync(command, {{ encoding: "utf8" }});
}}

export function count{i}(text: string): number {{
  return step{prev}(text.length);
}}

export const TOOLS_{i}: Record<string, (arg: string) => unknown> = {{
  shell: runShell{i},
  count: count{i},
}};

export function dispatch{i}(name: string, arg: string): unknown {{
  const tool = TOOLS_{i}[name];
  if (!tool) {{
    throw new Error(`unknown tool ${{name}}`);
  }}
  return tool(arg);
}}
"""

_TS_STORE = """\
/** State of part {i}, kept on disk between runs. */
import {{ existsSync, readFileSync, writeFileSync }} from "fs";
import {{ step{prev} }} from "./part{prev}";

const STATE_{i} = "runs/state_{i}.json";

export function save{i}(state: Record<string, number>): void {{
  writeFileSync(STATE_{i}, JSON.stringify(state));
}}

export function load{i}(): Record<string, number> {{
  if (!existsSync(STATE_{i})) {{
    return {{}};
  }}
  return JSON.parse(readFileSync(STATE_{i}, "utf8"));
}}

export function advance{i}(): void {{
  const state = load{i}();
  state.n = step{prev}(state.n ?? 0);
  save{i}(state);
}}
"""

_TS_ENTRY = """\
#!/usr/bin/env node
/** Command line of part {i}. */
import {{ step{prev} }} from "./part{prev}";

function main(): void {{
  const n = Number(process.argv[2] ?? "3");
  console.log(step{prev}(n));
}}

if (require.main === module) {{
  main();
}}
"""

_TS_TEST = """\
import {{ step{i} }} from "../src/part{i}";

test("step {i}", () => {{
  expect(step{i}(1)).toBeGreaterThanOrEqual(0);
}});
"""


def _shape(i: int) -> str:
    """Which shape generated file ``i`` takes, the same in both languages."""
    kind = i % 20
    if kind == 19:
        return "test"
    if i % 100 == 1:
        return "entry"
    return {3: "model", 13: "model", 7: "tools", 11: "store"}.get(kind, "plain")


_TS_SHAPES = {
    "plain": _TS_PLAIN,
    "entry": _TS_ENTRY,
    "model": _TS_MODEL,
    "tools": _TS_TOOLS,
    "store": _TS_STORE,
}


def ts_file_for(i: int) -> tuple[str, str]:
    """The path and text of generated TypeScript file ``i``: a function of ``i`` alone."""
    prev = (i - 1) % max(i, 1) if i else 0
    shape = _shape(i)
    if shape == "test":
        return f"test/part{i - 1}.test.ts", _TS_TEST.format(i=i - 1)
    return f"src/part{i}.ts", _TS_SHAPES[shape].format(i=i, prev=prev)


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


def generate(root: Path, n: int, language: str = "python") -> Path:
    """A one-commit git repository of ``n`` generated files of ``language`` (``python``
    or ``typescript``), plus a README and the package's manifest."""
    root.mkdir(parents=True)
    (root / "README.md").write_text(
        "# synthetic agent\n\nA generated system: every run starts fresh and the agent only "
        "runs shell commands the tool registry lists.\n"
    )
    if language == "typescript":
        (root / "package.json").write_text(
            '{"name": "synthetic-agent", "version": "1.0.0", "bin": {"agent": "src/part1.ts"}}\n'
        )
        make = ts_file_for
    else:
        (root / "pkg").mkdir()
        (root / "pkg" / "__init__.py").write_text("")
        make = file_for
    for i in range(n):
        path, text = make(i)
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return commit_tree(root)


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float, int]:
    """Wall seconds, CPU seconds (user + system, children included), peak RSS in MiB and
    exit code of ``cmd`` run as a whole process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    took = time.perf_counter() - t0
    cpu = usage.ru_utime + usage.ru_stime
    return took, cpu, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


_PARSE = """\
import sys, time
from drafter.snapshot import Snapshot
from retrieval.languages import by_name
from tree_sitter import Parser
lang = by_name(sys.argv[2])
parsers = {}
t0 = time.perf_counter()
with Snapshot(sys.argv[1], "HEAD") as snap:
    paths = [p for p in snap.files() if lang.owns(p)]
    snap.prefetch(paths)
    for p in paths:
        grammar = lang.grammar(p)
        parser = parsers.setdefault(id(grammar), Parser(grammar))
        parser.parse(snap.read_bytes(p))
print(time.perf_counter() - t0)
"""


def bare_parse(repo: Path, language: str) -> tuple[float, float]:
    """Wall and CPU seconds to read every source file of ``language`` at HEAD from git
    and parse it once with its tree-sitter grammar.  The wall figure leaves out the
    interpreter's start and imports; the CPU figure is the whole process's, git's
    included (call :func:`_children_cpu_since_last` first)."""
    out = subprocess.run(
        [sys.executable, "-c", _PARSE, str(repo), language],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(out.stdout.strip()), _children_cpu_since_last()


_last_children = [0.0]


def _children_cpu_since_last() -> float:
    """CPU seconds of reaped children since the previous call (the bare parse's)."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    now = ru.ru_utime + ru.ru_stime
    took, _last_children[0] = now - _last_children[0], now
    return took


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


Run = tuple[float, float, float, int]


def _commands(repo: Path, tmp: Path, tag: str, with_default: bool) -> dict[str, list[str]]:
    runs = {
        "survey": ["survey", str(repo), "--rev", "HEAD", "--json"],
        "draft --no-index": ["draft", str(repo), "--rev", "HEAD", "--offline", "--no-index"],
    }
    runs["draft --no-index"] += ["--out", str(tmp / f"d{tag}.json")]
    if with_default:
        runs["draft (default)"] = ["draft", str(repo), "--rev", "HEAD", "--offline"]
        runs["draft (default)"] += ["--out", str(tmp / f"e{tag}.json")]
    return runs


def _table(
    language: str, sizes: list[int], parse: list[tuple[float, float]], rows: dict[str, list[Run]]
) -> Table:
    table = Table(
        title=f"{language}: growth with repository size (whole processes, empty data dirs)"
    )
    table.add_column("step")
    for n in sizes:
        table.add_column(f"{n} files")
    table.add_column("exponent (wall / cpu)")
    table.add_row(
        "bare parse (wall, cpu)",
        *(f"{w:.2f} s, cpu {c:.2f} s" for w, c in parse),
        f"{exponent(sizes, [w for w, _ in parse])} / {exponent(sizes, [c for _, c in parse])}",
    )
    for what, vals in rows.items():
        cells = [
            f"{t:.1f} s, cpu {c:.1f} s, {rss:.0f} MiB" + ("" if rc in (0, 1) else f" exit {rc}")
            for t, c, rss, rc in vals
        ]
        wall = exponent(sizes, [t for t, _, _, _ in vals])
        cpu = exponent(sizes, [c for _, c, _, _ in vals])
        table.add_row(what, *cells, f"{wall} / {cpu}")
    survey = rows.get("survey", [])
    if survey:
        table.add_row(
            "survey / bare parse (wall, cpu)",
            *(
                f"{s[0] / p[0]:.1f}x, {s[1] / p[1]:.1f}x"
                for s, p in zip(survey, parse, strict=True)
            ),
            "",
        )
    plain, default = rows.get("draft --no-index", []), rows.get("draft (default)", [])
    if plain and default:
        table.add_row(
            "default / --no-index (wall, cpu)",
            *(
                f"{d[0] / p[0]:.1f}x, {d[1] / p[1]:.1f}x"
                for d, p in zip(default, plain, strict=True)
            ),
            "",
        )
    return table


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,3000,10000")
    ap.add_argument("--languages", default="python,typescript", help="python, typescript or both")
    ap.add_argument("--skip-default", action="store_true", help="no default (indexed) draft")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    console = Console()
    _children_cpu_since_last()
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        for language in args.languages.split(","):
            rows: dict[str, list[Run]] = {}
            parse: list[tuple[float, float]] = []
            for n in sizes:
                repo = generate(tmp / f"{language}{n}", n, language)
                _children_cpu_since_last()  # the generator's git runs are not the parse's
                parse.append(bare_parse(repo, language))
                for what, argv in _commands(
                    repo, tmp, f"{language}{n}", not args.skip_default
                ).items():
                    data = tmp / f"data-{language}-{what.split()[-1].strip('()-')}-{n}"
                    env = {**os.environ, "DRAFTER_DATA_DIR": str(data)}
                    rows.setdefault(what, []).append(timed([str(BIN), *argv], env))
                    got = rows[what][-1]
                    console.print(
                        f"{language} {n} files: {what} {got[0]:.1f} s, cpu {got[1]:.1f} s",
                        highlight=False,
                    )
            console.print(_table(language, sizes, parse, rows))


if __name__ == "__main__":
    main()
