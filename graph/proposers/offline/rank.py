"""Core-first ranking: which code is the system and which supports it.

An analyst reads the primary route first: the way the system is meant to be started
(a console script, a command the README tells users to run, the loop that calls the
models) and the effects it reaches.  Code in tests, examples, baselines, scripts or
vendored copies supports the system and ranks lower; a library module's
``__main__`` self-test is not a way of starting the system at all.  Everything here
reads paths and the survey's structure, never the name of one particular project.
"""

from __future__ import annotations

import re

from graph.proposers.offline.langs import label_of
from retrieval.survey import Finding
from retrieval.survey.index import EntryUnit, SurveyIndex
from retrieval.survey.model import Category

#: Tests, examples and docs show the system; logs, predictions and outputs committed
#: to the repository are recorded runs.  None of them is the system.  A test folder may
#: carry qualifiers (``integration-tests/``, ``e2e/``, ``mcp-oauth-test-server/``); mocks and
#: Storybook stories are test and documentation scaffolding.
_TESTY = re.compile(
    r"(^|/)(tests?|testing|examples?([_-]\w+)?|docs?|demos?|logs?|predictions?|outputs?)/"
    r"|(^|/)([\w.-]+[-_])?(tests?|e2e|specs?)([-_][\w.-]+)?/"
    r"|(^|/)test_[^/]*\.py$|_test\.py$|conftest\.py$"
    r"|(^|/)__(tests|mocks|snapshots)__/|(^|/)mocks?/|\.(test|spec|stories)\.[cm]?[jt]sx?$"
    r"|_test\.go$|\.snap$"
)
#: Tests alone (not examples or docs): evidence that only a test shows is no evidence of
#: what the system does, so no record rests on it (:func:`is_test_path`).
_TEST_ONLY = re.compile(
    r"(^|/)(tests?|testing|__tests__)/|(^|/)test_[^/]*\.py$|_test\.py$|conftest\.py$"
    r"|\.(test|spec)\.[cm]?[jt]sx?$"
)
#: Code that supports the system: baselines, analysis, evaluation harnesses, scripts,
#: development-only code (a ``dev/`` folder's debug harnesses and commands), vendored
#: copies.
_SECONDARY = re.compile(
    r"(^|/)(baselines?|analysis|plots?|notebooks?|benchmarks?|evaluation|evals?|experiments?"
    r"|scripts?|tools?/scripts|dev"
    r"|third_party|vendor(ed)?|external|site-packages)/"
    # a top-level dot folder holds the repository's own tooling (CI, editor and agent
    # configuration), not the system
    r"|^\.[\w-]+/"
)
#: The repository's developer tooling, which ships with no system: a top-level dot
#: folder (CI, editor and coding-agent configuration: ``.github/``, ``.agents/``), build,
#: lint and test-runner configuration files, shared test helpers, and a JavaScript or
#: TypeScript ``scripts/`` folder (that world's place for the maintenance scripts a
#: package's ``scripts`` run; a Python ``scripts/`` folder often runs the system itself
#: and stays supporting code).
_TOOLING = re.compile(
    r"^\.[\w-]+/"
    r"|(^|/)[\w.-]+\.config\.[cm]?[jt]s$|(^|/)(gulpfile|gruntfile|jakefile)\.[cm]?js$"
    r"|(^|/)test[-_]?(utils?|helpers?|support)/"
)
_ES_SCRIPTS = re.compile(r"(^|/)scripts?/[^/]+(/[^/]+)*\.[cm]?[jt]sx?$")
#: Effects an entry point can reach, most telling first.
_EFFECT_WEIGHT = {
    Category.MODEL_CALL: 3,
    Category.MODEL_LOOP: 3,
    Category.EXEC_EFFECT: 2,
    Category.TOOL_DISPATCH: 2,
    Category.PERSISTENCE: 1,
    Category.GATING: 1,
}
#: ``python path.py`` / ``python -m module`` / ``node path.js`` in a README's commands.
_README_RUN = re.compile(
    r"(?:python[0-9.]*|uv run(?: python)?|poetry run python)\s+(?:-u\s+)?"
    r"(?:-m\s+([A-Za-z0-9_.]+)|([A-Za-z0-9_./\-]+\.py))"
    r"|(?:node|tsx|ts-node|bun|deno run|go run)\s+(?:--?[\w-]+\s+)*"
    r"([A-Za-z0-9_./\-]+\.(?:[cm]?[jt]sx?|go))"
)


def dir_of(path: str) -> str:
    """The folder part of a repository path with its trailing slash ("" at the top)."""
    return path.rsplit("/", 1)[0] + "/" if "/" in path else ""


def path_class(path: str) -> int:
    """0 for the system's own code, 1 for supporting code, 2 for tests and examples."""
    if _TESTY.search(path):
        return 2
    if _SECONDARY.search(path):
        return 1
    return 0


def is_tooling(path: str) -> bool:
    """Whether ``path`` is the repository's developer tooling (:data:`_TOOLING`): code
    and configuration that maintain the repository, not parts of the system."""
    return _TOOLING.search(path) is not None or _ES_SCRIPTS.search(path) is not None


def is_test_path(path: str) -> bool:
    """Whether ``path`` is test code (a tests folder, ``test_*.py``, ``*.test.ts``...)."""
    return _TEST_ONLY.search(path) is not None


def readme_targets(readme_text: str) -> set[str]:
    """Paths and modules a README tells users to run (``python x.py``, ``python -m m``,
    ``node x.js``, ``npx tsx src/x.ts``)."""
    out: set[str] = set()
    for m in _README_RUN.finditer(readme_text):
        if m.group(1):
            out.add(m.group(1).replace(".", "/"))
        else:
            out.add((m.group(2) or m.group(3)).removeprefix("./"))
    return out


def _commanded(u: EntryUnit, commands: set[str]) -> bool:
    path = u.primary.path
    stem = path[:-3] if path.endswith(".py") else path
    if stem.endswith("/__main__"):
        stem = stem[: -len("/__main__")]
    return path in commands or stem in commands


def support_callers(ix: SurveyIndex) -> dict[str, int]:
    """For each file, how many supporting files (benchmarks, evaluation harnesses,
    scripts: path class 1) call a function defined in it.  What a project's own harnesses
    run is the system's way of running, whatever a helper script reaches; tests are left
    out because they call everything they test."""
    into: dict[str, set[str]] = {}
    for src, dsts in ix.survey.call_graph.edges.items():
        sp = src.split("::", 1)[0]
        if path_class(sp) != 1:
            continue
        for d in dsts:
            dp = d.split("::", 1)[0]
            if dp != sp:
                into.setdefault(dp, set()).add(sp)
    return {p: len(v) for p, v in into.items()}


#: Supporting files that must build on an entry's module for it to count as the one run.
BACKED_BY = 2


def unit_score(
    u: EntryUnit, commands: set[str], backed: dict[str, int] | None = None
) -> tuple[int, int, int, int, int]:
    """Sort key, lowest first: own code before support code; declared entries (console
    scripts, README commands) that reach a model, then any entry that reaches a model
    (a README's setup command does not outrank the loop); then declared ones; then an
    entry whose module the project's harnesses build on (:func:`support_callers`); then
    by the weight of effects reached; then shallower paths first."""
    f = u.primary
    declared = f.kind in ("console_script", "package_bin") or _commanded(u, commands)
    cats = [x.category for x in u.reached]
    model = Category.MODEL_CALL in cats or Category.MODEL_LOOP in cats
    return (
        path_class(f.path),
        0 if declared and model else 1 if model else 2 if declared else 3,
        0 if (backed or {}).get(f.path, 0) >= BACKED_BY else 1,
        -sum(_EFFECT_WEIGHT.get(c, 0) for c in cats),
        f.path.count("/"),
    )


def rank_units(
    ix: SurveyIndex, commands: set[str], max_routes: int
) -> tuple[list[EntryUnit], list[EntryUnit]]:
    """(routes to draft, core first; the rest, summarised).  Library ``__main__``
    blocks are never routes; supporting code only fills places the core leaves."""
    backed = support_callers(ix)
    units = sorted(
        ix.entry_units,
        key=lambda u: (unit_score(u, commands, backed), u.primary.path, u.primary.start_line),
    )
    routes: list[EntryUnit] = []
    rest: list[EntryUnit] = []
    for u in units:
        core = path_class(u.primary.path) == 0 and not u.library
        if core and u.reached and len(routes) < max_routes:
            routes.append(u)
        else:
            rest.append(u)
    # a repository of scripts only: its best supporting entry is the route.  Not when
    # the system's own code declares entries that reach nothing (a library's package
    # exports: its loops are the model-loop routes), and only an entry that reaches
    # something, in the language most of the code is written in (a side tool in another
    # language is not how the system runs)
    own_entries = any(path_class(u.primary.path) == 0 and not u.library for u in units)
    if not routes and not own_entries:
        main = _main_language(ix)
        routes = [
            u
            for u in rest
            if not u.library and u.reached and main in (None, label_of(u.primary.path))
        ][:1]
        rest = [u for u in rest if u not in routes]
    return routes, rest


def _main_language(ix: SurveyIndex) -> str | None:
    """The surveyed language holding most source lines, when it holds most of them."""
    shares = [s for s in ix.survey.languages if s.supported]
    by: dict[str, float] = {}
    for s in shares:
        by[s.label] = by.get(s.label, 0.0) + s.line_share
    if not by:
        return None
    label, share = max(by.items(), key=lambda kv: kv[1])
    if share <= 0.5:
        return None
    return label


def primary_units(routes: list[EntryUnit], commands: set[str]) -> list[EntryUnit]:
    """The routes ranked as the way the system is meant to be started: those in the best
    route's tier (own code; declared and reaching a model, else reaching a model, ...).
    A helper or data-prep script the ranking puts below them is a route, not primary."""
    if not routes:
        return []
    best = unit_score(routes[0], commands)[:2]
    return [u for u in routes if unit_score(u, commands)[:2] == best]


def decisive_rank(f: Finding) -> int:
    """How directly a gating finding decides an outcome, lowest first: storing a
    selection's result (promotion), a comparison between two named values, a
    comparison with a literal, a choice by max/min, then aggregations and reports.  An
    approval check or an allow list decides whether an effect runs at all, as directly as
    a comparison between named values; a mode switch only selects which check applies."""
    if f.kind == "promotion":
        return 0
    if f.kind in ("approval", "allow_list"):
        return 1
    if f.kind == "mode_switch":
        return 2
    if f.kind == "threshold":
        cmp = f.detail.get("comparison", "")
        named = re.search(r"(<=|>=|<|>)\s*[A-Za-z_]", cmp) is not None
        return 1 if named else 2
    if f.kind in ("selection", "answer_check"):
        return 3
    return 4


MAX_STEPS = 8


def _class_of(node: str) -> str | None:
    """``path::Name.__init__`` → ``Name``: a constructor call in the call graph."""
    sym = node.split("::", 1)[-1]
    return sym[: -len(".__init__")] if sym.endswith(".__init__") else None


def _name_tail(name: str) -> str:
    """The last CamelCase word of a class name (``FooRunner`` → ``Runner``)."""
    words = re.findall(r"[A-Z][a-z0-9]*", name)
    return words[-1] if words else name


def group_alternatives(steps: list[str]) -> list[list[str]]:
    """Steps in call order, with constructors of sibling classes (same name ending,
    e.g. three ``…Runner`` classes one call site chooses among) folded into one step:
    they are alternatives, not a sequence."""
    out: list[list[str]] = []
    for s in steps:
        cls = _class_of(s)
        prev = out[-1] if out else None
        prev_cls = _class_of(prev[0]) if prev else None
        if cls and prev_cls and prev is not None and _name_tail(cls) == _name_tail(prev_cls):
            prev.append(s)
        else:
            out.append([s])
    return out


def _effectful_callees(node: str, ix: SurveyIndex, fact_nodes: set[str]) -> list[str]:
    """Callees of ``node`` that hold a fact of the route or lead to one, in call order."""
    out: list[str] = []
    for callee in ix.callees(node):
        if callee.endswith("::<module>") and callee not in fact_nodes:
            continue
        if callee in fact_nodes or any(n in fact_nodes for n in ix.reachable(callee)):
            out.append(callee)
        if len(out) >= MAX_STEPS:
            break
    return out


#: Entry points that name a module a package offers to its importers.
_PACKAGE_ENTRIES = frozenset({"package_main", "package_exports"})


def progression(u: EntryUnit, ix: SurveyIndex) -> list[list[str]]:
    """The route's steps: the entry's own callees that lead to a fact, in call order
    (alternatives folded together); a lone step is opened up to its own steps (an
    entry that only calls ``main()``); then the last step is followed down its
    shortest chain toward a model call, so the chain ends where the route works."""
    fact_nodes = {f.node for f in u.reached}
    out: list[list[str]] = [[u.node]]
    node = u.node
    # a package's main or exports module offers its API rather than calling it in order:
    # its route is the deepest chain to a model call, not the list of what it exports
    offers = u.primary.kind in _PACKAGE_ENTRIES and node.endswith("::<module>")
    for _ in range(0 if offers else 3):
        groups = group_alternatives(_effectful_callees(node, ix, fact_nodes))
        if not groups:
            break
        out += groups
        if len(groups) > 1 or len(groups[0]) > 1:
            break
        node = groups[0][0]
    chains = ix.survey.chains_from(u.node)
    if not chains:
        return out
    model_nodes = {f.node for f in u.reached if f.category == Category.MODEL_CALL}
    pool = [c for c in chains if c[-1] in model_nodes] or chains
    deep = max(pool, key=lambda c: (len(c), -chains.index(c)))
    if len(out) == 1:
        return [[n] for n in deep]
    last = out[-1]
    if len(last) == 1 and last[0] in deep:
        i = deep.index(last[0])
        seen = {n for grp in out for n in grp}
        out += [[x] for x in deep[i + 1 :] if x not in seen][:3]
    return out
