"""Survey time per 1,000 source files: TypeScript against Python.

Two generated repositories of the same shape and size -- ``--files`` modules that import
each other in a ring, each with a class, a loop, a subprocess call, a JSON write and an
environment read -- one written in TypeScript, one in Python, are surveyed the same way;
then, when the mirrors are on this machine, real ones: openai-agents-js (about 950
TypeScript files), and the mixed OpenHands repository surveyed twice, once with only
Python in the language table (about 1,100 Python files) and once with only TypeScript
(about 870 files): no Python repository on this machine is as large, and the two halves
of one repository make a fair pair.  Prints seconds, seconds per 1,000 source files of
the language, and findings.

    .venv/bin/python benchmarks/bench_survey_langs.py [--files 1000] [--no-real]
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench_survey import MIRRORS
from bench_survey import generate_repo as generate_python
from rich.console import Console
from rich.table import Table

from drafter.snapshot import Snapshot
from retrieval import languages
from retrieval.survey import run_survey

_TS_MODULE = """\
/** Generated module {i}. */
import {{ writeFileSync }} from "node:fs";
import {{ spawnSync }} from "node:child_process";
import {{ step{prev} }} from "./m{prev}";

const LIMIT_{i} = Number(process.env.LIMIT_{i} ?? "3");

export class Worker{i} {{
  constructor(private name: string) {{}}

  run(items: number[]): number[] {{
    const out: number[] = [];
    for (const item of items) {{
      out.push(step{prev}(item));
    }}
    if (out.length >= LIMIT_{i}) {{
      spawnSync("echo", [this.name]);
    }}
    return out;
  }}
}}

export function step{i}(x: number): number {{
  const score = x * 2;
  if (score > 10) {{
    writeFileSync("out/{i}.json", JSON.stringify({{ score }}));
  }}
  return score;
}}
"""

_OH = MIRRORS / "All-Hands-AI+OpenHands" / "repo"
REAL = [
    (
        "openai-agents-js (TS)",
        MIRRORS / "openai+openai-agents-js" / "repo",
        "6d0c61a5",
        "typescript",
    ),
    ("OpenHands, Python only", _OH, "156d0686c4", "python"),
    ("OpenHands, TypeScript only", _OH, "156d0686c4", "typescript"),
    ("smolagents (Python)", MIRRORS / "huggingface+smolagents" / "repo", "HEAD", "python"),
]


def generate_typescript(root: Path, n: int) -> Path:
    """A git repository of ``n`` TypeScript files importing each other in a ring."""
    src = root / "src"
    src.mkdir(parents=True)
    for i in range(n):
        (src / f"m{i}.ts").write_text(_TS_MODULE.format(i=i, prev=(i - 1) % n))
    cmd = ["git", "-C", str(root)]
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run([*cmd, "add", "-A"], check=True)
    ident = ["-c", "user.name=b", "-c", "user.email=b@b"]
    subprocess.run([*cmd, *ident, "commit", "-q", "-m", "gen"], check=True)
    return root


@contextmanager
def only(language: str) -> Iterator[None]:
    """The language table holding ``language`` alone, for the time of one survey."""
    saved = languages.LANGUAGES
    languages.LANGUAGES = tuple(lang for lang in saved if lang.name == language)
    try:
        yield
    finally:
        languages.LANGUAGES = saved


def survey_row(repo: Path, rev: str, language: str) -> tuple[float, float, int, int, int]:
    """Wall and CPU seconds (the machine may be shared: CPU seconds compare fairly),
    files of ``language`` surveyed, findings, call-graph nodes."""
    with Snapshot(repo, rev) as snap, only(language):
        t0, c0 = time.perf_counter(), time.process_time()
        sv = run_survey(snap)
        took, cpu = time.perf_counter() - t0, time.process_time() - c0
    files = sum(s.surveyed for s in sv.languages if s.name == language)
    return took, cpu, files, len(sv.findings), len(sv.call_graph.functions)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--no-real", action="store_true")
    args = ap.parse_args()
    table = Table(title="survey time per 1,000 source files")
    cols = ("repository", "files", "wall s", "CPU s", "CPU s / 1,000 files", "findings", "nodes")
    for col in cols:
        table.add_column(col, justify="right" if col != "repository" else "left")
    rows: list[tuple[str, Path, str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        ts = generate_typescript(Path(tmp) / "ts", args.files)
        py = generate_python(Path(tmp) / "py", args.files)
        rows += [
            (f"generated TypeScript ({args.files})", ts, "HEAD", "typescript"),
            (f"generated Python ({args.files})", py, "HEAD", "python"),
        ]
        if not args.no_real:
            rows += [r for r in REAL if r[1].exists()]
        for name, repo, rev, lang in rows:
            took, cpu, files, findings, nodes = survey_row(repo, rev, lang)
            per = cpu / files * 1000 if files else float("nan")
            cells = (f"{took:.1f}", f"{cpu:.1f}", f"{per:.1f}", str(findings), str(nodes))
            table.add_row(name, str(files), *cells)
    Console(width=120).print(table)


if __name__ == "__main__":
    main()
