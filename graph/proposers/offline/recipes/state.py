"""Core in-memory state: what a run keeps in process memory and changes (operative objects).

The survey's ``state`` findings (:mod:`retrieval.languages.javascript.state`) name a
collection or state object, the functions that use and change it, and the lines that
do; this recipe makes the most central of them object records.  Central means, in
turn: the system's own code before tooling and tests, used soonest by the system's
model loops (fewest calls from one; the primary route when there is none), a state
class that serializes itself (a run meant to pause and resume), then the most
functions changing it and using it.  The witnesses are the line that makes the
state, the lines that change it, and one that reads it.
"""

from __future__ import annotations

from collections import deque

from drafter.ids import slug
from drafter.model import Block, Record
from graph.proposer import PlanItem
from graph.proposers.offline.prose import join_names, para, where
from graph.proposers.offline.rank import path_class
from graph.proposers.offline.recipe import DraftContext, PlanState
from retrieval.survey import Finding
from retrieval.survey.index import SurveyIndex
from retrieval.survey.model import Category

MAX_STATES = 3
#: Calls followed from the primary route to rank state by how soon the route uses it.
MAX_DEPTH = 8
_MAIN = ("serialized", "field", "module")


def _users(f: Finding) -> list[str]:
    return [s.strip() for s in str(f.detail.get("touched_by") or "").split(",") if s.strip()]


class CoreState:
    name = "core_state"
    kind = "OBJ"

    def plan(self, st: PlanState) -> list[PlanItem]:
        found = st.ix.category(Category.STATE)
        mains = [f for f in found if f.kind in _MAIN]
        if not mains:
            return []
        # the system's own model loops, else the primary route: where a run turns
        loops = [
            f.node
            for f in st.ix.category(Category.MODEL_LOOP)
            if f.kind in ("for", "while", "loop") and path_class(f.path) == 0
        ]
        depth = _depths(st.ix, loops or [u.node for u in st.units[:1]])

        def rank(f: Finding) -> tuple[int, int, int, int, int, str, int]:
            own = f"{f.symbol}." if f.kind == "serialized" else ""
            nodes = {f"{f.path}::{own}{s}" for s in _users(f)} | {f.node}
            return (
                path_class(f.path),
                # the state the loop reaches soonest is the loop's own
                min((depth[n] for n in nodes if n in depth), default=MAX_DEPTH + 1),
                _MAIN.index(str(f.kind)),
                -int(f.detail.get("changes") or 0),
                -int(f.detail.get("uses") or len(_users(f))),
                f.path,
                f.start_line,
            )

        items = []
        for f in sorted(mains, key=rank)[:MAX_STATES]:
            name = str(f.detail.get("state") or f.symbol)
            lines = [
                g
                for g in found
                if g.path == f.path and g.kind not in _MAIN and g.detail.get("state") == name
            ]
            writes = [g for g in lines if g.kind == "state_write"]
            reads = [g for g in lines if g.kind == "state_read"]
            holds = str(f.detail.get("holds") or "")
            items.append(
                st.item(
                    self,
                    slug("state", name.replace("#", "")),
                    f"In-memory state: {name} ({holds})",
                    [f, *writes[:2], *reads[:1]],
                    f"Kept in memory and changed by {join_names([w.symbol for w in writes], 3)}.",
                    {"state": name},
                )
            )
        return items

    def draft(self, ctx: DraftContext) -> Record | None:
        fs = ctx.findings
        main = next((f for f in fs if f.kind in _MAIN), None)
        if main is None:
            return None
        name = str(main.detail.get("state") or main.symbol)
        writes = [f for f in fs if f.kind == "state_write"]
        reads = [f for f in fs if f.kind == "state_read"]
        if main.kind == "serialized":
            blocks = _serialized_blocks(name, main, writes, reads)
        else:
            blocks = _kept_blocks(name, main, writes, reads)
        return ctx.record(blocks, [main, *writes, *reads])


def _depths(ix: SurveyIndex, starts: list[str]) -> dict[str, int]:
    """Fewest calls from one of ``starts`` to each node they reach (at most MAX_DEPTH)."""
    seen = dict.fromkeys(starts, 0)
    queue = deque(starts)
    while queue:
        node = queue.popleft()
        if seen[node] >= MAX_DEPTH:
            continue
        for nxt in ix.callees(node):
            if nxt not in seen:
                seen[nxt] = seen[node] + 1
                queue.append(nxt)
    return seen


def _public_first(names: list[str]) -> list[str]:
    """Methods a caller may call (``approveTool``) before internal ones (``_rebuild``)."""
    return sorted(names, key=lambda s: s.rsplit(".", 1)[-1].startswith(("_", "#")))


def _kept_blocks(
    name: str, main: Finding, writes: list[Finding], reads: list[Finding]
) -> list[Block]:
    holds = str(main.detail.get("holds") or "collection")
    owner = "a field of its class" if main.kind == "field" else "a module-level binding"
    made = "a " + holds if holds[:1].isupper() else "an " + holds
    users = _public_first(_users(main))
    writers = _public_first(
        [s.strip() for s in str(main.detail.get("written_by") or "").split(",") if s.strip()]
    )
    return [
        para(
            f"Source-native identity: {name}, {owner}, made as {made} ({where(main)}). "
            f"Representational form: in-memory {holds}. Storage substrate: process memory "
            "of one run, gone when the process ends."
        ),
        para(
            f"Used by {len(users)} functions ({join_names(users, 5)}); changed by "
            f"{join_names(writers, 4)}"
            + (f", for example at {join_names([where(w) for w in writes], 2)}" if writes else "")
            + (f"; read at {where(reads[0])}" if reads else "")
            + ". What one call leaves in it is what the next call finds, so it carries the "
            "run from one step to the next; whether it is also written to a file is not "
            "established by this finding."
        ),
    ]


def _serialized_blocks(
    name: str, main: Finding, writes: list[Finding], reads: list[Finding]
) -> list[Block]:
    out = f"{writes[0].symbol.rsplit('.', 1)[-1]}()" if writes else "its serializer"
    back = f"{reads[0].symbol.rsplit('.', 1)[-1]}()" if reads else "its parser"
    return [
        para(
            f"Source-native identity: {name}, a class whose instances hold a run's state "
            f"({where(main)}). Representational form: an in-memory object of class {name}, "
            f"with a serialized form made by {out} and read back by {back}. Storage "
            "substrate: process memory; the serialized form is handed to the caller, which "
            "decides where (if anywhere) it is kept."
        ),
        para(
            (f"Serialized at {where(writes[0])}" if writes else "Serialized by the class")
            + (f" and rebuilt at {where(reads[0])}" if reads else "")
            + ": a run can be paused, its state carried out of the process and resumed from "
            "it. What the serialized form holds, and whether anything checks it when it is "
            "read back, is not established by this finding."
        ),
    ]
