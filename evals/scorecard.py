"""The scorecard of one evaluation: numbers, the pairs behind them, and how to show them.

Everything a reader needs to trust or doubt a score travels with it: the aligned pairs
with their similarity parts, the unmatched records of each side, the gold witnesses
left out of recall because they are absent at the revision, and the settings
(similarity backend, threshold) that produced the alignment.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console, Group, JustifyMethod
from rich.table import Table
from rich.text import Text

from drafter.model import Record, Report
from drafter.sanitize import json_safe, plain, visible
from evals.alignment import KindAlignment
from evals.content import ContentAgreement
from evals.metrics import ABSENT, KindScore, WitnessHits
from evals.support import LABEL as SUPPORT_LABEL
from evals.support import SupportReport
from evals.witnesses import ACCOUNT, LocatedWitness, kind_key


def fmt(v: float | None) -> str:
    return "—" if v is None else f"{v:.2f}"


@dataclass
class Scorecard:
    gold: Report
    draft: Report
    gold_name: str
    draft_name: str
    repository: str
    revision: str
    similarity: str
    threshold: float
    text_weight: float
    alignment: dict[str, KindAlignment]
    hits: WitnessHits
    kinds: dict[str, KindScore]
    overall: KindScore
    drafter_version: str
    created: str
    method: str = "coverage"
    content: ContentAgreement | None = None
    #: Overall score rows of trivial drafts on the same gold (evals.baselines), by name.
    baselines: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Heuristic support of each witness (evals.support): "draft" and "gold".
    support: dict[str, SupportReport] = field(default_factory=dict)
    #: The alignment scored against hand labels (evals.labels), when labels were given.
    label_check: dict[str, Any] | None = None
    timings: dict[str, float] = field(default_factory=dict)
    #: Which tier scored the links (evals.judge.tier): judged, mechanical or labels.
    tier: dict[str, Any] | None = None
    #: Things that change how the numbers read (mismatched types or revisions).
    notes: list[str] = field(default_factory=list)

    # -- derived views -------------------------------------------------------------

    def support_dict(self) -> dict[str, Any] | None:
        if not self.support:
            return None
        out: dict[str, Any] = {"label": SUPPORT_LABEL}
        if "draft" in self.support:
            out["draft"] = self.support["draft"].to_dict()
        if "gold" in self.support:
            out["gold_summary"] = self.support["gold"].summary()
        return out

    def support_text(self) -> Text | None:
        """Support distribution and the lowest ten, for the terminal."""
        d = self.support.get("draft")
        if d is None:
            return None
        s, g = d.summary(), (self.support["gold"].summary() if "gold" in self.support else {})
        out = Text(f"witness support ({SUPPORT_LABEL}):\n", style="bold")
        for name, row in (("draft", s), ("gold", g)):
            if row.get("n"):
                out.append(
                    f"  {name}: n {row['n']}, median {row['median']:.2f} "
                    f"(q1 {row['q1']:.2f}, q3 {row['q3']:.2f}), min {row['min']:.2f}\n"
                )
        out.append("  lowest draft witnesses:\n")
        for w in d.lowest():
            line = f"    {w.support:.2f}  {w.owner}  {w.anchor}  «{w.quote[:70]}»"
            out.append(visible(line) + "\n")
        return out

    def kind_confusion(self) -> dict[tuple[str, str], int]:
        """(gold kind, draft kind) -> pairs: off-diagonal cells are draft records that
        answer a gold record of another kind."""
        out: dict[tuple[str, str], int] = {}
        for ka in self.alignment.values():
            for p in ka.pairs:
                key = (kind_key(p.gold.id), kind_key(p.draft.id))
                out[key] = out.get(key, 0) + 1
        return out

    def confusion_text(self) -> Text | None:
        """Pairs whose draft record is of another kind than its gold record."""
        off = {k: n for k, n in self.kind_confusion().items() if k[0] != k[1]}
        if not off:
            return None
        out = Text("kind confusion (draft record answering a gold record of another kind):\n")
        for (g, d), n in sorted(off.items()):
            out.append(f"  gold {g} ← draft {d}: {n}\n")
        return out

    def absent_gold(self) -> list[LocatedWitness]:
        return [w for w, level in self.hits.gold if level == ABSENT]

    def gold_record(self, i: int) -> Record:
        return self.gold.records[i]

    def draft_record(self, j: int) -> Record:
        return self.draft.records[j]

    # -- JSON ----------------------------------------------------------------------

    def alignment_rows(
        self,
    ) -> tuple[list[dict[str, Any]], list[dict[str, str]], list[dict[str, str]]]:
        """(pairs, unmatched gold, unmatched draft) as JSON rows."""
        pairs: list[dict[str, Any]] = []
        unmatched_gold: list[dict[str, str]] = []
        unmatched_draft: list[dict[str, str]] = []
        for key, ka in self.alignment.items():
            for p in ka.pairs:
                pairs.append(
                    {
                        "kind": key,
                        "gold": p.gold.id,
                        "gold_label": p.gold.label,
                        "draft": p.draft.id,
                        "draft_label": p.draft.label,
                        "score": round(p.score, 4),
                        "text": round(p.text, 4),
                        "witness": None if p.witness is None else round(p.witness, 4),
                        "draft_kind": kind_key(p.draft.id),
                        "cross_kind": p.cross_kind,
                    }
                )
            for i in ka.unmatched_gold:
                r = self.gold_record(i)
                unmatched_gold.append({"kind": key, "id": r.id, "label": r.label})
            for j in ka.unmatched_draft:
                r = self.draft_record(j)
                unmatched_draft.append({"kind": key, "id": r.id, "label": r.label})
        return pairs, unmatched_gold, unmatched_draft

    def to_dict(self) -> dict[str, Any]:
        pairs, unmatched_gold, unmatched_draft = self.alignment_rows()
        return {
            "drafter_version": self.drafter_version,
            "created": self.created,
            "gold": {
                "file": self.gold_name,
                "system": self.gold.system,
                "type": str(self.gold.type),
            },
            "draft": {
                "file": self.draft_name,
                "system": self.draft.system,
                "type": str(self.draft.type),
            },
            "repository": self.repository,
            "revision": self.revision,
            "alignment": {
                "method": self.method,
                "similarity": self.similarity,
                "threshold": self.threshold,
                "text_weight": self.text_weight,
            },
            "kind_confusion": [
                {"gold_kind": g, "draft_kind": d, "pairs": n}
                for (g, d), n in sorted(self.kind_confusion().items())
            ],
            "content": self.content.to_dict() if self.content else None,
            "overall": self.overall.to_dict(),
            "baselines": self.baselines,
            "support": self.support_dict(),
            "label_check": self.label_check,
            "tier": self.tier,
            "kinds": {k: v.to_dict() for k, v in self.kinds.items()},
            "pairs": pairs,
            "unmatched_gold": unmatched_gold,
            "unmatched_draft": unmatched_draft,
            "absent_gold_witnesses": [
                {
                    "owner": w.owner,
                    "path": w.path,
                    "status": str(w.status),
                    "quote": w.witness.quote,
                }
                for w in self.absent_gold()
            ],
            "gold_witnesses": [
                {
                    "owner": w.owner,
                    "anchor": w.anchor,
                    "status": str(w.status),
                    "hit": level,
                    "equivalent": eq,
                }
                for (w, level), eq in zip(self.hits.gold, self._equiv("gold"), strict=True)
            ],
            "draft_witnesses": [
                {
                    "owner": w.owner,
                    "anchor": w.anchor,
                    "status": str(w.status),
                    "hit": level,
                    "equivalent": eq,
                }
                for (w, level), eq in zip(self.hits.draft, self._equiv("draft"), strict=True)
            ],
            "notes": list(self.notes),
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
        }

    def _equiv(self, side: str) -> list[bool]:
        hits = self.hits.gold if side == "gold" else self.hits.draft
        flags = self.hits.gold_equivalent if side == "gold" else self.hits.draft_equivalent
        return flags or [False] * len(hits)

    def to_json(self) -> str:
        """The scorecard as JSON with C1 controls and line separators escaped: labels and
        quotes come from the repository, and this text goes to a terminal or a file."""
        return json_safe(json.dumps(self.to_dict(), indent=2, ensure_ascii=False)) + "\n"

    # -- rich ----------------------------------------------------------------------

    def table(self) -> Table:
        t = Table(
            title=(
                f"{self.draft.system or 'draft'} vs gold — {self.repository} @ {self.revision[:12]}"
            ),
            caption=(
                f"alignment: {self.method}, {self.similarity} text similarity, "
                f"threshold {self.threshold:g}; found = gold records some draft record "
                "covers (R = found/gold), covering = draft records that cover some gold "
                "record (P = covering/draft), links = (gold, draft) pairs made (a record "
                "may have several, so links can exceed either count); equiv R = gold "
                "witnesses quoted only in a sibling copy (apart from line R); gold "
                "witnesses absent at the revision are excluded from recall; route/lead "
                "agr = same/(same+disagree) of field content"
            ),
        )
        columns: tuple[tuple[str, JustifyMethod], ...] = (
            ("kind", "left"),
            ("gold", "right"),
            ("found", "right"),
            ("draft", "right"),
            ("covering", "right"),
            ("links", "right"),
            ("P", "right"),
            ("R", "right"),
            ("F1", "right"),
            ("gold w (absent)", "right"),
            ("file R", "right"),
            ("line R", "right"),
            ("equiv R", "right"),
            ("draft w", "right"),
            ("line P", "right"),
            ("valid", "right"),
            ("status agr", "right"),
            ("route agr", "right"),
            ("lead agr", "right"),
        )
        for col, justify in columns:
            t.add_column(col, justify=justify, no_wrap=col == "kind")
        for ks in [*self.kinds.values(), self.overall]:
            style = "bold" if ks.key == "overall" else None
            t.add_row(*score_cells(ks), style=style, end_section=ks.key == list(self.kinds)[-1])
        for name, row in self.baselines.items():
            t.add_row(*baseline_cells(name, row), style="dim")
        return t

    def pairs_table(self) -> Table:
        t = Table(title="aligned records")
        for col in ("kind", "gold", "draft", "score", "text", "witness"):
            t.add_column(col)
        for key, ka in self.alignment.items():
            for p in ka.pairs:
                t.add_row(
                    key,
                    plain(f"{p.gold.id}  {p.gold.label}"),
                    plain(f"{p.draft.id}  {p.draft.label}"),
                    f"{p.score:.2f}",
                    f"{p.text:.2f}",
                    fmt(p.witness),
                )
            for i in ka.unmatched_gold:
                r = self.gold_record(i)
                t.add_row(
                    key, plain(f"{r.id}  {r.label}"), Text("— unmatched", style="red"), "", "", ""
                )
            for j in ka.unmatched_draft:
                r = self.draft_record(j)
                label = plain(f"{r.id}  {r.label}")
                t.add_row(key, Text("— unmatched", style="yellow"), label, "", "", "")
        return t

    def render(self, console: Console, pairs: bool = True) -> None:
        parts: list[Any] = [self.table()]
        if pairs:
            parts.append(self.pairs_table())
        absent = self.absent_gold()
        if absent:
            lines = Text(
                f"{len(absent)} gold witness(es) absent at {self.revision[:12]} "
                "(left out of recall):\n"
            )
            for w in absent:
                lines.append(visible(f"  {w.owner}  {w.anchor}  [{w.status}]") + "\n")
            parts.append(lines)
        if self.label_check is not None:
            lc = self.label_check
            parts.append(
                Text(
                    f"alignment against hand labels: precision {fmt(lc['precision'])} "
                    f"({lc['links_correct']}/{lc['links_made']} links right), link recall "
                    f"{fmt(lc.get('link_recall'))} (of {lc.get('links_labelled')} labelled), "
                    f"draft recall {fmt(lc['recall'])}, gold recall {fmt(lc['gold_recall'])}"
                )
            )
        confusion = self.confusion_text()
        if confusion is not None:
            parts.append(confusion)
        support = self.support_text()
        if support is not None:
            parts.append(support)
        for note in self.notes:
            parts.append(plain(f"note: {note}", style="yellow"))
        console.print(Group(*parts))


def baseline_cells(name: str, row: dict[str, Any]) -> list[str]:
    """A baseline's overall row in the same columns; "—" where it does not apply."""

    def n(key: str) -> str:
        v = row.get(key)
        return "—" if v is None else str(v)

    def f(key: str) -> str:
        v = row.get(key)
        return fmt(v if isinstance(v, float | int) else None)

    gw = "—" if row.get("gold_witnesses") is None else f"{n('gold_witnesses')} ({n('gold_absent')})"
    return [
        f"baseline: {name}",
        n("gold_records"),
        n("gold_matched"),
        n("draft_records"),
        n("draft_matched"),
        n("matched"),
        f("precision"),
        f("recall"),
        f("f1"),
        gw,
        f("file_recall"),
        f("line_recall"),
        f("equivalent_recall"),
        n("draft_witnesses"),
        f("line_precision"),
        f("validity"),
        f("status_agreement"),
        f("route_agreement"),
        f("lead_agreement"),
    ]


def score_cells(ks: KindScore) -> list[str]:
    """One table row; the account row has witnesses only, so its record cells stay empty."""
    records = (
        ["", "", "", "", "", "", "", ""]
        if ks.key == ACCOUNT
        else [
            str(ks.gold_records),
            str(ks.gold_matched),
            str(ks.draft_records),
            str(ks.draft_matched),
            str(ks.matched),
            fmt(ks.precision),
            fmt(ks.recall),
            fmt(ks.f1),
        ]
    )
    return [
        ks.key,
        *records,
        f"{ks.gold_witnesses} ({ks.gold_absent})",
        fmt(ks.file_recall),
        fmt(ks.line_recall),
        fmt(ks.equivalent_recall),
        str(ks.draft_witnesses),
        fmt(ks.line_precision),
        fmt(ks.validity),
        fmt(ks.status_agreement),
        fmt(ks.route_agreement),
        fmt(ks.lead_agreement),
    ]
