"""A survey indexed once for the lookups every drafting rule makes.

Why: the survey keeps its findings as one list, and scanning it answers each question
in time proportional to the whole survey.  Planning a draft asks those questions
thousands of times (each plan item, each record, each ranking key), so every proposer
reads one :class:`SurveyIndex`, built once per survey by :meth:`Survey.index`:
findings by ID, by category, by file and by call-graph node, the reverse call graph
(callers), which modules the repository's own code imports from, and the ways of
starting the system grouped into entry units.  The index only
reads the survey; it adds nothing to it and can be rebuilt from it at any time.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

from retrieval.survey.model import Category, Finding, Survey

#: Categories that say what a path *does* (as opposed to where it starts or what a
#: document promises); entry units list the ones their code reaches.
EFFECT_CATEGORIES = frozenset(
    {
        Category.MODEL_CALL,
        Category.EXEC_EFFECT,
        Category.PERSISTENCE,
        Category.TOOL_DISPATCH,
        Category.GATING,
        Category.MODEL_LOOP,
    }
)


@dataclass
class EntryUnit:
    """One way of starting the system (a script file, a command, a console script)
    with the call-graph node it starts at and the findings that node reaches."""

    primary: Finding
    extra: list[Finding] = field(default_factory=list)
    node: str = ""
    reached: list[Finding] = field(default_factory=list)
    #: True when other files of the repository import the module this entry guards:
    #: a library module's ``if __name__ == "__main__"`` block is a self-test, not a
    #: way the system is started.
    library: bool = False


class SurveyIndex:
    """Lookups over one :class:`Survey`, computed once."""

    def __init__(self, survey: Survey):
        self.survey = survey
        #: The list indexed and its length: :meth:`Survey.index` rebuilds when either changes.
        self.indexed = survey.findings
        self.size = len(survey.findings)
        self.by_id: dict[str, Finding] = {}
        self.by_category: dict[str, list[Finding]] = defaultdict(list)
        self.by_node: dict[str, list[Finding]] = defaultdict(list)
        self.by_path: dict[str, list[Finding]] = defaultdict(list)
        #: Each finding's place in the survey, so merged lookups keep the survey's order.
        self.position: dict[str, int] = {}
        for n, f in enumerate(survey.findings):
            self.position.setdefault(f.id, n)
            self.by_id.setdefault(f.id, f)
            self.by_category[f.category].append(f)
            self.by_node[f.node].append(f)
            self.by_path[f.path].append(f)
        self.callers: dict[str, set[str]] = defaultdict(set)
        for src, dsts in survey.call_graph.edges.items():
            for d in dsts:
                self.callers[d].add(src)
        self._reach: dict[str, list[str]] = {}

    # -- plain lookups ------------------------------------------------------------

    def finding(self, finding_id: str) -> Finding | None:
        return self.by_id.get(finding_id)

    def findings(self, ids: list[str]) -> list[Finding]:
        return [f for f in (self.by_id.get(i) for i in ids) if f is not None]

    def related(self, paths: Iterable[str], ids: Iterable[str]) -> list[Finding]:
        """Findings in any of ``paths`` or named by ``ids``, in survey order: what one
        record's context shows of the survey."""
        got = {f.id: f for p in paths for f in self.by_path.get(p, [])}
        got.update((f.id, f) for f in self.findings(list(ids)))
        return sorted(got.values(), key=lambda f: self.position[f.id])

    def category(self, name: Category | str) -> list[Finding]:
        return self.by_category.get(name, [])

    def at(self, node: str) -> list[Finding]:
        return self.by_node.get(node, [])

    def callees(self, node: str) -> list[str]:
        return self.survey.call_graph.callees(node)

    def reachable(self, node: str) -> list[str]:
        """Nodes reachable from ``node`` (memoised: entry units and ranking ask often)."""
        if node not in self._reach:
            self._reach[node] = self.survey.reachable(node)
        return self._reach[node]

    def reached_findings(self, node: str) -> list[Finding]:
        """Findings of the effect categories in every node ``node`` reaches."""
        out: list[Finding] = []
        for n in self.reachable(node):
            out.extend(f for f in self.at(n) if f.category in EFFECT_CATEGORIES)
        return out

    # -- modules ------------------------------------------------------------------

    @cached_property
    def imported_paths(self) -> set[str]:
        """Files whose functions are called from another file of the repository."""
        out: set[str] = set()
        for src, dsts in self.survey.call_graph.edges.items():
            src_path = src.split("::", 1)[0]
            for d in dsts:
                d_path = d.split("::", 1)[0]
                if d_path != src_path:
                    out.add(d_path)
        return out

    # -- entry units --------------------------------------------------------------

    @cached_property
    def entry_units(self) -> list[EntryUnit]:
        """Entry points grouped per way of starting, in source order (unranked)."""
        units: dict[str, EntryUnit] = {}
        for f in self.category(Category.ENTRY_POINT):
            key = _unit_key(f)
            u = units.get(key)
            if u is None:
                units[key] = EntryUnit(primary=f)
            elif f.kind == "main_guard":
                u.extra.append(u.primary)
                u.primary = f
            else:
                u.extra.append(f)
        launched = {
            (f.detail.get("target_node") or "").split("::", 1)[0]
            for f in self.category(Category.ENTRY_POINT)
            if f.kind not in ("main_guard", "argparse")
        }
        out: list[EntryUnit] = []
        by_node: dict[str, EntryUnit] = {}
        ordered = sorted(
            units.values(),
            key=lambda u: (
                u.primary.kind not in ("main_guard", "argparse"),
                u.primary.path,
                u.primary.start_line,
            ),
        )
        for u in ordered:
            u.node = self._unit_node(u.primary)
            if u.node in by_node:  # a shell line or script starting an already listed entry
                by_node[u.node].extra.append(u.primary)
                continue
            by_node[u.node] = u
            u.reached = self.reached_findings(u.node)
            u.library = self._is_library(u, launched)
            out.append(u)
        return out

    def _is_library(self, u: EntryUnit, launched: set[str]) -> bool:
        """A module other modules import, whose ``__main__`` block parses no command
        line and that no script or declaration launches: a self-test, not an entry."""
        path = u.primary.path
        if u.primary.kind != "main_guard" or path.endswith("__main__.py"):
            return False
        if path not in self.imported_paths or path in launched:
            return False
        parses = any(
            f.category == Category.ENTRY_POINT and f.kind in ("argparse", "click", "typer")
            for f in self.by_path.get(path, [])
        )
        return not parses

    def _unit_node(self, f: Finding) -> str:
        target = f.detail.get("target_node")
        if target:
            return str(target)
        main = f"{f.path}::<main>"
        if main in self.survey.call_graph.functions:
            return main
        return f.node


def _unit_key(f: Finding) -> str:
    if f.kind in ("main_guard", "argparse"):
        return f"file:{f.path}"
    if f.kind in ("click", "typer"):
        return f"cmd:{f.path}:{f.symbol}"
    return f"decl:{f.path}:{f.start_line}"
