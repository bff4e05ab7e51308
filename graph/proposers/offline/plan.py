"""The offline plan: recipes in order, named post-passes, and the record budget.

Recipes plan in dependency order (components before the authority paths that name
them, artifacts before the state gates that read them).  Post-passes then merge what
an analyst reviews as one thing and prune what another record already carries; the
budget keeps the draft reviewable, core first, without starving any family.
"""

from __future__ import annotations

from drafter.text import clip
from graph.proposer import PlanItem
from graph.proposers.offline.rank import path_class, rank_units, readme_targets
from graph.proposers.offline.recipe import Limits, PlanState, Recipe
from graph.proposers.offline.recipes.artifacts import Artifacts
from graph.proposers.offline.recipes.authority import (
    LoadedCode,
    PromptFile,
    PromptToModel,
    StateGate,
)
from graph.proposers.offline.recipes.claims import Claims
from graph.proposers.offline.recipes.components import (
    Endpoint,
    ExternalAgent,
    PinnedModel,
    RoleModel,
    external_agents,
)
from graph.proposers.offline.recipes.prompts import Prompts, common_dir
from graph.proposers.offline.recipes.routes import ModelLoops, Routes
from graph.proposers.offline.recipes.scores import Scores, selection_formula
from graph.proposers.offline.recipes.selfmod import SelfModification
from graph.proposers.offline.recipes.tools import Tools
from retrieval.survey.index import SurveyIndex

#: Every recipe, in planning order.
RECIPE_LIST: tuple[Recipe, ...] = (
    PinnedModel(),
    Endpoint(),
    RoleModel(),
    ExternalAgent(),
    Routes(),
    ModelLoops(),
    Artifacts(),
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
    ix: SurveyIndex, limits: Limits, readme: str, repo_modules: set[str]
) -> list[PlanItem]:
    routes, rest = rank_units(ix, readme_targets(readme), 12 if limits.thorough else 6)
    st = PlanState(
        ix=ix, limits=limits, units=routes, secondary_units=rest, repo_modules=repo_modules
    )
    for recipe in RECIPE_LIST:
        st.items += recipe.plan(st)
    merge_external_agent_sources(st)
    prune_scores_on_routes(st)
    return budget(st.items, limits.records)


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
