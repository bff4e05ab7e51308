"""Plan an epistemic draft: which EPI objects and routes to write, and their links.

Typed plan items carry everything the record and table builders need (check kinds,
deciding lines, the runtime record a part belongs to), so no builder parses a label
or a sentence to decide what to write.  Runtime record IDs come only from the loaded
runtime input: a link is made when a runtime record's witnesses cite the same file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from drafter.ids import slug, unique_id
from graph.epistemic.artifacts import find_artifacts
from graph.epistemic.runtime_input import RuntimeInput
from graph.epistemic.scan import (
    CLASS_WORDS,
    Artifact,
    CheckKind,
    CheckSite,
    ObjectClass,
    find_check_sites,
    secondary,
    truth_class,
)
from retrieval.survey import Survey

MAX_OBJECTS = 10
MAX_ROUTES = 12


@dataclass
class EpiObject:
    id: str
    cls: ObjectClass
    path: str
    artifacts: list[Artifact]
    part_of: str | None = None
    #: files holding the same artifacts (a structure repeated in sibling folders)
    copies: list[str] = field(default_factory=list)

    @property
    def persisted(self) -> bool:
        return any(a.persisted for a in self.artifacts)

    @property
    def model_output(self) -> bool:
        """Holds a model's candidate answer (extracted after a model call)."""
        return any(a.form == "model output" for a in self.artifacts)


@dataclass
class EpiRoute:
    id: str
    site: CheckSite
    objects: list[str] = field(default_factory=list)
    part_of: str | None = None
    #: files holding the same function with the same deciding lines
    copies: list[str] = field(default_factory=list)

    @property
    def main_kind(self) -> CheckKind:
        return self.site.kinds[0]


@dataclass
class EpiPlan:
    objects: list[EpiObject]
    routes: list[EpiRoute]

    def object(self, oid: str) -> EpiObject | None:
        return next((o for o in self.objects if o.id == oid), None)


def _slug(text: str) -> str:
    """An object's name as an ID slug: ``camelCase`` split, uncut, ``x`` when empty."""
    return slug(text, limit=None, camel=True, empty="x")


def runtime_paths(runtime: RuntimeInput) -> dict[str, list[str]]:
    """Runtime record ID -> the paths its witnesses cite."""
    out: dict[str, list[str]] = {}
    for r in runtime.report.records:
        paths = list(dict.fromkeys(w.path for w in r.witnesses))
        out[r.id] = paths
    return out


def owner_record(path: str, runtime: RuntimeInput, kinds: tuple[str, ...]) -> str | None:
    """The first runtime record of ``kinds`` whose witnesses cite ``path``."""
    for kind in kinds:
        for r in runtime.of_kind(kind):
            if any(w.path == path for w in r.witnesses):
                return r.id
    return None


def _object_class(arts: list[Artifact]) -> ObjectClass:
    """The most specific class among a file's artifacts (grades before scores...)."""
    order = list(CLASS_WORDS)
    return min((a.cls for a in arts), key=order.index)


def _group_objects(artifacts: list[Artifact], runtime: RuntimeInput) -> list[EpiObject]:
    """One object per file: the artifacts a module writes, keys it reports, answers it
    extracts.  Named report keys and model answers lead, so they become the witnesses."""
    groups: dict[str, list[Artifact]] = {}
    for a in artifacts:
        groups.setdefault(a.path, []).append(a)
    ranked = sorted(
        groups.items(),
        key=lambda kv: (
            secondary(kv[0]),
            not any(a.names for a in kv[1]),
            not any(a.persisted for a in kv[1]),
            -len({a.line for a in kv[1]}),
            kv[0],
        ),
    )
    taken: set[str] = set()
    out: list[EpiObject] = []
    for path, arts in ranked[:MAX_OBJECTS]:
        arts = sorted(arts, key=lambda a: (not a.names, not a.persisted, a.line))
        cls = _object_class(arts)
        stem = _slug(path.rsplit("/", 1)[-1].removesuffix(".py"))
        oid = unique_id(f"EPI-OBJ-{stem}-{cls.value}", taken)
        out.append(EpiObject(oid, cls, path, arts, owner_record(path, runtime, ("OBJ", "RTE"))))
    return out


def _link(site: CheckSite, objects: list[EpiObject], survey: Survey) -> list[str]:
    same = [o for o in objects if o.path == site.path]
    own = [o for o in same if any(a.symbol == site.symbol for a in o.artifacts)]
    if own or same:
        return [o.id for o in (own or same)][:2]
    node = f"{site.path}::{site.symbol}"
    callees = {n.split("::", 1)[0] for n in survey.call_graph.callees(node)}
    called = [o for o in objects if o.path in callees]
    return [o.id for o in called][:2]


T = TypeVar("T", CheckSite, EpiObject)


def fold_copies(
    items: list[T], shape: Callable[[T], tuple[str, ...]]
) -> tuple[list[T], dict[int, list[str]]]:
    """Items whose shape (a function's name and deciding lines, an object's class and
    quoted lines) repeats in other files are one item: the first stays, and the map
    from its ``id()`` lists the other files.  Nothing repository-specific is named."""
    first: dict[tuple[str, ...], T] = {}
    copies: dict[int, list[str]] = {}
    out: list[T] = []
    for it in items:
        key = shape(it)
        kept = first.get(key)
        if kept is None:
            first[key] = it
            out.append(it)
        elif it.path != kept.path:
            copies.setdefault(id(kept), []).append(it.path)
    return out, {k: list(dict.fromkeys(v)) for k, v in copies.items()}


def make_plan(
    survey: Survey, runtime: RuntimeInput, text_of: Callable[[str], list[str] | None]
) -> EpiPlan:
    """Scan, rank, cap and link: the typed outline of the epistemic draft."""
    sites, site_copies = fold_copies(
        find_check_sites(survey, text_of), lambda s: (s.symbol, *(c.text for c in s.lines))
    )
    sites = sites[:MAX_ROUTES]
    artifacts = find_artifacts(survey, sites, text_of)
    objects, obj_copies = fold_copies(
        _group_objects(artifacts, runtime),
        lambda o: (o.cls.value, *(a.text for a in o.artifacts)),
    )
    for o in objects:
        o.copies = obj_copies.get(id(o), [])
    taken: set[str] = set()
    routes: list[EpiRoute] = []
    for site in sites:
        linked = _link(site, objects, survey)
        if not linked and not any(truth_class(c.text) for c in site.lines):
            continue  # checks nothing truth-apt: an exit code or a count of something else
        rid = unique_id(f"EPI-RTE-{_slug(site.name)}-{site.kinds[0].value}", taken)
        part = owner_record(site.path, runtime, ("RTE",))
        routes.append(EpiRoute(rid, site, linked, part, site_copies.get(id(site), [])))
    # objects nothing persists, no route transforms and no model produced are noise
    used = {o for r in routes for o in r.objects}
    objects = [o for o in objects if o.persisted or o.id in used or o.model_output]
    return EpiPlan(objects, routes)
