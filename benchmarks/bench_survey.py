"""Survey speed, and how an offline draft of a real repository compares with its gold.

Prints, for a generated 2,000-file repository and (when present locally) the
HyperAgents and auto-harness mirrors: survey seconds, files/s and findings.  For the
mirrors it also drafts offline and prints records per kind, witnesses, the verified
share, and the overlap with the gold report's witnesses at file and at line level
(gold witnesses located with the verifier; those absent at the revision left out).

    .venv/bin/python benchmarks/bench_survey.py [--files 2000] [--no-gold]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.table import Table

from drafter.reportio import load_report
from drafter.snapshot import Snapshot
from drafter.verify import Verifier, verify_report
from graph.offline_run import draft_offline
from retrieval.survey import run_survey

MIRRORS = Path("/work/.mirror")
GOLD = Path(__file__).resolve().parents[2] / "shared" / "gold"
REAL = [
    (
        "HyperAgents",
        MIRRORS / "facebookresearch+HyperAgents" / "repo",
        "59a68f672dfb92c74aeb7e61535d776fb36e172d",
        "hyperagents.epistemic.txt",
    ),
    (
        "auto-harness",
        MIRRORS / "neosigmaai+auto-harness" / "repo",
        "bf052bc6d5c5deb6a396c5c0032af530ac93cd87",
        "auto-harness.runtime.txt",
    ),
]

_MODULE = '''\
"""Generated module {i}."""
import json
import os
import subprocess

from pkg.m{prev} import step_{prev}

LIMIT_{i} = int(os.environ.get("LIMIT_{i}", "3"))


class Worker{i}:
    def __init__(self, name):
        self.name = name

    def run(self, items):
        out = []
        for item in items:
            out.append(step_{prev}(item))
        if len(out) >= LIMIT_{i}:
            subprocess.run(["echo", self.name], check=False)
        return out


def step_{i}(x):
    score = x * 2
    if score > 10:
        with open("out/{i}.json", "w") as f:
            json.dump({{"score": score}}, f)
    return score
'''


def commit_tree(root: Path) -> Path:
    """Make ``root`` a git repository of one commit holding its files, with fixed dates
    so the same files give the same commit every time."""
    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": "2025-01-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2025-01-01T00:00:00Z",
    }
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True, env=env)
    subprocess.run(
        [
            "git",
            "-C",
            str(root),
            "-c",
            "user.name=b",
            "-c",
            "user.email=b@b",
            "commit",
            "-qm",
            "gen",
        ],
        check=True,
        env=env,
    )
    return root


def generate_repo(root: Path, n: int) -> Path:
    """A git repository of ``n`` Python files that import each other in a ring."""
    pkg = root / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    for i in range(n):
        (pkg / f"m{i}.py").write_text(_MODULE.format(i=i, prev=(i - 1) % n))
    return commit_tree(root)


def time_survey(repo: Path, rev: str) -> tuple[float, int, int, int]:
    with Snapshot(repo, rev) as snap:
        t0 = time.perf_counter()
        sv = run_survey(snap)
        took = time.perf_counter() - t0
    return took, sv.python_files, sv.files_total, len(sv.findings)


def gold_overlap(repo: Path, rev: str, gold_file: Path) -> dict[str, object]:
    with Snapshot(repo, rev) as snap:
        draft = verify_report(draft_offline(repo, rev, system=repo.parent.name), snap)
        gold = verify_report(load_report(gold_file), snap, verifier=Verifier(snap))
    dw = [w for w in draft.witnesses if w.verified]
    gw = [w for w in gold.witnesses if w.verified]
    draft_files = {w.path for w in dw}
    gold_files = {w.path for w in gw}
    line_hits = sum(
        1
        for g in gw
        if any(d.path == g.path and d.verification.lines.overlaps(g.verification.lines) for d in dw)
    )
    return {
        "records": dict(sorted(Counter(r.kind for r in draft.records).items())),
        "witnesses": len(draft.witnesses),
        "verified": f"{len(dw)}/{len(draft.witnesses)}",
        "gold witnesses at rev": f"{len(gw)}/{len(gold.witnesses)}",
        "gold files cited": f"{len(gold_files & draft_files)}/{len(gold_files)}",
        "gold lines overlapped": f"{line_hits}/{len(gw)}",
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--no-gold", action="store_true", help="skip the offline drafts of the mirrors")
    args = ap.parse_args()
    console = Console()
    speed = Table(title="survey time")
    for col in ("repository", "python files", "files", "findings", "seconds", "files/s"):
        speed.add_column(col)
    with tempfile.TemporaryDirectory() as tmp:
        repo = generate_repo(Path(tmp) / "gen", args.files)
        took, py, total, nf = time_survey(repo, "HEAD")
        speed.add_row(
            f"generated {args.files}",
            str(py),
            str(total),
            str(nf),
            f"{took:.2f}",
            f"{py / took:.0f}",
        )
    for name, repo, rev, _ in REAL:
        if repo.exists():
            took, py, total, nf = time_survey(repo, rev)
            speed.add_row(
                f"{name} {rev[:7]}", str(py), str(total), str(nf), f"{took:.2f}", f"{py / took:.0f}"
            )
    console.print(speed)
    if args.no_gold:
        return
    for name, repo, rev, gold in REAL:
        if not repo.exists() or not (GOLD / gold).exists():
            continue
        res = gold_overlap(repo, rev, GOLD / gold)
        t = Table(title=f"offline draft of {name} {rev[:7]} vs {gold}")
        t.add_column("measure")
        t.add_column("value")
        for k, v in res.items():
            t.add_row(k, str(v))
        console.print(t)


if __name__ == "__main__":
    main()
