"""Tool registries: what a model's tool choice can reach (operative objects).

Only files with evidence of a registry a model selects from (a callable table, tool
schemas, decorated tools, a dispatch by name) count; a file that merely builds a
container or runs a command is an execution effect, not a registry.
"""

from __future__ import annotations

import re

from drafter.ids import slug
from drafter.model import Block, Record
from graph.proposer import PlanItem
from graph.proposers.offline.prose import join_names, para, where
from graph.proposers.offline.rank import path_class
from graph.proposers.offline.recipe import DraftContext, PlanState, file_stem
from retrieval.languages import for_path
from retrieval.survey import Finding
from retrieval.survey.model import Category

MAX_REGISTRIES = 2
_REGISTRY_KINDS = (
    "callable_registry",
    "tool_schema",
    "tool_decorator",
    "tool_module",
    "tool_wrapper",
    "subscript_dispatch",
    "getattr_dispatch",
)
_STRONG = ("callable_registry", "tool_schema", "tool_wrapper", "tool_decorator")
#: Findings that run a tool chosen by name (the deciding line of a registry).
_DISPATCH = ("subscript_dispatch", "getattr_dispatch", "callable_registry", "registry_dispatch")
_ORDER = {"callable_registry": 0, "tool_wrapper": 1, "tool_schema": 2, "tool_decorator": 2}


def _what_it_runs(st: PlanState, path: str) -> list[Finding]:
    """The first command or code a tool file runs: what choosing the tool does."""
    return [f for f in st.ix.by_path.get(path, []) if f.category == Category.EXEC_EFFECT][:1]


def _gate_of(st: PlanState, path: str) -> list[Finding]:
    """The check that decides whether a tool file's tool may run (an approval or an allow
    list): in the file itself or in a function its functions call, one step away."""
    own = st.ix.by_path.get(path, [])
    nodes = {f.node for f in own if f.node}
    near = [g for n in nodes for c in st.ix.callees(n) for g in st.ix.at(c)]
    gates = [
        f
        for f in [*own, *near]
        if f.category == Category.GATING and f.kind in ("approval", "allow_list")
    ]
    gates.sort(key=lambda f: (f.path != path, f.path, f.start_line))
    return gates[:1]


def _dispatch_of(st: PlanState, path: str, rfs: list[Finding]) -> list[Finding]:
    """The call that runs a tool file's tools, when the file only declares them (its
    schema and ``def`` lines decide nothing): a dispatch by name in the system's own code,
    one whose file names the tool's module or folder first."""
    if any(f.kind in _DISPATCH for f in rfs):
        return []
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    words = {file_stem(path), folder.rsplit("/", 1)[-1]} - {""}
    found = [
        f
        for f in st.ix.category(Category.TOOL_DISPATCH)
        if f.kind in _DISPATCH and f.path != path and path_class(f.path) == 0
    ]

    def names_it(f: Finding) -> bool:
        text = st.text_of(f.path) if st.text_of else None
        return text is not None and any(re.search(rf"\b{re.escape(w)}\b", text) for w in words)

    found.sort(key=lambda f: (not names_it(f), f.path, f.start_line))
    return found[:1]


class Tools:
    name = "tools"
    kind = "OBJ"

    def plan(self, st: PlanState) -> list[PlanItem]:
        regs: dict[str, list[Finding]] = {}
        for f in st.ix.category(Category.TOOL_DISPATCH):
            if f.kind in _REGISTRY_KINDS:
                regs.setdefault(f.path, []).append(f)
        # a registry is something a model chooses from: schemas, tables, decorated tools
        regs = {p: fs for p, fs in regs.items() if any(f.kind in _STRONG for f in fs)}
        # of two registries with as much evidence, the one that dispatches by name decides
        # which tool runs, and one whose tool runs a command reaches furthest
        ranked = sorted(
            regs.items(),
            key=lambda kv: (
                path_class(kv[0]),
                -len(kv[1]),
                not any(f.kind in _DISPATCH for f in kv[1]),
                not _what_it_runs(st, kv[0]),
                kv[0],
            ),
        )
        items = []
        for path, rfs in ranked:
            rfs = sorted(rfs, key=lambda f: (_ORDER.get(f.kind, 3), f.start_line))[:5]
            base = file_stem(path)
            items.append(
                st.item(
                    self,
                    slug("tools", base),
                    f"Tool registry and dispatch in {path}",
                    [
                        *rfs[:1],
                        *_what_it_runs(st, path),
                        *(_gate_of(st, path) if _what_it_runs(st, path) else []),
                        *_dispatch_of(st, path, rfs),
                        *rfs[1:],
                    ],
                    "What a model's tool choice can reach.",
                )
            )
        return items

    def draft(self, ctx: DraftContext) -> Record | None:
        fs = ctx.findings
        if not fs:
            return None
        own = [f for f in fs if f.path == fs[0].path and f.category == Category.TOOL_DISPATCH]
        elsewhere = [f for f in fs if f.path != fs[0].path and f.category != Category.GATING]
        runs = [f for f in fs if f.category == Category.EXEC_EFFECT]
        gates = [f for f in fs if f.category == Category.GATING]
        # a registry finding lists several names in one string: split them, so a name
        # seen again on its own finding is not listed twice
        names = [
            n.strip()
            for f in own
            for k in ("callables", "tool", "callee", "name_expr")
            if f.detail.get(k)
            for n in re.split(r",\s*|\s+and\s+", str(f.detail[k]))
            if n.strip()
        ]
        kinds = join_names(sorted({f.kind.replace("_", " ") for f in own}))
        blocks: list[Block] = [
            para(
                f"Source-native identity: tools and dispatch in {fs[0].path} ({kinds}): "
                f"{join_names(names, 6)}. Representational form: symbolic "
                f"({_callables(fs[0].path)} and tool schemas). Storage substrate: repository "
                "source, loaded into process memory."
            ),
            para(
                "A model's tool choice selects among these by name; which names are offered on "
                "each call and what guards the dispatch beyond the lookup is not established."
                + (f" Choosing one runs {where(runs[0])}." if runs else "")
                + (
                    f" Whether it runs is decided first by the {gates[0].kind.replace('_', ' ')}"
                    f" check at {where(gates[0])}; what that check admits is read from its line."
                    if gates
                    else ""
                )
                + (
                    " The tools are called through the dispatch at "
                    f"{join_names([where(f) for f in elsewhere], 2)}."
                    if elsewhere
                    else ""
                )
            ),
        ]
        return ctx.record(blocks, fs)


def _callables(path: str) -> str:
    """``Python callables``, ``TypeScript functions``: what the dispatch's targets are."""
    lang = for_path(path)
    if lang is None or lang.name == "python":
        return "Python callables"
    return f"{lang.label} functions"
