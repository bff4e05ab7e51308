"""The offline epistemic proposer: every section of the type, from rules alone.

Sections follow the format's order: Source-and-claim boundary, Coverage,
Epistemic-object inventory, Authority-route ledger, System-claim versus route
comparison, Bounded conclusion, then the shared records (EPI-OBJ, EPI-RTE).  The
prose states counts and limits the rules can stand behind; everything else is left
"uninspected" for the analyst.
"""

from __future__ import annotations

from drafter.model import (
    EPISTEMIC_TYPE_PATH,
    AccountSection,
    Block,
    Paragraph,
    RecordSection,
    Report,
    ReportType,
    Source,
    Table,
)
from drafter.textformat.parser import EPISTEMIC_ACCOUNT_SECTIONS
from graph.epistemic.plan import EpiPlan, make_plan
from graph.epistemic.proposer import EpistemicContext, EpistemicProposer
from graph.epistemic.records import object_record, route_record
from graph.epistemic.scan import CheckKind
from graph.epistemic.tables import (
    Inputs,
    comparison_table,
    coverage_table,
    inventory_table,
    ledger_table,
)


class OfflineEpistemicProposer(EpistemicProposer):
    """Drafts an epistemic report without a model."""

    name = "offline"

    def draft(self, ctx: EpistemicContext) -> Report:
        plan = make_plan(ctx.survey, ctx.runtime, ctx.text_of)
        x = Inputs(plan, ctx.runtime, ctx.survey, ctx.path_exists)
        tables = {
            "Coverage": coverage_table(x),
            "Epistemic-object inventory": inventory_table(x),
            "Authority-route ledger": ledger_table(x),
            "System-claim versus route comparison": comparison_table(x),
        }
        account = [
            AccountSection(title="Source-and-claim boundary", blocks=[*boundary(ctx, plan)]),
            *(
                AccountSection(title=t, blocks=[Paragraph(text=_TABLE_LEADS[t]), tables[t]])
                for t in EPISTEMIC_ACCOUNT_SECTIONS[1:5]
            ),
            AccountSection(title="Bounded conclusion", blocks=[*conclusion(plan, tables)]),
        ]
        objects = [object_record(o, ctx.text_of) for o in plan.objects]
        routes = [route_record(r, plan, ctx.survey, ctx.text_of) for r in plan.routes]
        return Report(
            system=ctx.system,
            type=ReportType.epistemic,
            type_path=EPISTEMIC_TYPE_PATH,
            source=Source(repository=ctx.identity, revision=ctx.sha),
            account=account,
            sections=[
                RecordSection(
                    title="Operative objects",
                    records=objects,
                    note=None if objects else "none found by the offline rules",
                ),
                RecordSection(
                    title="Routes",
                    records=routes,
                    note=None if routes else "none found by the offline rules",
                ),
            ],
        )


_TABLE_LEADS = {
    "Coverage": "“Direct” means the offline rules read SRC-1 source text; “supplied” means "
    "reliance on a cited runtime record and its retained passages. No target code was "
    "executed.",
    "Epistemic-object inventory": "Each row is an artifact that may carry truth-apt content, "
    "or a supplied runtime object or component. Whether any value is true is not determinable "
    "statically.",
    "Authority-route ledger": "Each row is a route that writes, transforms, checks or consumes "
    "such an object. Fields owned by the cited records are marked see; observed activation is "
    "uninspected for every row.",
    "System-claim versus route comparison": "Each supplied runtime claim is set against the "
    "routes that share its source; no run evidence was registered.",
}


def boundary(ctx: EpistemicContext, plan: EpiPlan) -> list[Block]:
    rt = ctx.runtime
    which = "accepted in review" if rt.accepted_only else "as drafted (not reviewed)"
    claims = [r.id for r in rt.of_kind("CLM")]
    return [
        Paragraph(
            text=(
                f"The question is whether producing, evaluating and reusing the outputs of "
                f"{ctx.system} also produces warranted knowledge about them. SRC-1 is "
                f"{ctx.identity} at {ctx.sha}; it supplies implementation and doctrine, not "
                "observed runs or causal experiments. No target code was executed."
            )
        ),
        Paragraph(
            text=(
                f"The runtime input is {rt.origin}: {len(rt.report.records)} runtime records, "
                f"{which}. Only those record IDs are cited. Claims considered: "
                f"{', '.join(claims) if claims else 'none supplied'}."
            )
        ),
        Paragraph(
            text=(
                "Missing execution traces prevent attributing actual outcomes, accepted answers or "
                "improvement; missing comparisons prevent causal attribution to any component. "
                "Reference labels and external evaluators enter with unknown source warrant."
            )
        ),
    ]


def conclusion(plan: EpiPlan, tables: dict[str, Table]) -> list[Block]:
    kinds: dict[CheckKind, int] = {}
    for r in plan.routes:
        kinds[r.main_kind] = kinds.get(r.main_kind, 0) + 1
    found = ", ".join(f"{n} {k.value}" for k, n in kinds.items()) or "no"
    ledger_rows = len(tables["Authority-route ledger"].rows)
    return [
        Paragraph(
            text=(
                f"The offline rules find {len(plan.objects)} candidate truth-apt object(s) and "
                f"{len(plan.routes)} route(s) that transform or check them ({found}); the ledger "
                f"holds {ledger_rows} row(s). Comparisons and aggregations derive propositions "
                "conditional on their inputs, not independent confirmation of those inputs."
            )
        ),
        Paragraph(
            text=(
                "Thresholds and selections grant operational authority; they do not accept an "
                "explanation of why a candidate scored as it did. Operation, reference provenance "
                "and evaluator accuracy remain uninspected, so no system-wide negative and no "
                "single epistemic score follows."
            )
        ),
    ]
