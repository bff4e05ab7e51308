"""Routes: ways of starting the system and what each reaches.

``route`` drafts one record per core entry unit (ranked by :mod:`..rank`), with the
progression from the entry to its effects in ``hints["progression"]`` (alternatives
at one step kept together).  ``model_loop`` drafts model use no entry point reaches —
a loop a framework or importer drives.  Witnesses are the deciding lines: where the
route starts, the model call, the gate or the write.
"""

from __future__ import annotations

import re

from drafter.ids import slug
from drafter.model import Block, Record
from graph.jsontypes import JsonDict
from graph.proposer import PlanItem
from graph.proposers.offline import crossing
from graph.proposers.offline.langs import language_of
from graph.proposers.offline.prose import bullet, join_names, para, short_symbol, wblock, where
from graph.proposers.offline.rank import decisive_rank, path_class, progression
from graph.proposers.offline.recipe import DraftContext, PlanState
from graph.proposers.offline.recipes.artifacts import artifact_key
from retrieval.survey import Finding
from retrieval.survey.index import EntryUnit
from retrieval.survey.model import Category

MAX_LOOP_ROUTES = 2
_EFFECT_ORDER = [
    Category.MODEL_CALL,
    Category.MODEL_LOOP,
    Category.EXEC_EFFECT,
    Category.TOOL_DISPATCH,
    Category.PERSISTENCE,
    Category.GATING,
]
EVIDENCE_LIMITS = (
    "static survey of the pinned revision only: no execution trace, no model output; the call "
    "graph is best effort (names resolved inside the repository, external libraries and dynamic "
    "dispatch not followed)"
)


def entry_name(f: Finding) -> str:
    if f.kind == "console_script":
        return f"console script {f.detail.get('script')}"
    if f.kind in ("click", "typer"):
        return f"{f.kind} command {f.symbol}"
    if f.kind in ("shell", "dockerfile"):
        tgt = f.detail.get("target_path") or f.detail.get("target_module") or "python"
        return f"{f.path} running {tgt}"
    if language_of(f.path) == "python":
        if f.path.endswith("__main__.py"):
            return f"python -m {f.path[:-12].replace('/', '.')}"
        return f"python {f.path}"
    return _manifest_entry_name(f) or f"{f.path} ({_ENTRY_WORDS.get(f.kind, 'entry point')})"


#: How an entry point of a language without a ``python path`` form starts, in words.
_ENTRY_WORDS = {
    "shebang": "script",
    "main_call": "top-level main()",
    "require_main": "run as the main module",
    "listen": "server",
    "cli_framework": "command line",
    "go_main": "main package",
}


def _manifest_entry_name(f: Finding) -> str | None:
    """A package manifest's entry (``bin``, ``scripts``, ``main``): named after what
    the manifest declares, not after the manifest file."""
    name = f.detail.get("script") or f.detail.get("name") or f.symbol
    if f.kind == "package_bin":
        return f"package bin {name}"
    if f.kind == "package_script":
        return f"package script {name}"
    if f.kind in ("package_main", "package_exports"):
        tgt = f.detail.get("target_path") or name
        return f"package {f.kind.removeprefix('package_')} {tgt}"
    return None


def _key_effects(u: EntryUnit) -> list[Finding]:
    """Effects the route reaches, most telling first, categories taken in turn."""
    key = [x for x in u.reached if x.category in _EFFECT_ORDER and x.kind != "client"]
    key.sort(
        key=lambda x: (
            _EFFECT_ORDER.index(x.category),
            decisive_rank(x) if x.category == Category.GATING else 0,
            path_class(x.path),
            x.path,
            x.start_line,
        )
    )
    by: dict[str, list[Finding]] = {}
    for f in key:
        by.setdefault(f.category, []).append(f)
    out: list[Finding] = []
    while len(out) < 12 and any(by.values()):
        for cat in list(by):
            if by[cat] and len(out) < 12:
                out.append(by[cat].pop(0))
    return out


def _summary(reached: list[Finding]) -> str:
    """What a route decides or produces, in a few words for its label: a gate that
    promotes, a score gate, model calls, the files it writes (two parts at most)."""
    parts: list[str] = []
    promos = [f for f in reached if f.kind == "promotion"]
    if promos:
        parts.append(f"score gate and promotion into {promos[0].detail.get('stores')}")
    elif any(f.kind == "threshold" and decisive_rank(f) == 1 for f in reached):
        parts.append("score gate")
    if any(f.category == Category.MODEL_CALL and f.kind != "client" for f in reached):
        parts.append("model calls")
    writes = [
        artifact_key(f)[0].rsplit("/", 1)[-1]
        for f in reached
        if f.category == Category.PERSISTENCE and f.kind in ("write", "append", "json", "copy")
    ]
    writes = [w for w in dict.fromkeys(writes) if re.search(r"\.\w{1,6}$", w)]
    if writes and len(parts) < 2:
        parts.append("writes " + join_names(writes, 2))
    return "; ".join(parts[:2])


class Routes:
    name = "route"
    kind = "RTE"

    def plan(self, st: PlanState) -> list[PlanItem]:
        items = []
        for u in st.units:
            name = entry_name(u.primary)
            steps = progression(u, st.ix)
            does = _summary(u.reached)
            hints: JsonDict = {"entry": u.primary.id, "progression": steps}
            crossed = crossing.route_crossings(st.ix, u.node)
            if crossed:  # only a mixed repository's routes cross; others keep their hints
                hints["crossings"] = [[c.caller, c.node] for c in crossed]
            item = st.item(
                self,
                slug(name),
                f"Run {name}" + (f": {does}" if does else ""),
                [u.primary, *u.extra[:2], *_key_effects(u)],
                f"Entry point {name} and what it reaches.",
                hints,
            )
            for c in crossed[: crossing.MAX_NAMED]:
                for node in (c.caller, c.target):
                    if node.split("::", 1)[0] not in item.files:
                        item.files.append(node.split("::", 1)[0])
            items.append(item)
        return items

    def draft(self, ctx: DraftContext) -> Record | None:
        fs = ctx.findings
        entry = next((f for f in fs if f.id == ctx.item.hints.get("entry")), fs[0] if fs else None)
        if entry is None:
            return None
        steps: list[list[str]] = ctx.item.hints.get("progression") or [[entry.node]]
        reached = [f for f in fs if f.category != Category.ENTRY_POINT]
        chain = [_caller(entry), *(" | ".join(short_symbol(n) for n in grp) for grp in steps)]
        lead = f"Endpoints/progression: {' → '.join(chain)}. The route starts at {where(entry)}."
        alts = [grp for grp in steps if len(grp) > 1]
        if alts:
            lead += (
                " Steps written A | B are alternatives the caller chooses among at one "
                "call site, not a sequence."
            )
        blocks: list[Block] = [para(lead)]
        crossed = crossing.find(ctx.ix, list(ctx.item.hints.get("crossings") or []))
        if crossed:
            blocks.append(para(crossing.sentences(crossed)))
        if reached:
            blocks.append(para(_reach_text(ctx, reached)))
        blocks += _fields(entry, reached, bool(reached))
        # the entry line and the deciding lines; the long form adds the other launchers
        deciding = _named_writes_first(_deciding(reached), reached, ctx.item.label)
        launchers = [f for f in fs if f.category == Category.ENTRY_POINT and f is not entry]
        rec = ctx.record(blocks, [entry, *deciding[:2], *launchers[:3], *deciding[2:]])
        if crossed:  # both sides of the first crossing, beside the entry line
            sides = [wblock(w) for w in crossing.witnesses(crossed[0], ctx.text_of)]
            at = len(blocks) + 1
            rec.blocks[at:at] = [b for b in sides if b not in rec.blocks]
        return rec


def _named_writes_first(
    deciding: list[Finding], reached: list[Finding], label: str
) -> list[Finding]:
    """The route's deciding lines with the write of a file its label names among the
    first two: a label that says "writes x.json" quotes the line that writes it."""

    def named(f: Finding) -> bool:
        base = artifact_key(f)[0].rsplit("/", 1)[-1]
        return "." in base and re.search(rf"(?<![\w.-]){re.escape(base)}\b", label) is not None

    writes = [f for f in reached if f.category == Category.PERSISTENCE and named(f)]
    if not writes or writes[0] in deciding[:2]:
        return deciding
    rest = [d for d in deciding if d is not writes[0]]
    return [*rest[:1], writes[0], *rest[1:]]


def _caller(entry: Finding) -> str:
    return {
        "console_script": "console script caller",
        "package_bin": "package bin caller",
        "shell": "shell caller",
        "dockerfile": "container start",
    }.get(entry.kind, "caller")


def _deciding(reached: list[Finding]) -> list[Finding]:
    """The lines that decide what a route does: the model call, the gate, the effect."""
    reached = sorted(reached, key=lambda f: path_class(f.path))  # own code's lines first
    calls = [f for f in reached if f.category == Category.MODEL_CALL and f.kind != "client"]
    gates = sorted(
        (f for f in reached if f.category == Category.GATING),
        key=lambda f: (decisive_rank(f), path_class(f.path), f.path, f.start_line),
    )
    execs = [f for f in reached if f.category == Category.EXEC_EFFECT]
    writes = [f for f in reached if f.category == Category.PERSISTENCE]
    effects = execs[:1] + writes[:1] + execs[1:] + writes[1:]
    loops = [f for f in reached if f.category == Category.MODEL_LOOP]
    return [
        *calls[:1],
        *[g for g in gates[:1] if decisive_rank(g) <= 1],
        *effects[:1],
        *loops[:1],
        *gates[:1],
        *effects[1:4],
        *gates[1:3],
        *calls[1:3],
    ]


def _at_items(ctx: DraftContext, lead: str, fs: list[Finding], recipe: str) -> str:
    """``lead`` followed by where ``fs`` are (three at most) and, in parentheses, the IDs
    of the ``recipe`` records built on them: the sentence links a route to its parts."""
    ids = sorted({it.id for f in fs if (it := ctx.item_with(f, recipe)) is not None})
    return (
        f"{lead} {join_names([where(f) for f in fs], 3)}"
        + (f" ({', '.join(ids)})" if ids else "")
        + "."
    )


def _reach_text(ctx: DraftContext, reached: list[Finding]) -> str:
    by = {c: [f for f in reached if f.category == c] for c in _EFFECT_ORDER}
    calls = [f for f in by[Category.MODEL_CALL] if f.kind != "client"]
    out = []
    if calls:
        out.append(_at_items(ctx, "It reaches model calls at", calls, "endpoint"))
    if by[Category.EXEC_EFFECT]:
        out.append(
            "It runs external commands or code at "
            + join_names([where(f) for f in by[Category.EXEC_EFFECT]], 3)
            + "."
        )
    writes = by[Category.PERSISTENCE]
    if writes:
        out.append(_at_items(ctx, "It writes at", writes, "artifact"))
    gates = sorted(by[Category.GATING], key=decisive_rank)
    if gates:
        out.append(f"It decides at {join_names([where(f) for f in gates], 2)}.")
    return " ".join(out)


def _exit_of(entry: Finding) -> str:
    if entry.kind == "console_script":
        return f"exit status of console script {entry.detail.get('script')}"
    if entry.kind in ("shell", "dockerfile"):
        return f"exit status of {entry.path} line {entry.start_line}"
    if entry.category == Category.ENTRY_POINT and language_of(entry.path) == "python":
        return f"process exit of python {entry.path}"
    if entry.category == Category.ENTRY_POINT:
        return f"process exit of {entry_name(entry)}"
    return f"return value of {entry.symbol}() to its caller"


def _no_call_seen(reached: list[Finding]) -> str:
    """What the survey can say when no model call is in the route's call graph: nothing
    more when the route runs no command, and that the commands it runs are not followed
    otherwise (a run of an agent's program may well call a model)."""
    runs = [f for f in reached if f.category == Category.EXEC_EFFECT]
    if not runs:
        return "no model call found in the route's call graph"
    return (
        "no model call in the route's own call graph; the commands it runs at "
        + join_names([where(f) for f in runs], 2)
        + " are not followed, so a model they call is not seen"
    )


def _fields(entry: Finding, reached: list[Finding], wired: bool) -> list[Block]:
    writes = [f for f in reached if f.category == Category.PERSISTENCE]
    gates = sorted((f for f in reached if f.category == Category.GATING), key=decisive_rank)
    calls = [f for f in reached if f.category == Category.MODEL_CALL and f.kind != "client"]
    effects = [f for f in reached if f.category in (Category.EXEC_EFFECT, Category.PERSISTENCE)]
    overwrites = [f for f in writes if f.kind in ("write", "delete", "move", "git")]
    return [
        bullet("implementation conclusion status", "wired" if wired else "uninspected"),
        bullet("operation conclusion status", "uninspected"),
        bullet("Immediate return", _exit_of(entry) + "; printed output is not traced"),
        bullet(
            "Later read-back",
            "writes at "
            + join_names([where(f) for f in writes], 3)
            + "; whether later runs read them back is recorded on the artifacts"
            if writes
            else "no persisted output found on this route",
        ),
        bullet(
            "Delegated visibility",
            (
                "model calls receive messages built in "
                + join_names([short_symbol(f.node) for f in calls], 3)
                if calls
                else _no_call_seen(reached)
            )
            + "; exact context contents are unknown",
        ),
        bullet(
            "Selection predicate",
            "comparisons found: " + join_names([" ".join(g.snippet.split())[:70] for g in gates], 2)
            if gates
            else "no score or threshold comparison found on this route",
        ),
        bullet(
            "Invalidation or expiry",
            "overwrites or removes state at " + join_names([where(f) for f in overwrites], 3)
            if overwrites
            else "none found statically",
        ),
        bullet(
            "Activation or effect",
            join_names(
                [f"{f.detail.get('call') or f.kind} in {short_symbol(f.node)}" for f in effects],
                3,
                empty="no execution effect or write found",
            )
            + " (static reachability, not observed)",
        ),
        bullet("Evidence limits", EVIDENCE_LIMITS),
    ]


def _file(node: str) -> str:
    """The file of a call-graph node (``path::symbol``): what a path class is read from,
    since a file-name rule (``test_x.py``, ``x.test.ts``) looks at the name's end."""
    return node.split("::", 1)[0]


class ModelLoops:
    name = "model_loop"
    kind = "RTE"

    def plan(self, st: PlanState) -> list[PlanItem]:
        covered = {n for u in st.units + st.secondary_units for n in st.ix.reachable(u.node)}
        nodes = sorted(
            {f.node for f in st.ix.category(Category.MODEL_CALL) if f.kind != "client"} - covered,
            key=lambda n: (path_class(_file(n)), n),
        )
        if st.units or any(path_class(_file(n)) == 0 for n in nodes):  # support is summarised
            nodes = [n for n in nodes if path_class(_file(n)) == 0]
        items = []
        for node in nodes:
            local = [
                f
                for f in st.ix.at(node)
                if f.category not in (Category.CLAIM, Category.ENTRY_POINT, Category.CONFIG_READ)
            ]
            for callee in st.ix.callees(node):
                local += [
                    f
                    for f in st.ix.at(callee)
                    if f.category
                    in (
                        Category.EXEC_EFFECT,
                        Category.PERSISTENCE,
                        Category.TOOL_DISPATCH,
                        Category.GATING,
                    )
                ]
            looped = any(f.category == Category.MODEL_LOOP for f in local)
            sym = short_symbol(node)
            label = f"{'Model loop' if looped else 'Model call'} in {sym}"
            if not sym.startswith(node.split("::")[0]):
                label += f" ({node.split('::')[0]})"
            items.append(
                st.item(
                    self,
                    slug("loop" if looped else "call", sym),
                    label,
                    local[:12],
                    "Model use no entry point of the repository reaches.",
                    {"node": node, "looped": looped},
                )
            )
        return items

    def draft(self, ctx: DraftContext) -> Record | None:
        node = str(ctx.item.hints.get("node", ""))
        reached = ctx.findings
        if not reached:
            return None
        lead = (
            "Endpoints/progression: external caller (framework or importer) → "
            f"{short_symbol(node)}. "
            f"No entry point of the repository reaches {short_symbol(node)} through the call "
            "graph; it is invoked from outside, which the survey cannot see."
        )
        blocks: list[Block] = [para(lead), para(_reach_text(ctx, reached))]
        blocks += _fields(reached[0], reached, True)
        return ctx.record(blocks, _deciding(reached))
