"""The recipe contract: one module per record family, each with ``plan`` and ``draft``.

Why recipes: a plan item carries its meaning in typed fields (``recipe``, ``hints``),
so the record builder that drafts it is chosen by ``item.recipe`` and reads its
parameters from ``item.hints`` — never from the label or the rationale, which are
prose for people.  Planning state shared across recipes (the survey index, the IDs
handed out so far, the items earlier recipes planned, the ranked entry units) travels
in :class:`PlanState`; what one record's builder may use travels in
:class:`DraftContext`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from drafter import defaults
from drafter.ids import unique_id
from drafter.model import Block, Record
from drafter.text import clip
from graph.jsontypes import JsonDict
from graph.proposer import Plan, PlanItem
from graph.proposers.offline.deciding import deciding
from graph.proposers.offline.prose import TextOf, wblock, witness
from graph.proposers.offline.rank import is_test_path
from retrieval.survey import Finding
from retrieval.survey.index import EntryUnit, SurveyIndex

#: Hybrid search over the revision's chunks: (query, k, path glob) -> hit dicts.
Search = Callable[[str, int, str | None], list[JsonDict]]


@dataclass(frozen=True)
class Limits:
    """How long the draft may be.  The default is sized for one analyst's review;
    ``thorough`` keeps the long form (more records, more witnesses each)."""

    records: int = defaults.OFFLINE_MAX_RECORDS
    witnesses: int = defaults.OFFLINE_WITNESSES
    thorough: bool = False

    @classmethod
    def for_run(cls, max_records: int | None, thorough: bool) -> Limits:
        records = max_records or defaults.max_records("offline", thorough)
        if thorough:
            return cls(records=records, witnesses=defaults.THOROUGH_WITNESSES, thorough=True)
        return cls(records=records, witnesses=defaults.OFFLINE_WITNESSES)


class Ids:
    """Hands out unique record IDs in plan order (the order itself is deterministic)."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def take(self, kind: str, slug_: str) -> str:
        return unique_id(f"RT-{kind}-{slug_}", self.used)


@dataclass
class PlanState:
    """What recipes share while planning."""

    ix: SurveyIndex
    limits: Limits
    units: list[EntryUnit] = field(default_factory=list)  # core-first, entry routes only
    secondary_units: list[EntryUnit] = field(default_factory=list)  # summarised, not routed
    #: the routes in the best rank tier: how the system is meant to be started
    primary_units: list[EntryUnit] = field(default_factory=list)
    repo_modules: set[str] = field(default_factory=set)
    ids: Ids = field(default_factory=Ids)
    items: list[PlanItem] = field(default_factory=list)
    #: whole file texts at the revision, for rules that read a function's own lines
    text_of: TextOf | None = None

    def of_recipe(self, *names: str) -> list[PlanItem]:
        return [i for i in self.items if i.recipe in names]

    def item(
        self,
        recipe: Recipe,
        slug_: str,
        label: str,
        facts: list[Finding],
        rationale: str,
        hints: JsonDict | None = None,
    ) -> PlanItem:
        """A plan item of ``recipe``, its ID taken from ``slug_`` under the recipe's kind
        (``RT-<kind>-<slug>``, made unique in plan order)."""
        return make_item(
            recipe.name,
            recipe.kind,
            self.ids.take(recipe.kind, slug_),
            label,
            facts,
            rationale,
            hints,
        )


@dataclass
class DraftContext:
    """What one record's builder may use."""

    item: PlanItem
    findings: list[Finding]
    plan: Plan
    text_of: TextOf | None
    limits: Limits
    ix: SurveyIndex | None = None
    search: Search | None = None

    def witnesses(self, fs: list[Finding], limit: int | None = None) -> list[Block]:
        """Witness blocks for ``fs`` in order, at most the record's witness budget.  Lines
        in test code are quoted only when nothing else is: a test shows how the system is
        exercised, not what it does."""
        fs = [f for f in fs if not is_test_path(f.path)] or fs
        cap = self.limits.witnesses if limit is None else min(limit, self.limits.witnesses)
        return witness_blocks(fs, self.text_of, cap)

    def record(self, blocks: list[Block], witnessed: list[Finding]) -> Record:
        """The planned record: its prose ``blocks``, then the witnesses of ``witnessed``
        (the order given, within the witness budget) -- how every recipe ends a record.
        """
        return Record(
            id=self.item.id, label=self.item.label, blocks=[*blocks, *self.witnesses(witnessed)]
        )

    def item_with(self, finding: Finding, *recipes: str) -> PlanItem | None:
        """The plan item of one of ``recipes`` that builds on ``finding``."""
        for it in self.plan.items:
            if it.recipe in recipes and finding.id in it.facts:
                return it
        return None


class Recipe(Protocol):
    """One record family."""

    name: str
    kind: str

    def plan(self, st: PlanState) -> list[PlanItem]: ...

    def draft(self, ctx: DraftContext) -> Record | None: ...


def file_stem(path: str) -> str:
    """``pkg/run_agent.py`` -> ``run_agent``: the file's name without folder or suffix, the
    base of the IDs recipes give to per-file records."""
    return path.rsplit("/", 1)[-1].rsplit(".", 1)[0]


def make_item(
    recipe: str,
    kind: str,
    ident: str,
    label: str,
    facts: list[Finding],
    rationale: str,
    hints: JsonDict | None = None,
) -> PlanItem:
    """A plan item whose files are those of its findings, in their order."""
    return PlanItem(
        id=ident,
        kind=kind,
        label=clip(label, 120, at_word=True),
        files=list(dict.fromkeys(f.path for f in facts)),
        rationale=rationale,
        facts=list(dict.fromkeys(f.id for f in facts)),
        recipe=recipe,
        hints=hints or {},
    )


def witness_blocks(fs: list[Finding], text_of: TextOf | None, limit: int) -> list[Block]:
    """Witnesses for the findings in order, one per distinct quote, at most ``limit``;
    a line that decides nothing (:mod:`.deciding`) is never a witness."""
    out: list[Block] = []
    seen: set[tuple[str, str, str]] = set()
    for f in fs:
        if len(out) >= limit:
            break
        w = witness(f, text_of)
        if w is None or not deciding(f, w.quote):
            continue
        key = (w.path, w.quote, str(w.lines))
        if key in seen:
            continue
        seen.add(key)
        out.append(wblock(w))
    return out
