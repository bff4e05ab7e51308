"""Typed results of the static survey.

A finding is one fact an analyst hunts for first (an entry point, a model call, a
subprocess, a write...) with exact anchors: the snippet is the file's own lines
``start_line..end_line`` so any part of it can serve as a witness that verifies.
The call graph is best effort (names resolved inside the repository only) and says
so, because dynamic dispatch and duck typing defeat static resolution.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field, PrivateAttr

from retrieval.categories import CATEGORIES as CATEGORIES
from retrieval.categories import Category as Category
from retrieval.survey.details import Detail

if TYPE_CHECKING:
    from retrieval.survey.index import SurveyIndex

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
    "main_guard", "argparse", "click", "typer", "console_script", "shell", "dockerfile"
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
)

#: Kinds of the findings a proposer makes itself rather than the survey: the offline
#: self-modification recipe's ``written_value`` (the line that makes the value a write
#: stores).  Declared here so a finding's kind is one checked name either way.
RecipeKind = Literal["written_value"]
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


class CallGraph(BaseModel):
    """Repository functions and the repository functions they call."""

    best_effort: bool = True
    note: str = (
        "Callees are resolved by name inside the repository (imports, self-methods, "
        "unique method names); dynamic dispatch and external libraries are not followed."
    )
    functions: dict[str, FunctionNode] = Field(default_factory=dict)
    edges: dict[str, list[str]] = Field(default_factory=dict)

    def callees(self, node: str) -> list[str]:
        return self.edges.get(node, [])


class SkippedFile(BaseModel):
    path: str
    reason: str


class Survey(BaseModel):
    """Everything the survey found at one revision."""

    repository: str
    revision: str
    files_total: int = 0
    python_files: int = 0
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
        from retrieval.survey.index import SurveyIndex

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
