"""The offline plan: recipes in order, named post-passes, and the record budget.

Recipes plan in dependency order (components before the authority paths that name
them, artifacts before the state gates that read them).  Post-passes then merge what
an analyst reviews as one thing and prune what another record already carries; the
budget keeps the draft reviewable, core first, without starving any family.
"""

from __future__ import annotations

import re

from drafter.text import clip
from graph.proposer import PlanItem
from graph.proposers.offline.prose import TextOf
from graph.proposers.offline.rank import (
    is_test_path,
    is_tooling,
    path_class,
    primary_units,
    rank_units,
    readme_targets,
)
from graph.proposers.offline.recipe import Limits, PlanState, Recipe
from graph.proposers.offline.recipes.artifacts import Artifacts
from graph.proposers.offline.recipes.authority import (
    MAX_LOADED,
    LoadedCode,
    PromptFile,
    PromptToModel,
    StateGate,
)
from graph.proposers.offline.recipes.boundaries import Boundaries
from graph.proposers.offline.recipes.claims import Claims
from graph.proposers.offline.recipes.components import (
    Endpoint,
    ExternalAgent,
    PinnedModel,
    RoleModel,
    external_agents,
)
from graph.proposers.offline.recipes.prompts import MAX_PROMPTS, Prompts, common_dir
from graph.proposers.offline.recipes.routes import MAX_LOOP_ROUTES, ModelLoops, Routes
from graph.proposers.offline.recipes.scores import MAX_SCORES, Scores, selection_formula
from graph.proposers.offline.recipes.selfmod import SelfModification
from graph.proposers.offline.recipes.state import CoreState
from graph.proposers.offline.recipes.stores import MAX_STORES, Stores, name_stores
from graph.proposers.offline.recipes.tools import MAX_REGISTRIES, Tools
from graph.proposers.offline.siblings import same_in, sibling_map
from retrieval.survey import Finding
from retrieval.survey.index import SurveyIndex
from retrieval.survey.model import Category

#: Every recipe, in planning order.
RECIPE_LIST: tuple[Recipe, ...] = (
    PinnedModel(),
    Endpoint(),
    RoleModel(),
    ExternalAgent(),
    Routes(),
    ModelLoops(),
    Boundaries(),
    Artifacts(),
    Stores(),
    CoreState(),
    Prompts(),
    Tools(),
    Scores(),
    Claims(),
    SelfModification(),
    PromptToModel(),
    PromptFile(),
    StateGate(),
    LoadedCode(),
)
RECIPES: dict[str, Recipe] = {r.name: r for r in RECIPE_LIST}
#: Families in the order the budget serves them: the core of a system first.
BUDGET_ORDER = (
    ("pinned_model", "endpoint", "external_agent"),
    ("route",),
    ("boundary",),
    ("stored_state", "core_state"),
    ("self_modification",),
    ("artifact",),
    ("scores",),
    ("prompt_file", "state_gate"),
    ("prompt",),
    ("claim",),
    ("tools",),
    ("prompt_to_model", "loaded_code"),
    ("model_loop",),
    ("role_model",),
)


def plan_items(
    ix: SurveyIndex,
    limits: Limits,
    readme: str,
    repo_modules: set[str],
    text_of: TextOf | None = None,
) -> list[PlanItem]:
    commands = readme_targets(readme)
    routes, rest = rank_units(ix, commands, 12 if limits.thorough else 6)
    st = PlanState(
        ix=ix,
        limits=limits,
        units=routes,
        secondary_units=rest,
        primary_units=primary_units(routes, commands),
        repo_modules=repo_modules,
        text_of=text_of,
    )
    for recipe in RECIPE_LIST:
        st.items += recipe.plan(st)
    drop_test_only(st)
    room = drop_tooling_only(st)
    merge_external_agent_sources(st)
    stores_own_their_writes(st)
    fold_siblings(st)
    cap_after_folding(st, room)
    prune_scores_on_routes(st)
    items = budget(st.items, limits.records)
    name_stores(items)
    return items


def drop_test_only(st: PlanState) -> None:
    """No record rests on test code alone.  An item goes when some of its facts are in
    tests and the rest, if any, are only the shipped text it is about (a prompt file the
    only code reading or writing is a test's): what a test does to a file is how the
    system is exercised, not what it does."""

    def subject_only(f: Finding) -> bool:
        return f.category == Category.PROMPT and f.kind in ("prompt_file", "prompt_rule")

    def test_only(i: PlanItem) -> bool:
        fs = st.ix.findings(i.facts)
        tests = [f for f in fs if is_test_path(f.path)]
        return bool(tests) and all(is_test_path(f.path) or subject_only(f) for f in fs)

    st.items = [i for i in st.items if not test_only(i)]


def drop_tooling_only(st: PlanState) -> int:
    """No record rests on the repository's developer tooling alone (a dot folder's agent
    skills, a build script, a test helper: :func:`is_tooling`) when the system's own code
    gives the plan items: such an item's files are all tooling or tests, with one
    tooling file at least.  Returns how many went: the places the core may take back
    (:func:`cap_after_folding`)."""

    def tooling_only(i: PlanItem) -> bool:
        return (
            i.recipe != "route"
            and any(is_tooling(p) for p in i.files)
            and all(is_tooling(p) or path_class(p) == 2 for p in i.files)
        )

    if not any(path_class(p) == 0 for i in st.items for p in i.files):
        return 0
    kept = [i for i in st.items if not tooling_only(i)]
    dropped = len(st.items) - len(kept)
    st.items = kept
    return dropped


def merge_external_agent_sources(st: PlanState) -> None:
    """Prompt files the code only composes into a program for an outside agent are the
    sources of that program: one object (the generated file), not two."""
    for pfile, _read, write in external_agents(st.ix):
        src = next((i for i in st.of_recipe("prompt") if pfile.id in i.facts), None)
        dst = next((i for i in st.of_recipe("artifact") if write.id in i.facts), None)
        if src is None or dst is None:
            continue
        dst.facts = dst.facts + [f for f in src.facts if f not in dst.facts]
        dst.files = list(dict.fromkeys([*dst.files, *src.files]))
        composed = f"{dst.label}, composed from prompt files in {common_dir(src.files)}"
        dst.label = clip(composed, 120, at_word=True)
        st.items.remove(src)


def stores_own_their_writes(st: PlanState) -> None:
    """A write that a stored-state object holds (written and read back) is that object's,
    not also evidence in an artifact family; a family left with no write goes."""
    held = {fid for i in st.of_recipe("stored_state") for fid in i.facts}
    if not held:
        return
    out = []
    for i in st.items:
        if i.recipe == "artifact" and held & set(i.facts):
            i.facts = [f for f in i.facts if f not in held]
            fs = [f for f in st.ix.findings(i.facts)]
            if not any(f.category == Category.PERSISTENCE for f in fs):
                continue
            i.files = list(dict.fromkeys(f.path for f in fs))
        out.append(i)
    st.items = out


def fold_siblings(st: PlanState) -> None:
    """Items of one recipe that differ only by sibling files (one structure repeated in
    several folders, :mod:`.siblings`) are one item: the first in the recipe's own order
    stays, names the other folders in its label and hints, and the copies go."""
    smap = sibling_map(st.ix.survey)
    if not smap:
        return
    folders = {p.rsplit("/", 1)[0] for p in smap}

    def rep(p: str) -> str:
        return smap[p].paths[0] if p in smap else p

    words = {t for f in folders for t in re.split(r"[^a-z0-9]+", f.lower()) if t}

    def shape(i: PlanItem) -> tuple[str, str, str, frozenset[str]]:
        """The recipe, the item's ID without folder words or a uniqueness suffix, its
        main file up to siblings, and its files outside the sibling folders (a helper
        file beside one copy does not make it different)."""
        tokens = re.sub(r"-\d+$", "", i.id).lower().split("-")
        stem = "-".join(t for t in tokens if t not in words)
        outside = frozenset(p for p in i.files if p.rsplit("/", 1)[0] not in folders)
        return i.recipe, stem, rep(i.files[0]) if i.files else "", outside

    # the copy standing for the set (siblings.py puts the most typical first) is kept
    kept: dict[tuple[str, str, str, frozenset[str]], PlanItem] = {}
    for i in st.items:
        if i.files and i.files[0] in smap and rep(i.files[0]) == i.files[0]:
            kept.setdefault(shape(i), i)
    folded: dict[str, list[str]] = {}
    out: list[PlanItem] = []
    for i in st.items:
        if kept.get(shape(i)) is i:
            out.append(i)
            continue
        key = shape(i)
        first = kept.get(key)
        if first is None or not i.files or i.files[0] not in smap:
            kept.setdefault(key, i)
            out.append(i)
            continue
        if i.files[0].rsplit("/", 1)[0] != first.files[0].rsplit("/", 1)[0]:
            folded.setdefault(first.id, []).append(i.files[0].rsplit("/", 1)[0].rsplit("/", 1)[-1])
    for i in out:
        if folded.get(i.id):
            names = list(dict.fromkeys(folded[i.id]))
            i.hints = {**i.hints, "siblings": names}
            i.label = clip(f"{i.label} ({same_in(names)})", 160, at_word=True)
    st.items = out


#: Caps counted after sibling folding (these recipes plan every candidate, in their own
#: rank order, and leave the cap to the plan).  Endpoints, pinned models and artifacts
#: keep their own caps: other recipes plan from them (role models, prompts to a model,
#: state gates), so what those name must be what the draft keeps.
POST_FOLD_CAPS = {
    "stored_state": MAX_STORES,
    "prompt": MAX_PROMPTS,
    "scores": MAX_SCORES,
    "tools": MAX_REGISTRIES,
    "model_loop": MAX_LOOP_ROUTES,
    "loaded_code": MAX_LOADED,
}


def cap_after_folding(st: PlanState, room: int = 0) -> None:
    """Each recipe's cap, counted after sibling folding: five copies of one structure are
    one item, and the cap's other places go to other things (in the recipe's own order).
    ``room`` places left by dropped tooling go back to the system's own code: items over
    their recipe's cap on the core's files, the families taking turns, each recipe up to
    twice its cap."""
    over = {name: st.of_recipe(name)[cap:] for name, cap in POST_FOLD_CAPS.items()}
    back: set[str] = set()
    queues = [
        [i for i in over[n][: POST_FOLD_CAPS[n]] if all(path_class(p) == 0 for p in i.files)]
        for names in BUDGET_ORDER
        for n in names
        if n in over
    ]
    while room > 0 and any(queues):
        for q in queues:
            if q and room > 0:
                back.add(q.pop(0).id)
                room -= 1
    extra = {i.id for items in over.values() for i in items} - back
    st.items = [i for i in st.items if i.id not in extra]


def prune_scores_on_routes(st: PlanState) -> None:
    """A file's scores that the primary route already carries need no object of their own —
    unless they hold a weighted selection formula, which a route's three deciding lines
    (entry, model call, gate) never quote."""
    # only the first route is sure to survive the budget; pruning against routes the
    # budget later cuts would leave a file's deciding lines quoted nowhere
    on_routes = {fid for i in st.of_recipe("route")[:1] for fid in i.facts}

    def covered(i: PlanItem) -> bool:
        fs = [f for f in (st.ix.finding(x) for x in i.facts) if f is not None]
        return set(i.facts) <= on_routes and not selection_formula(fs)

    st.items = [i for i in st.items if not (i.recipe == "scores" and covered(i))]


def budget(items: list[PlanItem], n: int) -> list[PlanItem]:
    """At most ``n`` items: one of each family in :data:`BUDGET_ORDER` in turn, core
    code before supporting code within a family; kept in plan order."""
    if len(items) <= n:
        return items
    queues = []
    for names in BUDGET_ORDER:
        q = [i for i in items if i.recipe in names]
        q.sort(key=lambda i: min((path_class(f) for f in i.files), default=0))
        queues.append(q)
    chosen: set[str] = set()
    while len(chosen) < n and any(queues):
        for q in queues:
            if q and len(chosen) < n:
                chosen.add(q.pop(0).id)
    return [i for i in items if i.id in chosen]
