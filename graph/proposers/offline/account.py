"""The offline runtime account: the primary route told from entry point to effects.

An analyst reads the account before the records, so it follows the way the system
is ordinarily started (the first-ranked route) step by step — the entry, the model it
calls, the gate that decides, what it writes, and the loop by which a run's output
governs the next — naming each record by ID and quoting, inline, a witness taken
from that record (so the account carries only quotes that already verified there).
Other ways of starting are listed; supporting entry points are summarised.
"""

from __future__ import annotations

from drafter.model import AccountSection, Block, Heading, Record, WitnessBlock
from graph.proposer import Plan
from graph.proposers.offline.prose import TextOf, join_names, para
from graph.proposers.offline.rank import path_class
from graph.proposers.offline.shares import shares_sentence
from retrieval.survey import Survey
from retrieval.survey.index import SurveyIndex

#: Records the primary route story visits, in order, with the sentence that leads in.
_STORY = (
    ("endpoint", "It calls the model of {id} ({label})."),
    ("self_modification", "The loop closes through storage: {id} ({label})."),
    ("state_gate", "Retained state decides at {id} ({label})."),
    ("artifact", "What it keeps: {id} ({label})."),
    ("prompt_file", "Its instructions come from a file the code reads at run time: {id}."),
)


def _first_witness(rec: Record) -> list[Block]:
    return [
        WitnessBlock(witness=w.model_copy(update={"verification": None})) for w in rec.witnesses[:1]
    ]


def account_sections(
    ix: SurveyIndex | None,
    plan: Plan,
    records: list[Record],
    text_of: TextOf | None = None,
) -> list[AccountSection]:
    recipe = {i.id: i.recipe for i in plan.items}
    by_recipe: dict[str, list[Record]] = {}
    for r in records:
        by_recipe.setdefault(recipe.get(r.id, ""), []).append(r)
    blocks: list[Block] = [Heading(text="Scope and ordinary invocation")]
    if ix is None:
        return [
            AccountSection(
                title="Runtime account", blocks=[*blocks, para("No survey was available.")]
            )
        ]
    sv = ix.survey
    blocks.append(para(_opening(sv)))
    primary, effects = _primary(by_recipe)
    others, claims = _others(ix, by_recipe)
    blocks += primary + others
    # the format's three sub-sections, in order: invocation, effects, guarantees
    blocks.append(Heading(text="Effect boundaries, authority and isolation"))
    blocks += effects or [para("No model call, execution effect or write was reached.")]
    blocks.append(Heading(text="Load-bearing guarantees and forcing cases"))
    blocks += claims
    limits = (
        f"Evidence limits: the call graph is best effort ({len(sv.call_graph.functions)} "
        f"functions, {sum(len(v) for v in sv.call_graph.edges.values())} edges resolved by name "
        "inside the repository); calls through external libraries, callbacks and dynamic "
        "dispatch are not followed, so a route may reach more than it shows."
    )
    if sv.notices:
        limits += " Survey notices: " + "; ".join(sv.notices[:4]) + "."
    blocks.append(para(limits))
    return [AccountSection(title="Runtime account", blocks=blocks)]


def _opening(sv: Survey) -> str:
    """What was surveyed: the revision, and which languages with what share of the code."""
    return (
        f"Offline first draft from a static survey of {sv.repository} at {sv.revision}: "
        f"{sv.files_total} files, {len(sv.findings)} findings. {shares_sentence(sv.languages)} "
        "No model was called and no code of the repository was run; operation and benefit "
        "remain uninspected. Every quote below is taken from a record and checked against the "
        "revision."
    )


def _primary(by_recipe: dict[str, list[Record]]) -> tuple[list[Block], list[Block]]:
    """The primary route's opening (invocation) and what it reaches (effects)."""
    routes = by_recipe.get("route", []) or by_recipe.get("model_loop", [])
    if not routes:
        return [
            para(
                "The survey found no entry point that reaches a model call, an execution "
                "effect or a write; the records below stand alone."
            )
        ], []
    main = routes[0]
    out: list[Block] = [
        para(
            f"The primary route is {main.id} ({main.label}). "
            f"{main.lead.get('Endpoints/progression', '').rstrip('.')}."
        )
    ]
    out += _first_witness(main)
    effects: list[Block] = []
    for name, template in _STORY:
        for rec in by_recipe.get(name, [])[:1]:
            effects.append(para(template.format(id=rec.id, label=rec.label)))
            effects += _first_witness(rec)
    rest = [w for w in main.witnesses[1:3]]
    if rest:
        effects.append(para(f"The deciding lines of {main.id}:"))
        effects += [WitnessBlock(witness=w.model_copy(update={"verification": None})) for w in rest]
    return out, effects


def _others(ix: SurveyIndex, by_recipe: dict[str, list[Record]]) -> tuple[list[Block], list[Block]]:
    """Other ways of starting the system, and the documented promises to check."""
    routes = by_recipe.get("route", [])[1:] + by_recipe.get("model_loop", [])
    routes += by_recipe.get("boundary", [])
    out: list[Block] = []
    if routes:
        out.append(
            para(
                "Other routes, in rank order: "
                + join_names([f"{r.id} ({r.label})" for r in routes], 8)
                + "."
            )
        )
    support = sorted({u.primary.path for u in ix.entry_units if path_class(u.primary.path) > 0})
    libs = sorted(
        {u.primary.path for u in ix.entry_units if u.library and path_class(u.primary.path) == 0}
    )
    if support:
        out.append(
            para(
                f"{len(support)} entry point file(s) in tests, examples, baselines, scripts "
                f"or vendored code are not drafted as routes: {join_names(support, 6)}."
            )
        )
    if libs:
        out.append(
            para(
                f"{len(libs)} module(s) with a __main__ block that only exercises the module "
                "(no command line, server, loop, main call or environment settings; imported "
                "by other modules, or running a test framework) are treated as self-tests, not "
                f"routes: {join_names(libs, 6)}."
            )
        )
    claims = by_recipe.get("claim", [])
    promises: list[Block] = []
    if claims:
        promises.append(
            para(
                "Documented promises to check against the code: "
                + join_names([r.id for r in claims], 6)
                + "."
            )
        )
    return out, promises
