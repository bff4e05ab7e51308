"""The survey's rule registry: a rule registered through it runs, and every detector the
survey calls is in it (a detector called straight from the runner or elsewhere fails)."""

from __future__ import annotations

import ast
from pathlib import Path

from gitrepo import make_repo

from drafter.snapshot import Snapshot
from retrieval.survey import run_survey
from retrieval.survey.base import Hit
from retrieval.survey.model import Category
from retrieval.survey.registry import Repo, TextFile
from retrieval.survey.rules import RULES
from retrieval.survey.source import PyFile

ROOT = Path(__file__).resolve().parents[1]
SURVEY_DIR = ROOT / "retrieval" / "survey"
#: Where rules may be called from besides their own module.
#: Where rules are registered: the text and repository rules, and each language's rules.
REGISTRY_MODULES = {"retrieval/survey/rules.py"} | {
    p.relative_to(ROOT).as_posix() for p in (ROOT / "retrieval" / "languages").glob("*/rules.py")
}

FILES = {
    "app.py": 'def marker():\n    return 1\n\n\nif __name__ == "__main__":\n    marker()\n',
}


def _markers(pf: PyFile) -> list[Hit]:
    """A test detector: every function named ``marker`` is a gate."""
    return [
        Hit(
            category=Category.GATING,
            kind="threshold",
            path=pf.path,
            start_line=d.start_line,
            end_line=d.start_line,
            symbol=d.symbol,
            detail={"source": "test rule"},
        )
        for d in pf.defs
        if d.name == "marker"
    ]


def test_a_rule_registered_through_the_registry_runs(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", FILES)
    rules = RULES.copy()
    rule = rules.python("markers", _markers, applies_to="functions named marker")
    assert rule in rules.all() and rule not in RULES.all()
    with Snapshot(repo, "HEAD") as snap:
        with_rule = run_survey(snap, rules=rules)
        without = run_survey(snap)
    got = [f for f in with_rule.findings if f.detail.get("source") == "test rule"]
    assert [(f.id, f.snippet) for f in got] == [("gating:app.py:1", "def marker():")]
    assert not [f for f in without.findings if f.detail.get("source") == "test rule"]


def test_a_text_rule_sees_what_earlier_rules_found_in_the_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {**FILES, "run.sh": "#!/bin/sh\npython app.py\n"})
    seen: list[list[str]] = []

    def spy(tf: TextFile, repo: Repo) -> list[Hit]:
        seen.append(sorted(tf.earlier))
        return []

    rules = RULES.copy()
    rules.text(
        "spy",
        spy,
        applies_to="run.sh",
        when=lambda tf: tf.path == "run.sh",
        call=spy,
    )
    with Snapshot(repo, "HEAD") as snap:
        run_survey(snap, rules=rules)
    assert seen == [["prompt files", "shell entries"]]


def test_rule_names_are_unique() -> None:
    rules = RULES.copy()
    try:
        rules.python("gating", _markers)
    except ValueError as exc:
        assert "gating" in str(exc)
    else:
        raise AssertionError("a second rule named 'gating' was accepted")


def _detectors() -> dict[str, str]:
    """Public module-level functions of retrieval/survey and of each language's folder
    (its rule families) returning ``list[Hit]``: name -> the file defining it."""
    out: dict[str, str] = {}
    own = sorted((ROOT / "retrieval" / "languages").glob("*/*.py"))
    for path in sorted(SURVEY_DIR.glob("*.py")) + own:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if (
                isinstance(node, ast.FunctionDef)
                and not node.name.startswith("_")
                and node.returns is not None
                and ast.unparse(node.returns) == "list[Hit]"
            ):
                out[node.name] = path.relative_to(ROOT).as_posix()
    return out


def _callers(names: set[str]) -> dict[str, set[str]]:
    """Detector name -> the project files that call it (``name(...)`` or ``x.name(...)``)."""
    out: dict[str, set[str]] = {n: set() for n in names}
    for pkg in ("drafter", "retrieval", "graph", "tui", "evals"):
        for path in (ROOT / pkg).rglob("*.py"):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith("drafter/sample/files/"):
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.Call):
                    continue
                f = node.func
                name = (
                    f.id
                    if isinstance(f, ast.Name)
                    else f.attr
                    if isinstance(f, ast.Attribute)
                    else ""
                )
                if name in out:
                    out[name].add(rel)
    return out


def test_the_registry_lists_every_rule_and_nothing_calls_one_around_it() -> None:
    detectors = _detectors()
    registered = {r.detector.__name__ for r in RULES.all()}
    assert registered <= set(detectors), "a registered detector is not a retrieval/survey function"
    callers = _callers(set(detectors))
    for name, home in detectors.items():
        outside = callers[name] - {home, *REGISTRY_MODULES}
        assert not outside, f"survey rule {name} ({home}) is called outside the registry: {outside}"
        if name not in registered:
            # a helper of its own module (e.g. cli_model_calls inside model_calls)
            assert home in callers[name], f"survey rule {name} ({home}) is not registered"


def test_every_rule_says_what_it_applies_to() -> None:
    names = [r.name for r in RULES.all()]
    assert len(names) == len(set(names)) >= 19
    assert all(r.applies_to.strip() for r in RULES.all())
    scopes = [r.scope for r in RULES.all()]
    assert scopes == sorted(scopes, key=["source file", "text file", "repository"].index)
