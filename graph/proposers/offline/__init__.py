"""The offline proposer: a verified first draft from the static survey, no model.

Why it exists: most analysts' first run, CI and machines without an API key have no
model.  It implements the proposer contract (plan / draft_record / repair_record /
account) so the LangGraph workflow runs it exactly as it runs the Claude proposer —
there is no second pipeline.  Planning asks every recipe (:mod:`.plan`) for items;
drafting hands each item to the recipe its typed ``recipe`` field names.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from drafter.model import AccountSection, Block, Flag, FlagKind, Record, WitnessBlock
from drafter.snapshot import Snapshot
from graph.proposer import (
    AccountContext,
    Miss,
    Plan,
    PlanContext,
    RecordContext,
    RuntimeProposer,
)
from graph.proposers.offline.account import account_sections
from graph.proposers.offline.labels import relabel, unsupported
from graph.proposers.offline.langs import module_of
from graph.proposers.offline.plan import RECIPES, plan_items
from graph.proposers.offline.prose import TextOf, join_names, para
from graph.proposers.offline.recipe import DraftContext, Limits, Search
from graph.proposers.offline.siblings import same_in
from graph.proposers.offline.status import restatus, with_statuses
from retrieval.survey import Finding, Survey
from retrieval.survey.index import SurveyIndex

__all__ = ["OfflineProposer", "RECIPES"]

_README = re.compile(r"^README[^/]*\.(md|rst|txt)$", re.I)


def _as_survey(obj: Any) -> Survey | None:
    if obj is None or isinstance(obj, Survey):
        return obj
    return Survey.model_validate(obj)


class OfflineProposer(RuntimeProposer):
    """Rule-based proposer over a survey; deterministic for a given revision."""

    name = "offline"
    #: The offline recipes read the survey and whole files, not the workflow's
    #: retrieval hits per record; the claims recipe searches the index itself.
    wants_chunks = False

    def __init__(
        self,
        snapshot: Snapshot | None = None,
        survey_source: Callable[[], Survey] | None = None,
        search: Search | None = None,
        limits: Limits | None = None,
    ):
        self.snapshot = snapshot
        self.survey_source = survey_source
        self.search = search
        self.limits = limits or Limits()
        self._ix: SurveyIndex | None = None
        self._texts: dict[str, str | None] = {}

    # -- shared -------------------------------------------------------------------

    def index(self, survey: Survey | None = None) -> SurveyIndex | None:
        """The survey index, built once per process (lazily on resume)."""
        if survey is not None and (self._ix is None or self._ix.survey is not survey):
            self._ix = survey.index()
        if self._ix is None and self.survey_source is not None:
            self._ix = self.survey_source().index()
        return self._ix

    def text_of(self, extra: dict[str, str] | None = None) -> TextOf:
        """Whole file texts from the snapshot: a clipped text cannot show that a quote
        occurs only once in its file."""

        def read(path: str) -> str | None:
            if path in self._texts:
                return self._texts[path]
            if self.snapshot is None:
                return (extra or {}).get(path)
            try:
                tf = self.snapshot.read_text(path)
                text = None if tf.binary else tf.text
            except Exception:  # noqa: BLE001 - a missing text only means "give a line range"
                text = None
            self._texts[path] = text
            return text

        return read

    # -- contract -----------------------------------------------------------------

    def plan(self, ctx: PlanContext) -> Plan:
        survey = _as_survey(ctx.survey)
        ix = self.index(survey)
        if ix is None:
            raise ValueError("the offline proposer needs the survey in PlanContext.survey")
        modules = {m for p in ctx.files if (m := module_of(p))}
        readme = "\n".join(self.text_of()(p) or "" for p in ctx.files if _README.match(p))
        limits = Limits(ctx.max_records, self.limits.witnesses, self.limits.thorough)
        items = plan_items(ix, limits, readme, modules, self.text_of())
        return Plan(system=ctx.system, items=items)

    def draft_record(self, ctx: RecordContext) -> Record | None:
        """The record for one plan item, or None when its findings yield no witness."""
        recipe = RECIPES.get(ctx.item.recipe)
        if recipe is None:
            return None
        ix = self.index()
        given = {
            f.id: f
            for f in (
                Finding.model_validate(x) if not isinstance(x, Finding) else x for x in ctx.findings
            )
        }
        fs = [
            f
            for f in ((given.get(i) or (ix.finding(i) if ix else None)) for i in ctx.item.facts)
            if f is not None
        ]
        if not fs:
            return None
        dctx = DraftContext(
            item=ctx.item,
            findings=fs,
            plan=ctx.plan,
            text_of=self.text_of(ctx.file_texts),
            limits=self.limits,
            ix=ix,
            search=self.search,
        )
        rec = recipe.draft(dctx)
        if rec is None or not rec.witnesses:
            return None  # no line that decides anything: nothing to draft
        siblings = [str(x) for x in ctx.item.hints.get("siblings") or []]
        if siblings:
            rec.blocks.insert(
                1 if len(rec.blocks) > 1 else len(rec.blocks),
                para(
                    f"The same structure repeats in sibling folders ({same_in(siblings)}: the "
                    "same file name and near-identical definitions); it is drafted once, from "
                    f"{join_names(list(dict.fromkeys(w.path for w in rec.witnesses)), 2)}."
                ),
            )
        # the hard rule: a listed name no witness shows leaves the label; a name the
        # rule cannot take out of a phrase is flagged for the analyst instead
        missing = unsupported(rec)
        if missing:
            rec.label = relabel(rec.label, missing)
            missing = unsupported(rec)
        if missing:
            text = "label names what no witness shows: " + ", ".join(missing)
            rec.flags = [*rec.flags, Flag(kind=FlagKind.unsupported_label, text=text)]
        return with_statuses(rec, ctx.item.kind, self._near(fs, rec))

    def repair_record(
        self, ctx: RecordContext, record: Record, misses: list[Miss]
    ) -> Record | None:
        """Drop missed witnesses (offline quotes come from the file itself, so a miss means
        the file changed under us; nothing is ever kept unverified)."""
        missed = {(m.witness.path, m.witness.quote) for m in misses}
        blocks: list[Block] = [
            b
            for b in record.blocks
            if not (isinstance(b, WitnessBlock) and (b.witness.path, b.witness.quote) in missed)
        ]
        dropped = len(record.blocks) - len(blocks)
        out = record.model_copy(update={"blocks": blocks})
        # a dropped code witness may take a "wired" with it; otherwise only fill gaps
        fix = restatus if dropped else with_statuses
        out = fix(out, ctx.item.kind, self._near([], out))
        if dropped:
            out.flags = [
                *record.flags,
                Flag(
                    kind=FlagKind.repair_dropped,
                    text=f"offline repair dropped {dropped} witness(es) that did not verify",
                ),
            ]
        return out

    def _near(self, fs: list[Finding], rec: Record) -> list[Finding]:
        """The item's findings and those of the files the record quotes: what tells a
        quote of code from a quote of a claim or instruction in a source file."""
        ix = self.index()
        near = [
            f
            for p in dict.fromkeys(w.path for w in rec.witnesses)
            for f in (ix.by_path.get(p, []) if ix else [])
        ]
        return [*fs, *near]

    def account(self, ctx: AccountContext) -> list[AccountSection]:
        survey = _as_survey(ctx.survey)
        ix = self.index(survey)
        return account_sections(ix, ctx.plan, ctx.records, self.text_of())
