"""Evaluation suites: several (repository, revision, gold, draft) items, one table.

Why suites: a change to a prompt, a model or a survey rule must be judged on more than
one repository, and against the last run, or regressions slip through.  Each run is
saved as JSON with a timestamp and the drafter version, and compared with the newest
earlier run of the same suite.

Suite file (TOML)::

    name = "nightly"            # optional; default: the file's stem
    similarity = "embed"        # optional: embed | lexical
    threshold = 0.3             # optional alignment threshold (default: the method's)
    alignment = "coverage"      # optional: coverage | best-gold | one-to-one
    baselines = true            # optional: also score the trivial drafts per item

    [[items]]
    name = "sample"
    repo = "sample"             # "sample" = the shipped sample; else a path (relative
                                # to the suite file) to a work tree, .git or bare repo;
                                # optional with a draft file that names a folder
    rev = "HEAD"                # optional for the sample (its fixed commit) and with a
                                # draft file (the revision the draft names)
    gold = "sample"             # "sample" = the sample gold set; else a report path
    draft = "drafts/x.json"     # a draft file ...
    # proposer = "offline"      # ... or draft now: "offline", or a Claude model name
    # draft_args = ["--no-index"]  # extra options for that ``drafter draft`` run

"Draft now" runs the ``drafter draft`` command in a child process rather than
importing the drafting workflow: evals must not depend on ``graph`` (the dependency
rule), and a child process also keeps a crashing proposer from taking the suite down.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.table import Table

from drafter import __version__
from drafter.config import data_dir
from drafter.errors import BadInput, DrafterError
from drafter.snapshot import Snapshot
from evals.alignment import DEFAULT_METHOD, METHODS
from evals.evaluate import evaluate
from evals.gold import load, sample_gold_path, source_of
from evals.scorecard import fmt
from evals.similarity import BACKENDS

SAMPLE = "sample"
#: Overall scores shown in the suite table and compared between runs.
HEADLINE = (
    ("f1", "rec F1"),
    ("precision", "rec P"),
    ("recall", "rec R"),
    ("file_recall", "gold-w file R"),
    ("line_recall", "gold-w line R"),
    ("line_precision", "draft-w line P"),
    ("validity", "valid"),
    ("status_agreement", "status agr"),
    ("route_agreement", "route agr"),
    ("lead_agreement", "lead agr"),
    ("equivalent_recall", "gold-w equiv R"),
)
DRAFT_TIMEOUT_S = 3600
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,80}$")


@dataclass(frozen=True, slots=True)
class SuiteItem:
    name: str
    repo: str | None  # None: the repository the draft file names
    rev: str | None  # None: the draft's revision (or the sample's commit)
    gold: str
    draft: str | None = None
    proposer: str | None = None
    draft_args: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Suite:
    name: str
    path: Path
    items: list[SuiteItem]
    similarity: str = "embed"
    threshold: float | None = None  # None: the alignment method's own default
    method: str = DEFAULT_METHOD
    baselines: bool = True


@dataclass(slots=True)
class ItemResult:
    name: str
    overall: dict[str, Any] | None = None
    kinds: dict[str, Any] = field(default_factory=dict)
    baselines: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    seconds: float = 0.0


def _str(item: dict[str, Any], key: str, where: str, required: bool = True) -> str | None:
    v = item.get(key)
    if v is None:
        if required:
            raise BadInput(f"{where}: missing '{key}'")
        return None
    if not isinstance(v, str) or not v.strip():
        raise BadInput(f"{where}: '{key}' must be a non-empty string")
    return v


def load_suite(path: Path) -> Suite:
    """Read and check a suite file; every problem is a one-line BadInput."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BadInput(f"suite file {path} does not exist") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise BadInput(f"{path}: not valid TOML: {exc}") from None
    name = data.get("name", path.stem)
    if not isinstance(name, str) or not _NAME.match(name):
        raise BadInput(f"{path}: suite name {name!r} must be letters, digits, '.', '_' or '-'")
    similarity = data.get("similarity", "embed")
    if similarity not in BACKENDS:
        raise BadInput(f"{path}: similarity must be one of {', '.join(BACKENDS)}")
    threshold = data.get("threshold")
    if threshold is not None and (
        not isinstance(threshold, int | float) or not 0 <= threshold <= 1
    ):
        raise BadInput(f"{path}: threshold must be a number between 0 and 1")
    method = data.get("alignment", DEFAULT_METHOD)
    if method not in METHODS:
        raise BadInput(f"{path}: alignment must be one of {', '.join(METHODS)}")
    baselines = data.get("baselines", True)
    if not isinstance(baselines, bool):
        raise BadInput(f"{path}: baselines must be true or false")
    raw = data.get("items")
    if not isinstance(raw, list) or not raw:
        raise BadInput(f"{path}: needs at least one [[items]] table")
    items: list[SuiteItem] = []
    seen: set[str] = set()
    for n, it in enumerate(raw, 1):
        where = f"{path}: item {n}"
        if not isinstance(it, dict):
            raise BadInput(f"{where}: must be a table")
        unknown = set(it) - {"name", "repo", "rev", "gold", "draft", "proposer", "draft_args"}
        if unknown:
            raise BadInput(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
        item_name = _str(it, "name", where) or ""
        if item_name in seen:
            raise BadInput(f"{where}: duplicate item name {item_name!r}")
        seen.add(item_name)
        draft = _str(it, "draft", where, required=False)
        repo = _str(it, "repo", where, required=draft is None)
        rev = _str(it, "rev", where, required=draft is None and repo != SAMPLE)
        gold = _str(it, "gold", where) or ""
        proposer = _str(it, "proposer", where, required=False)
        if (draft is None) == (proposer is None):
            raise BadInput(f"{where}: give exactly one of 'draft' (a file) or 'proposer'")
        extra = it.get("draft_args", [])
        if not isinstance(extra, list) or not all(isinstance(a, str) for a in extra):
            raise BadInput(f"{where}: 'draft_args' must be a list of strings")
        if extra and proposer is None:
            raise BadInput(f"{where}: 'draft_args' only applies with 'proposer'")
        items.append(SuiteItem(item_name, repo, rev, gold, draft, proposer, tuple(extra)))
    th = None if threshold is None else float(threshold)
    return Suite(name, path, items, similarity, th, method, baselines)


def _resolve(base: Path, p: str) -> Path:
    q = Path(p).expanduser()
    return q if q.is_absolute() else (base / q)


def draft_now(
    repo: Path | str, rev: str, proposer: str, out: Path, extra: tuple[str, ...] = ()
) -> None:
    """Run ``drafter draft`` in a child process; raise BadInput with its last error line."""
    args = [sys.executable, "-c", "from drafter.cli import run; run()", "draft", str(repo)]
    args += ["--rev", rev, "--out", str(out)]
    args += ["--offline"] if proposer == "offline" else ["--model", proposer]
    args += list(extra)
    proc = subprocess.run(args, capture_output=True, text=True, timeout=DRAFT_TIMEOUT_S)
    if proc.returncode != 0 or not out.is_file():
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise BadInput(f"drafter draft ({proposer}) failed with exit {proc.returncode}: {tail}")


def _item_source(item: SuiteItem, base: Path) -> tuple[Path | str, str]:
    """Repository and revision of an item; missing ones come from its draft file."""
    if item.repo == SAMPLE:
        from drafter.sample import SAMPLE_SHA, materialize

        sample = materialize(data_dir() / "sample" / "tinkerbot").path
        return sample, SAMPLE_SHA if item.rev in (None, "HEAD") else item.rev
    if item.repo is not None and item.rev is not None:
        return _resolve(base, item.repo), item.rev
    draft_path = _resolve(base, item.draft or "")
    repo, rev = source_of(
        load(draft_path, "draft"),
        None if item.repo is None else str(_resolve(base, item.repo)),
        item.rev,
        str(draft_path),
    )
    return repo, rev


def run_item(suite: Suite, item: SuiteItem, workdir: Path) -> ItemResult:
    """Evaluate one item; errors become the item's result, never the suite's crash."""
    started = time.perf_counter()
    result = ItemResult(item.name)
    base = suite.path.parent
    try:
        repo, rev = _item_source(item, base)
        gold_path = sample_gold_path() if item.gold == SAMPLE else _resolve(base, item.gold)
        with Snapshot(repo, rev) as snap:
            if item.proposer is not None:
                draft_path = workdir / f"{item.name}.draft.json"
                draft_now(repo, snap.sha, item.proposer, draft_path, item.draft_args)
            else:
                draft_path = _resolve(base, item.draft or "")
            card = evaluate(
                load(gold_path, "gold"),
                load(draft_path, "draft"),
                snap,
                similarity=suite.similarity,
                threshold=suite.threshold,
                method=suite.method,
                baselines=suite.baselines,
                gold_name=str(gold_path),
                draft_name=str(draft_path),
            )
        data = card.to_dict()
        result.overall = data["overall"]
        result.kinds = data["kinds"]
        result.baselines = data["baselines"]
    except (DrafterError, subprocess.TimeoutExpired, OSError) as exc:
        result.error = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    result.seconds = time.perf_counter() - started
    return result


def run_suite(
    suite: Suite,
    started: Callable[[str], object] | None = None,
    finished: Callable[[str], object] | None = None,
) -> list[ItemResult]:
    """Run every item in order; drafts made now live in a temporary folder."""
    results: list[ItemResult] = []
    with tempfile.TemporaryDirectory(prefix="drafter-eval-") as tmp:
        for item in suite.items:
            if started:
                started(item.name)
            results.append(run_item(suite, item, Path(tmp)))
            if finished:
                finished(item.name)
    return results


# -- saved runs -------------------------------------------------------------------------


def results_dir(override: Path | None) -> Path:
    d = override if override is not None else data_dir() / "evals"
    d.mkdir(parents=True, exist_ok=True)
    return d


def save_run(suite: Suite, results: list[ItemResult], directory: Path) -> Path:
    """Write the run beside earlier ones; the file name sorts by time."""
    now = datetime.now(UTC)
    payload = {
        "suite": suite.name,
        "suite_file": str(suite.path),
        "created": now.isoformat(timespec="seconds"),
        "drafter_version": __version__,
        "similarity": suite.similarity,
        "threshold": suite.threshold,
        "alignment": suite.method,
        "items": [
            {
                "name": r.name,
                "overall": r.overall,
                "kinds": r.kinds,
                "baselines": r.baselines,
                "error": r.error,
                "seconds": round(r.seconds, 3),
            }
            for r in results
        ],
    }
    path = directory / f"{suite.name}-{now.strftime('%Y%m%dT%H%M%S%fZ')}.json"
    path.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return path


def previous_run(
    suite: Suite, directory: Path, exclude: Path | None = None
) -> dict[str, Any] | None:
    """The newest saved run of this suite other than ``exclude``; unreadable files skipped."""
    candidates = sorted(directory.glob(f"{suite.name}-*.json"), reverse=True)
    for p in candidates:
        if exclude is not None and p.resolve() == exclude.resolve():
            continue
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get("suite") == suite.name:
            data["_file"] = str(p)
            return data
    return None


# -- tables -----------------------------------------------------------------------------


def suite_table(suite: Suite, results: list[ItemResult]) -> Table:
    t = Table(title=f"suite {suite.name} — {len(results)} item(s), drafter {__version__}")
    t.add_column("item")
    for _, title in HEADLINE:
        t.add_column(title, justify="right")
    t.add_column("s", justify="right")
    for r in results:
        if r.overall is None:
            t.add_row(
                r.name,
                f"[red]error: {r.error}[/red]",
                *[""] * (len(HEADLINE) - 1),
                f"{r.seconds:.1f}",
            )
            continue
        t.add_row(r.name, *(fmt(r.overall.get(k)) for k, _ in HEADLINE), f"{r.seconds:.1f}")
        for name, row in r.baselines.items():
            t.add_row(
                f"  baseline: {name}",
                *(fmt(row.get(k)) for k, _ in HEADLINE),
                "",
                style="dim",
            )
    return t


def _delta(now: float | None, before: float | None) -> str:
    if now is None or before is None:
        return "—"
    d = now - before
    if abs(d) < 0.005:
        return "="
    colour = "green" if d > 0 else "red"
    return f"[{colour}]{d:+.2f}[/{colour}]"


def comparison_table(results: list[ItemResult], previous: dict[str, Any]) -> Table:
    """Per item and headline score: the change since the previous run (+ is better)."""
    t = Table(
        title=(
            f"change since {previous.get('created', '?')} "
            f"(drafter {previous.get('drafter_version', '?')})"
        )
    )
    t.add_column("item")
    for _, title in HEADLINE:
        t.add_column(title, justify="right")
    before = {i.get("name"): i for i in previous.get("items", []) if isinstance(i, dict)}
    for r in results:
        old = before.get(r.name)
        if old is None or r.overall is None or not isinstance(old.get("overall"), dict):
            t.add_row(r.name, "new" if old is None else "n/a", *[""] * (len(HEADLINE) - 1))
            continue
        t.add_row(r.name, *(_delta(r.overall.get(k), old["overall"].get(k)) for k, _ in HEADLINE))
    return t
