"""Typed results of the static survey.

A finding is one fact an analyst hunts for first (an entry point, a model call, a
subprocess, a write...) with exact anchors: the snippet is the file's own lines
``start_line..end_line`` so any part of it can serve as a witness that verifies.
The call graph is best effort (names resolved inside the repository only) and says
so, because dynamic dispatch and duck typing defeat static resolution.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

from pydantic import (
    BaseModel,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from retrieval.categories import CATEGORIES as CATEGORIES
from retrieval.categories import Category as Category
from retrieval.survey.details import Detail

if TYPE_CHECKING:
    #: The checker sees a finding's detail as the typed :class:`Detail`; pydantic keeps
    #: a plain dict, because validating a TypedDict would drop keys it does not declare
    #: and could reorder them, changing survey JSON and cached surveys.
    DetailField = Detail
else:
    DetailField = dict[str, Any]


# -- kinds per category ---------------------------------------------------------------
# The sub-kinds each rule family emits.  Literal types, so a rule that emits a new
# kind or a proposer that tests for a misspelt one is caught by the type checker.

EntryKind = Literal[
    "main_guard",
    "argparse",
    "click",
    "typer",
    "console_script",
    "shell",
    "dockerfile",
    "shebang",
    "package_bin",
    "package_main",
    "package_exports",
    "package_script",
    "cli_framework",
    "main_call",
    "require_main",
    "listen",
    "go_main",
]
ModelCallKind = Literal[
    "chat",
    "completion",
    "embedding",
    "client",
    "model_load",
    "generate",
    "agent",
    "wrapper",
    "via_wrapper",
    "cli",
]
ToolKind = Literal[
    "import_module",
    "spec_from_file",
    "module_from_spec",
    "reload",
    "plugin_scan",
    "entry_points",
    "run_path",
    "exec_module",
    "getattr_dispatch",
    "subscript_dispatch",
    "tool_wrapper",
    "tool_decorator",
    "tool_module",
    "callable_registry",
    "tool_schema",
    "mcp",
    "switch_dispatch",
    "registry_dispatch",
]
ExecKind = Literal["subprocess", "os_process", "docker", "exec_eval", "delegated_exec"]
PersistenceKind = Literal[
    "write",
    "append",
    "json",
    "pickle",
    "torch",
    "numpy",
    "yaml",
    "csv",
    "copy",
    "move",
    "delete",
    "sqlite",
    "file",
    "parquet",
    "model",
    "figure",
    "excel",
    "dataset",
    "git",
]
ReadBackKind = Literal["read"]
PromptKind = Literal[
    "prompt_file",
    "prompt_rule",
    "instruction_string",
    "system_message",
    "prompt_load",
    "prompt_read",
]
LoopKind = Literal["for", "while", "loop", "loop_step"]
GatingKind = Literal[
    "threshold",
    "selection",
    "retry",
    "answer_check",
    "score_report",
    "score_aggregate",
    "promotion",
    "answer_extraction",
    "reference_def",
    "grading_scale",
    "approval",
    "allow_list",
    "mode_switch",
]
ConfigKind = Literal[
    "cli_option",
    "env",
    "env_write",
    "dotenv",
    "yaml",
    "toml",
    "ini",
    "hydra",
    "model_setting",
]
ClaimKind = Literal["doc_sentence", "instruction_rule", "docstring", "tool_description"]
StateKind = Literal["field", "module", "serialized", "state_write", "state_read"]
#: Any kind a rule emits (a Hit's kind).
Kind = (
    EntryKind
    | ModelCallKind
    | ToolKind
    | ExecKind
    | PersistenceKind
    | ReadBackKind
    | PromptKind
    | LoopKind
    | GatingKind
    | ConfigKind
    | ClaimKind
    | StateKind
)

#: Kinds of the findings a proposer makes itself rather than the survey: the offline
#: self-modification recipe's ``written_value`` (the line that makes the value a write
#: stores) and a route's ``crossing`` (one side of a step into another language).
#: Declared here so a finding's kind is one checked name either way.
RecipeKind = Literal["written_value", "crossing"]
#: Any kind a finding can have: a rule's or a proposer's.
FindingKind = Kind | RecipeKind

if TYPE_CHECKING:
    #: The checker sees ``Finding.kind`` as :data:`FindingKind`; pydantic keeps ``str``,
    #: because validating a Literal would refuse a cached survey holding a kind a later
    #: version renamed, where today it is read back as it was written.
    KindField = FindingKind
else:
    KindField = str

#: Longest chain ``chains_from`` follows; deeper recursion is cut, never followed.
MAX_CHAIN_DEPTH = 8
MAX_CHAINS = 64


class Finding(BaseModel):
    """One surveyed fact with exact source anchors."""

    id: str = Field(
        description='Stable ID "category:path:line", suffixed "#n" when a line holds several.'
    )
    category: Category
    kind: KindField = Field(
        description="Sub-kind, e.g. main_guard, argparse, subprocess, open_write."
    )
    path: str
    start_line: int = Field(ge=1)
    end_line: int = Field(ge=1)
    symbol: str = Field(description='Enclosing "Class.method", "function", "<module>" or "<main>".')
    snippet: str = Field(description="The exact source lines start_line..end_line.")
    detail: DetailField = Field(default_factory=Detail)

    @property
    def anchor(self) -> str:
        if self.start_line == self.end_line:
            return f"{self.path}:{self.start_line}"
        return f"{self.path}:{self.start_line}-{self.end_line}"

    @property
    def node(self) -> str:
        """The call-graph node this finding sits in."""
        return f"{self.path}::{self.symbol}"


class FunctionNode(BaseModel):
    """A function, method or module-level pseudo function (``<module>``, ``<main>``)."""

    id: str
    path: str
    symbol: str
    start_line: int
    end_line: int
    docstring: str | None = None


class Crossing(BaseModel):
    """Where a route leaves one language for another (:mod:`retrieval.survey.crossings`):
    the call on one side and what it starts on the other, each with its lines, so a
    route that crosses can quote both sides."""

    node: str = Field(description='The boundary node, "<path>::<HTTP POST /api/x>".')
    kind: Literal["http", "subprocess"]
    via: str = Field(description='What crosses, e.g. "POST /api/x" or "scripts/x.py".')
    caller: str = Field(description="The node holding the request or process call.")
    call_start: int
    call_end: int
    target: str = Field(description="The node started on the other side.")
    target_start: int
    target_end: int


class CallGraph(BaseModel):
    """Repository functions and the repository functions they call."""

    best_effort: bool = True
    note: str = (
        "Callees are resolved by name inside the repository (imports, self-methods, "
        "unique method names); dynamic dispatch and external libraries are not followed."
    )
    functions: dict[str, FunctionNode] = Field(default_factory=dict)
    edges: dict[str, list[str]] = Field(default_factory=dict)
    #: Crossings between languages; kept out of the JSON when there are none, so the
    #: survey of a one-language repository reads as it did before crossings existed.
    crossings: list[Crossing] = Field(default_factory=list)

    @model_serializer(mode="wrap")
    def _drop_no_crossings(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        out: dict[str, Any] = handler(self)
        if not out.get("crossings"):
            out.pop("crossings", None)
        return out

    def callees(self, node: str) -> list[str]:
        return self.edges.get(node, [])


class LanguageShare(BaseModel):
    """One language's share of a revision's source: how much of the code the survey read.

    Why on the survey: on a mixed repository a draft must say which languages were
    surveyed and what share each holds, and name a language present but not supported
    with its share, instead of describing one side tool with confidence."""

    name: str = Field(description='Table name, e.g. "typescript"; a file suffix when unsupported.')
    label: str = Field(description='How to print it, e.g. "TypeScript".')
    files: int = Field(description="Source files of the language at the revision (not vendored).")
    lines: int = Field(description="Their lines.")
    supported: bool = Field(description="Whether the survey parses this language.")
    surveyed: int = Field(default=0, description="Files the survey parsed.")
    file_share: float = Field(default=0.0, description="files / all source files counted here.")
    line_share: float = Field(default=0.0, description="lines / all source lines counted here.")


class SkippedFile(BaseModel):
    path: str
    reason: str


class Survey(BaseModel):
    """Everything the survey found at one revision."""

    repository: str
    revision: str
    files_total: int = 0
    python_files: int = 0
    #: Source languages side by side, largest share of lines first (see LanguageShare).
    languages: list[LanguageShare] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)
    call_graph: CallGraph = Field(default_factory=CallGraph)
    skipped: list[SkippedFile] = Field(default_factory=list)
    notices: list[str] = Field(default_factory=list)
    _index: SurveyIndex | None = PrivateAttr(default=None)

    # -- access -------------------------------------------------------------------

    def index(self) -> SurveyIndex:
        """The lookups every proposer makes (by ID, category, node, file, callers),
        built on first use and kept for this survey object, so one run builds one.

        Rebuilt only if ``findings`` was replaced or grew since (``survey --category``
        filters by assigning a new list); findings are never edited in place.
        """
        ix = self._index
        if ix is None or ix.indexed is not self.findings or ix.size != len(self.findings):
            ix = self._index = SurveyIndex(self)
        return ix

    # The three below answer from the index (copies, so a caller may edit the list).

    def by_category(self, category: Category | str) -> list[Finding]:
        return list(self.index().category(category))

    def finding(self, finding_id: str) -> Finding | None:
        return self.index().finding(finding_id)

    def in_file(self, path: str) -> list[Finding]:
        return list(self.index().by_path.get(path, []))

    def chains_from(
        self,
        entry: Finding | str,
        targets: tuple[Category, ...] = (
            Category.MODEL_CALL,
            Category.EXEC_EFFECT,
            Category.PERSISTENCE,
        ),
        max_depth: int = MAX_CHAIN_DEPTH,
        max_chains: int = MAX_CHAINS,
    ) -> list[list[str]]:
        """Call chains from an entry point's node to nodes holding target findings.

        Breadth-first, so the shortest chain to each target node comes first; a node
        is never revisited on the same chain (cycle-safe) and chains stop at
        ``max_depth`` edges, so a deeply recursive program cannot blow up the walk.
        """
        start = entry.node if isinstance(entry, Finding) else entry
        target_nodes = {f.node for c in targets for f in self.index().category(c)}
        out: list[list[str]] = []
        reached: set[str] = set()
        queue: deque[list[str]] = deque([[start]])
        expanded: set[str] = set()
        while queue and len(out) < max_chains:
            chain = queue.popleft()
            node = chain[-1]
            if node in target_nodes and node not in reached:
                reached.add(node)
                out.append(chain)
            if len(chain) > max_depth or node in expanded:
                continue
            expanded.add(node)
            for nxt in self.call_graph.callees(node):
                if nxt not in chain:
                    queue.append([*chain, nxt])
        return out

    def reachable(self, entry: Finding | str, max_depth: int = MAX_CHAIN_DEPTH) -> list[str]:
        """Nodes reachable from ``entry`` within ``max_depth`` calls, in BFS order."""
        start = entry.node if isinstance(entry, Finding) else entry
        seen = {start: 0}
        order = [start]
        queue: deque[str] = deque([start])
        while queue:
            node = queue.popleft()
            if seen[node] >= max_depth:
                continue
            for nxt in self.call_graph.callees(node):
                if nxt not in seen:
                    seen[nxt] = seen[node] + 1
                    order.append(nxt)
                    queue.append(nxt)
        return order


# -- the survey indexed for lookups -----------------------------------------------------
# A survey indexed once for the lookups every drafting rule makes.  Why: the survey
# keeps its findings as one list, and scanning it answers each question in time
# proportional to the whole survey.  Planning a draft asks those questions thousands of
# times (each plan item, each record, each ranking key), so every proposer reads one
# SurveyIndex, built once per survey by Survey.index: findings by ID, by category, by
# file and by call-graph node, the reverse call graph (callers), which modules the
# repository's own code imports from, and the ways of starting the system grouped into
# entry units.  The index only reads the survey; it adds nothing to it and can be
# rebuilt from it at any time.  It lives beside Survey so neither module imports the
# other (retrieval.survey.index names it for its users).

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
        """A module other modules import, that no script or declaration launches and
        whose ``__main__`` block does none of what starting a system does — parse a
        command line, start a server or loop, call ``main``, read its settings from the
        environment (``entry.main_block_does``): a self-test, not an entry.  Being
        imported alone decides nothing: a production worker is often imported for its
        helpers too."""
        from retrieval.languages import is_package_main  # the grammars load on first use

        path = u.primary.path
        if u.primary.kind != "main_guard" or is_package_main(path):
            return False
        does = u.primary.detail.get("does") or []
        if "self_test" in does:
            return True
        if path not in self.imported_paths or path in launched or does:
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
