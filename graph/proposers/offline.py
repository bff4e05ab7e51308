"""The offline proposer: a fully verified first draft from the static survey alone.

Why it exists: most analysts' first run, CI and this machine have no API key.  The
proposer implements the same contract as the Claude proposer (plan / draft_record /
repair_record / account) so the LangGraph workflow runs it unchanged; it never calls
a model.  ``draft_offline`` runs the same steps in plain Python for tests and scripts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drafter.model import (
    RUNTIME_SECTIONS,
    RUNTIME_TYPE_PATH,
    SECTION_KIND,
    AccountSection,
    Block,
    DraftMeta,
    Heading,
    Record,
    RecordSection,
    Report,
    ReportType,
    Source,
    WitnessBlock,
)
from drafter.snapshot import Snapshot
from graph.proposer import AccountContext, Miss, Plan, PlanContext, RecordContext
from graph.proposers import offline_records as rec
from graph.proposers.offline_plan import entry_units, plan_items, progression_nodes
from graph.proposers.offline_text import join_names, para
from retrieval.survey import Finding, Survey
from retrieval.survey.source import module_name


def _as_survey(obj: Any) -> Survey | None:
    if obj is None or isinstance(obj, Survey):
        return obj
    return Survey.model_validate(obj)


def _as_finding(obj: Any) -> Finding:
    return obj if isinstance(obj, Finding) else Finding.model_validate(obj)


class OfflineProposer:
    """Rule-based proposer over a :class:`retrieval.survey.Survey`; deterministic."""

    name = "offline"

    def __init__(self, survey: Survey | None = None, snapshot: Snapshot | None = None):
        self.survey = survey
        self.snapshot = snapshot
        self._texts: dict[str, str | None] = {}

    # -- helpers ------------------------------------------------------------------

    def _text_of(self, extra: dict[str, str] | None = None) -> Callable[[str], str | None]:
        # The whole file from the snapshot comes first: the workflow's file_texts are
        # clipped for a model's context window, and a clipped text cannot show that a
        # quote occurs only once (a quote judged unique there came back ambiguous).
        def text_of(path: str) -> str | None:
            if path in self._texts:
                return self._texts[path]
            if self.snapshot is None:
                return extra.get(path) if extra else None
            try:
                tf = self.snapshot.read_text(path)
                text = None if tf.binary else tf.text
            except Exception:  # noqa: BLE001 - a missing text only means "give a line range"
                text = None
            self._texts[path] = text
            return text

        return text_of

    def _findings(self, ctx: RecordContext) -> list[Finding]:
        """The item's findings, in the item's order, from the context or the survey."""
        given = {f.id: f for f in (_as_finding(x) for x in ctx.findings)}
        out = []
        for fid in ctx.item.facts:
            f = given.get(fid) or (self.survey.finding(fid) if self.survey else None)
            if f is not None:
                out.append(f)
        return out

    # -- contract -----------------------------------------------------------------

    def plan(self, ctx: PlanContext) -> Plan:
        survey = _as_survey(ctx.survey) or self.survey
        if survey is None:
            raise ValueError("the offline proposer needs the survey in PlanContext.survey")
        self.survey = survey
        modules = {module_name(p) for p in ctx.files if p.endswith(".py")} | {
            module_name(n.path) for n in survey.call_graph.functions.values()
        }
        items = plan_items(survey, max_records=ctx.max_records, repo_modules=modules)
        return Plan(system=ctx.system, items=items)

    def draft_record(self, ctx: RecordContext) -> Record | None:
        """The record for one plan item, or None when its findings yield no witness
        (a record the analyst cannot check against the source is not worth drafting)."""
        fs = self._findings(ctx)
        if not fs:
            return None
        rec = self._draft(ctx, fs)
        return rec if rec is not None and rec.witnesses else None

    def _draft(self, ctx: RecordContext, fs: list[Finding]) -> Record | None:
        text_of = self._text_of(ctx.file_texts)
        kind = ctx.item.kind
        if kind == "CMP":
            return rec.component(ctx.item, fs, ctx.plan, text_of)
        if kind == "OBJ":
            if fs[0].category == "tool_dispatch":
                return rec.registry_object(ctx.item, fs, ctx.plan, text_of)
            if fs[0].category == "gating":
                return rec.score_object(ctx.item, fs, ctx.plan, text_of)
            if fs[0].category == "prompt":
                return rec.prompt_object(ctx.item, fs, ctx.plan, text_of)
            return rec.artifact(ctx.item, fs, ctx.plan, text_of)
        if kind == "RTE":
            return rec.route(ctx.item, fs, ctx.plan, text_of, self._progression(fs[0]))
        if kind == "CLM":
            return rec.claim(ctx.item, fs, ctx.plan, text_of)
        if kind == "BAP":
            return rec.bap(ctx.item, fs, ctx.plan, text_of)
        return None

    def _progression(self, entry: Finding) -> list[str] | None:
        if self.survey is None:
            return None
        for u in entry_units(self.survey):
            if u.primary.id == entry.id:
                return progression_nodes(u, self.survey)
        return None

    def repair_record(
        self, ctx: RecordContext, record: Record, misses: list[Miss]
    ) -> Record | None:
        """Drop missed witnesses, or swap in the verifier's exact nearest passage when it is
        an exact hit for the same lines (the offline quotes come from the file itself, so a
        miss means the file changed under us; nothing is ever kept unverified)."""
        missed = {(m.witness.path, m.witness.quote) for m in misses}
        blocks: list[Block] = []
        dropped = 0
        for b in record.blocks:
            if isinstance(b, WitnessBlock) and (b.witness.path, b.witness.quote) in missed:
                dropped += 1
                continue
            blocks.append(b)
        out = record.model_copy(update={"blocks": blocks})
        if dropped:
            out.flags = [
                *record.flags,
                f"offline repair dropped {dropped} witness(es) that did not verify",
            ]
        return out

    def account(self, ctx: AccountContext) -> list[AccountSection]:
        survey = _as_survey(ctx.survey) or self.survey
        return [AccountSection(title="Runtime account", blocks=account_blocks(survey, ctx.records))]


def account_blocks(survey: Survey | None, records: list[Record]) -> list[Block]:
    """The runtime-account narrative: scope, entry, models, effects, persistence, limits."""
    by_kind: dict[str, list[Record]] = {}
    for r in records:
        by_kind.setdefault(r.kind, []).append(r)
    blocks: list[Block] = [Heading(text="Scope and ordinary invocation")]
    if survey is None:
        blocks.append(para("No survey was available; the draft holds no records."))
        return blocks
    blocks.append(
        para(
            f"Offline first draft from a static survey of {survey.repository} at "
            f"{survey.revision} (SRC-1): "
            f"{survey.python_files} Python files of {survey.files_total} files, "
            f"{len(survey.findings)} findings. "
            "No model was called and no code of the repository was run; operation, "
            "activation and benefit "
            "remain uninspected. Every witness below is quoted from the revision and "
            "checked mechanically."
        )
    )
    routes = by_kind.get("RTE", [])
    if routes:
        blocks.append(
            para(
                "Ways of starting the system ranked by what they reach: "
                f"{join_names([r.id for r in routes], 8)}. "
                + " ".join(
                    f"{r.id}: {r.lead.get('Endpoints/progression', '').rstrip('.')}."
                    for r in routes[:3]
                )
            )
        )
    else:
        blocks.append(
            para(
                "The survey found no entry point (no __main__ guard, CLI command, console "
                "script or shell script running Python)."
            )
        )
    comps = by_kind.get("CMP", [])
    prompt_ids = [
        r.id for r in by_kind.get("OBJ", []) if "rompt" in r.label or "nstruction" in r.label
    ]
    blocks.append(Heading(text="Models, effects and persistence"))
    model_calls = survey.by_category("model_call")
    effects = survey.by_category("exec_effect")
    writes = survey.by_category("persistence")
    blocks.append(
        para(
            f"Model endpoints: {join_names([f'{r.id} ({r.label})' for r in comps], 6)}; "
            f"{len(model_calls)} model call site(s) in "
            f"{join_names(sorted({f.path for f in model_calls}), 5)}. "
            f"Execution effects: {len(effects)} site(s) in "
            f"{join_names(sorted({f.path for f in effects}), 5)}. "
            f"Writes: {len(writes)} site(s); the main artifacts are "
            f"{join_names([r.id for r in by_kind.get('OBJ', []) if 'artifact' in r.label], 6)}. "
            f"Shipped instructions: {join_names(prompt_ids, 6)}."
        )
    )
    baps = by_kind.get("BAP", [])
    if baps:
        blocks.append(
            para(f"Behavioral authority: {join_names([f'{r.id} ({r.label})' for r in baps], 6)}.")
        )
    blocks.append(Heading(text="Evidence limits"))
    limits = (
        "The call graph is best effort: "
        f"{len(survey.call_graph.functions)} functions and "
        f"{sum(len(v) for v in survey.call_graph.edges.values())} edges resolved by name "
        "inside the repository; "
        "calls through external libraries, callbacks registered elsewhere and dynamic "
        "dispatch are not followed."
    )
    if survey.notices:
        limits += " Survey notices: " + "; ".join(survey.notices[:6]) + "."
    blocks.append(para(limits))
    return blocks


def assemble(
    system: str, survey: Survey, records: list[Record], account: list[AccountSection]
) -> Report:
    """Records into the runtime report's sections, in the format's order."""
    sections = []
    for title in RUNTIME_SECTIONS:
        kind = SECTION_KIND.get(title)
        recs = [r for r in records if r.kind == kind] if kind else []
        note = "none declared in this member" if title == "Evidenced absences" else None
        sections.append(RecordSection(title=title, records=recs, note=note))
    return Report(
        system=system,
        type=ReportType.runtime,
        type_path=RUNTIME_TYPE_PATH,
        source=Source(repository=survey.repository, revision=survey.revision),
        account=account,
        sections=sections,
        annotations="none",
        meta=DraftMeta(generator="offline", notes=list(survey.notices)),
    )


def draft_offline(snapshot: Snapshot, survey: Survey, system: str | None = None) -> Report:
    """plan → draft_record per item → account → assemble, in plain Python (no LangGraph)."""
    name = system or snapshot.identity.rsplit("/", 1)[-1]
    proposer = OfflineProposer(survey=survey, snapshot=snapshot)
    files = snapshot.files()
    plan = proposer.plan(
        PlanContext(
            system=name,
            repository=survey.repository,
            revision=survey.revision,
            files=files,
            survey=survey,
            max_records=60,
        )
    )
    records: list[Record] = []
    for item in plan.items:
        fs = [f for f in (survey.finding(x) for x in item.facts) if f is not None]
        r = proposer.draft_record(RecordContext(item=item, plan=plan, findings=fs))
        if r is not None:
            records.append(r)
    account = proposer.account(AccountContext(plan=plan, records=records, survey=survey))
    return assemble(name, survey, records, account)
