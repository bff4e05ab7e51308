"""The four tables of an epistemic report, built from the plan, survey and runtime input.

Headers are the format's (the gold epistemic report's), column for column.  Cells
cite only runtime IDs present in the runtime input and paths present at the
revision; what the rules cannot decide reads "uninspected" or "not determinable
statically".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from drafter.model import Record, Table
from graph.epistemic.plan import EpiPlan, EpiRoute
from graph.epistemic.records import KIND_LIMIT, KIND_STEP
from graph.epistemic.runtime_input import RuntimeInput
from graph.epistemic.scan import CheckKind, auxiliary, truth_class
from retrieval.survey import Survey
from retrieval.survey.model import Category

COVERAGE_HEADER = [
    "Entry point or operation",
    "Source path",
    "Coverage and records",
    "Limit and conclusion prevented",
]
INVENTORY_HEADER = [
    "Object ID",
    "Candidate truth-apt content or none",
    "Claimed role",
    "Evidence source ID and local anchor",
    "Gap/limit",
]
LEDGER_HEADER = [
    "Route ID",
    "Route function",
    "Architectural status",
    "Object/candidate ID",
    "Content/update relation",
    "Transition or check target",
    "Evaluator/condition and domain",
    "Activation and timing",
    "Possible or observed result",
    "Implemented force",
    "Epistemic authority and scope",
    "Operational authority",
    "Behavioral-authority path",
    "Evidence source ID and local anchor",
    "Claim IDs or none",
    "Mismatch marker or none",
    "Gap/limit",
]
COMPARISON_HEADER = [
    "Claim ID",
    "Claimed operation or warrant",
    "Claim source ID/anchor and evidence layer",
    "Doctrine/design support",
    "Implemented route IDs",
    "Observed-run support",
    "Causal support and design limits",
    "Supported conclusion",
    "Mismatch/unknown",
]
UNDECIDED = "not determinable statically"
MAX_ENTRY_ROWS = 8

#: Ledger columns 2, 5 and 10 by check kind.
_FUNCTION = {
    CheckKind.normalisation: (
        "content transformation",
        "truth-apt transformation: non-ampliative reshaping",
        "Enforces a comparison convention",
    ),
    CheckKind.mapping: (
        "content transformation",
        "truth-apt transformation: entailed derivation",
        "Fixed symbolic mapping",
    ),
    CheckKind.comparison: (
        "check/evidence production",
        "truth-apt transformation: entailed derivation",
        "Measurement",
    ),
    CheckKind.aggregation: (
        "check/evidence production",
        "truth-apt transformation: entailed derivation",
        "Measurement",
    ),
    CheckKind.threshold: ("disposition/acceptance", "no content change", "Permissive/veto"),
}
#: Survey categories at a runtime record's witnesses -> the ledger's route function.
_CATEGORY_FUNCTION = (
    (Category.GATING, "disposition/acceptance", "Permissive/veto"),
    (
        Category.READ_BACK,
        "operational admission/selection/consumption",
        "Consumption of stored content",
    ),
    (Category.PERSISTENCE, "retention", "Durable storage"),
)


@dataclass
class Inputs:
    """Everything the table builders read."""

    plan: EpiPlan
    runtime: RuntimeInput
    survey: Survey
    path_exists: Callable[[str], bool]

    def paths_of(self, rec: Record) -> list[str]:
        return [p for p in dict.fromkeys(w.path for w in rec.witnesses) if self.path_exists(p)]

    def runtime_citing(self, kind: str, paths: set[str]) -> list[str]:
        return [r.id for r in self.runtime.of_kind(kind) if paths & set(self.paths_of(r))]


def _anchor(paths: list[str]) -> str:
    return ", ".join(["SRC-1", *paths]) if paths else "SRC-1"


def coverage_table(x: Inputs) -> Table:
    rows: list[list[str]] = []
    by_path: dict[str, list[str]] = {}
    for f in x.survey.index().category(Category.ENTRY_POINT):
        if x.path_exists(f.path) and not auxiliary(f.path):
            by_path.setdefault(f.path, []).append(f.kind)
    for path, kinds in list(by_path.items())[:MAX_ENTRY_ROWS]:
        supplied = x.runtime_citing("RTE", {path})
        cov = "Direct survey read" + (f"; supplied {', '.join(supplied[:3])}" if supplied else "")
        rows.append(
            [
                f"Entry point ({', '.join(sorted(set(kinds)))})",
                path,
                cov,
                "No execution; exposure does not show an exercised mode.",
            ]
        )
    for r in x.runtime.of_kind("RTE"):
        paths = x.paths_of(r)
        if paths:
            rows.append(
                [
                    r.label,
                    ", ".join(paths),
                    f"Supplied {r.id}",
                    "Supplied passages only; operation uninspected.",
                ]
            )
    for route in x.plan.routes:
        objs = ", ".join(route.objects)
        cov = f"Direct reads; {route.id}" + (f", {objs}" if objs else "")
        rows.append(
            [
                f"{route.main_kind.value.capitalize()} in {route.site.symbol}",
                route.site.path,
                cov,
                KIND_LIMIT[route.main_kind],
            ]
        )
    routed = {o for r in x.plan.routes for o in r.objects}
    for obj in x.plan.objects:
        if obj.id not in routed:
            rows.append(
                [
                    f"{obj.cls.value.capitalize()} storage",
                    obj.path,
                    f"Direct read; {obj.id}",
                    "Truth of stored values not determinable statically.",
                ]
            )
    return Table(header=list(COVERAGE_HEADER), rows=rows)


def inventory_table(x: Inputs) -> Table:
    rows = [
        [
            o.id,
            f"{o.cls.value.capitalize()}; whether correct is {UNDECIDED}",
            "see record",
            _anchor([o.path]),
            "No run output inspected; input provenance uninspected.",
        ]
        for o in x.plan.objects
    ]
    epi_paths = {o.path for o in x.plan.objects} | {r.site.path for r in x.plan.routes}
    for kind in ("OBJ", "CMP"):
        for r in x.runtime.of_kind(kind):
            text = f"{r.label} {r.body_text()}"
            truthy = truth_class(text) is not None
            # runtime objects enter the inventory when they may carry truth-apt content
            # or sit where the EPI objects and routes are; components always do
            if kind == "OBJ" and not truthy and not epi_paths & set(x.paths_of(r)):
                continue
            content = "uninspected" if truthy else UNDECIDED
            rows.append(
                [
                    r.id,
                    content,
                    "see record",
                    _anchor(x.paths_of(r)[:3]),
                    "Supplied runtime record; truth-apt content not individuated here.",
                ]
            )
    return Table(header=list(INVENTORY_HEADER), rows=rows)


def _claims_for(x: Inputs, paths: set[str]) -> str:
    return ", ".join(x.runtime_citing("CLM", paths)) or "none"


def _bap_for(x: Inputs, paths: set[str]) -> str:
    baps = x.runtime_citing("BAP", paths)
    return "see " + " and ".join(baps[:2]) if baps else UNDECIDED


def _epi_row(x: Inputs, route: EpiRoute) -> list[str]:
    fn, relation, force = _FUNCTION[route.main_kind]
    site, paths = route.site, {route.site.path}
    steps = " → ".join(KIND_STEP[k] for k in route.site.kinds)
    return [
        route.id,
        fn,
        "implemented",
        ", ".join(route.objects) or "see route",
        relation,
        f"Values handled by {site.symbol}",
        f"{steps}; see route",
        "see route",
        "uninspected",
        force,
        KIND_LIMIT[route.main_kind],
        UNDECIDED,
        _bap_for(x, paths),
        _anchor([site.path]),
        _claims_for(x, paths),
        "none",
        "Operation uninspected.",
    ]


def _finding_categories(x: Inputs, rec: Record) -> set[str]:
    cats: set[str] = set()
    for w in rec.witnesses:
        v = w.verification
        if v is None or v.lines is None:
            continue
        for f in x.survey.index().by_path.get(w.path, []):
            if f.start_line <= v.lines.end and v.lines.start <= f.end_line:
                cats.add(f.category)
    return cats


def _runtime_row(x: Inputs, rec: Record, epi_paths: set[str]) -> list[str] | None:
    paths = set(x.paths_of(rec))
    cats = _finding_categories(x, rec)
    shared = paths & epi_paths
    if not shared and not (cats & {Category.PERSISTENCE, Category.READ_BACK, Category.GATING}):
        return None
    fn, force = next(
        ((f, frc) for c, f, frc in _CATEGORY_FUNCTION if c in cats), (UNDECIDED, UNDECIDED)
    )
    objs = [o.id for o in x.plan.objects if o.path in paths]
    return [
        rec.id,
        fn,
        "implemented",
        ", ".join(objs) or "see route",
        "no content change",
        "see route",
        "see route",
        "see route",
        "uninspected",
        force,
        "Retention or selection is not acceptance of the content's truth",
        UNDECIDED,
        _bap_for(x, paths),
        _anchor(sorted(paths)[:3]),
        _claims_for(x, paths),
        "none",
        "Supplied runtime record; operation uninspected.",
    ]


def ledger_table(x: Inputs) -> Table:
    rows = [_epi_row(x, r) for r in x.plan.routes]
    epi_paths = {r.site.path for r in x.plan.routes} | {o.path for o in x.plan.objects}
    for rec in x.runtime.of_kind("RTE"):
        row = _runtime_row(x, rec, epi_paths)
        if row is not None:
            rows.append(row)
    return Table(header=list(LEDGER_HEADER), rows=rows)


def _layer(paths: list[str]) -> str:
    if paths and all(p.endswith((".md", ".rst", ".txt")) for p in paths):
        return "doctrine/design"
    return "implementation" if paths else UNDECIDED


def comparison_table(x: Inputs) -> Table:
    rows: list[list[str]] = []
    for c in x.runtime.of_kind("CLM"):
        paths = x.paths_of(c)
        routes = x.runtime_citing("RTE", set(paths)) + [
            r.id for r in x.plan.routes if r.site.path in paths
        ]
        claimed = c.lead.get("Claimed operation") or c.label
        rows.append(
            [
                c.id,
                claimed,
                f"{_anchor(paths[:3])}; {_layer(paths)}",
                "see claim",
                ", ".join(routes) or "none found by shared source",
                "None registered",
                "No comparison or trace registered",
                "uninspected",
                "unknown",
            ]
        )
    return Table(header=list(COMPARISON_HEADER), rows=rows)
