"""Crossings no drafted route takes: where a mixed system's languages meet.

A web front end's requests to its own back end are often started by nothing the call
graph shows (a browser runs the page, a framework routes the click), so no entry
point's route takes them and the front end would get no record at all.  Such
crossings are grouped by the file on the far side that serves or runs them (one
router file's routes are one interface), and the groups the most requests go into
are drafted as routes of their own: which code of which language calls in, what it
reaches, and both sides of the first crossings.
"""

from __future__ import annotations

from collections import defaultdict

from drafter.ids import slug
from drafter.model import Block, Bullet, Record
from graph.proposer import PlanItem
from graph.proposers.offline import crossing
from graph.proposers.offline.langs import label_of
from graph.proposers.offline.prose import bullet, join_names, para, wblock
from graph.proposers.offline.rank import path_class
from graph.proposers.offline.recipe import DraftContext, PlanState
from graph.proposers.offline.recipes.routes import _deciding, _fields, _reach_text
from retrieval.survey.model import Category, Crossing

MAX_BOUNDARY_ROUTES = 2


def _path(node: str) -> str:
    return node.split("::", 1)[0]


def _groups(st: PlanState) -> list[tuple[str, list[Crossing]]]:
    """Crossings no drafted route takes, by the far-side file, largest group first; both
    sides in the system's own code."""
    taken = {c.node for u in st.units for c in crossing.route_crossings(st.ix, u.node)}
    by: dict[str, list[Crossing]] = defaultdict(list)
    for c in st.ix.survey.call_graph.crossings:
        if c.node in taken or path_class(_path(c.caller)) or path_class(_path(c.target)):
            continue
        by[_path(c.target)].append(c)
    return sorted(by.items(), key=lambda kv: (-len({c.node for c in kv[1]}), kv[0]))


def _distinct_first(cs: list[Crossing]) -> list[Crossing]:
    """Crossings into distinct handlers or scripts first, then the other callers of each:
    the named ones show the interface's breadth, not one route requested twice."""
    first: dict[str, Crossing] = {}
    for c in cs:
        first.setdefault(c.node, c)
    return [*first.values(), *(c for c in cs if c not in first.values())]


class Boundaries:
    name = "boundary"
    kind = "RTE"

    def plan(self, st: PlanState) -> list[PlanItem]:
        items = []
        for far, cs in _groups(st):
            found = {
                f.id: f
                for c in cs
                for f in st.ix.reached_findings(c.target)
                if f.category != Category.CLAIM
            }
            reached = list(found.values())
            if not reached:
                continue  # a crossing into code that does nothing the survey sees
            kind = "HTTP requests" if cs[0].kind == "http" else "processes started"
            near = label_of(_path(cs[0].caller)) or "other"
            n = len({c.node for c in cs})
            label = f"{near} {kind} into {far} ({label_of(far) or 'other'}): {n} crossing(s)"
            item = st.item(
                self,
                slug("boundary", far.rsplit("/", 1)[-1].rsplit(".", 1)[0]),
                label,
                reached[:12],
                "Where the languages meet, no drafted route crossing there.",
                {"crossings": [[c.caller, c.node] for c in cs]},
            )
            for c in cs[: crossing.MAX_NAMED]:
                for p in (_path(c.caller), far):
                    if p not in item.files:
                        item.files.append(p)
            items.append(item)
            if len(items) >= MAX_BOUNDARY_ROUTES:
                break
        return items

    def draft(self, ctx: DraftContext) -> Record | None:
        cs = _distinct_first(crossing.find(ctx.ix, list(ctx.item.hints.get("crossings") or [])))
        reached = [f for f in ctx.findings if f.category != Category.ENTRY_POINT]
        if not cs or not reached:
            return None
        vias = list(dict.fromkeys(c.via for c in cs))
        kind = "HTTP" if cs[0].kind == "http" else "subprocess"
        callers = join_names([crossing.caller_name(c) for c in cs], 3)
        targets = join_names([crossing.target_name(c) for c in cs], 3)
        lead = (
            f"Endpoints/progression: {callers} → [{kind} boundary] → {targets}. "
            f"{len(vias)} crossing(s) into {_path(cs[0].target)}: {join_names(vias, 5)}. "
            "No drafted route takes them: what starts the calling side (a browser, a "
            "framework, another program) is outside the call graph."
        )
        blocks: list[Block] = [para(lead), para(crossing.sentences(cs))]
        reach = _reach_text(ctx, reached)
        if reach:
            blocks.append(para(reach))
        for b in _fields(reached[0], reached, True):
            if isinstance(b, Bullet) and b.name == "Immediate return":
                b = bullet(b.name, f"the {kind.lower()} side's answer to its caller (not traced)")
            blocks.append(b)
        sides = [wblock(w) for c in cs[:2] for w in crossing.witnesses(c, ctx.text_of)]
        rec = ctx.record(blocks, _deciding(reached))
        at = len(blocks)
        rec.blocks[at:at] = [b for b in sides if b not in rec.blocks]
        return rec
