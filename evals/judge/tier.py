"""What the scorecard says about its tier: judged (with the mechanical figures beside
it, the reasons and the cost) or mechanical (and how far that tier agrees with
analysts), so a reader never mistakes one for the other.

The agreement figures are measured by ``benchmarks/label_agreement.py`` on the
labelled pairs (:data:`evals.choices.JUDGE_AGREEMENT` and ``MECHANICAL_AGREEMENT``,
quoted by the scorecard and ``drafter eval --help``).
"""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from drafter.sanitize import plain
from evals.choices import JUDGE_AGREEMENT, MECHANICAL_AGREEMENT
from evals.judge.run import JudgeRun
from evals.scorecard import Scorecard, fmt

_ROWS = {
    "recall": "record recall",
    "precision": "record precision",
    "line_recall": "witness line recall",
    "equivalent_recall": "witness equiv recall",
    "line_precision": "witness line precision",
    "status_agreement": "status agreement",
}


def mechanical_note() -> str:
    return (
        "tier: mechanical (no model asked; --judge asks one); its agreement with "
        f"analysts: {MECHANICAL_AGREEMENT}"
    )


def judge_dict(run: JudgeRun, mechanical: Scorecard, saved: str | None) -> dict[str, Any]:
    return {
        "tier": "judged",
        "model": run.model,
        "calls": run.calls,
        "cached": run.cached,
        "cost_usd": run.cost,
        "cached_cost_usd": run.cached_cost,
        "tokens": run.tokens,
        "refused": len(run.refused),
        "judgements_file": saved,
        "mechanical_overall": mechanical.overall.to_dict(),
        "mechanical_links": sum(len(ka.pairs) for ka in mechanical.alignment.values()),
        "judgements": [
            {
                "gold": j.gold,
                "best": j.best,
                "also": list(j.also),
                "reason": j.reason,
                "also_reasons": list(j.also_reasons),
                "candidates": list(j.candidates),
                "source": j.source,
                "refused": j.refused,
            }
            for j in run.judgements
        ],
        "agreement": JUDGE_AGREEMENT,
    }


def _usd(v: float | None) -> str:
    return "no price" if v is None else f"${v:.4f}"


def render_judged(card: Scorecard, info: dict[str, Any]) -> Group:
    """Judged and mechanical figures side by side, then one line per reference record."""
    judged, mech = card.overall.to_dict(), info["mechanical_overall"]
    t = Table(title="judged vs mechanical (overall)")
    t.add_column("figure")
    t.add_column("judged", justify="right")
    t.add_column("mechanical", justify="right")
    for key, label in _ROWS.items():
        t.add_row(label, fmt(judged.get(key)), fmt(mech.get(key)))
    links = sum(len(ka.pairs) for ka in card.alignment.values())
    t.add_row("links", str(links), str(info["mechanical_links"]))
    mlc, jlc = info.get("mechanical_label_check"), card.label_check
    if mlc is not None and jlc is not None:
        for key, label in (
            ("precision", "links P vs labels"),
            ("link_recall", "links R vs labels"),
        ):
            t.add_row(label, fmt(jlc.get(key)), fmt(mlc.get(key)))
    head = Text(
        f"tier: judged by {info['model']}: {info['calls']} call(s) now "
        f"({_usd(info['cost_usd'])}), {info['cached']} answered from the cache "
        f"(cost when asked {_usd(info['cached_cost_usd'])}); "
        f"{info['refused']} answer(s) refused as off-schema"
    )
    lines = Text()
    for j in info["judgements"]:
        said = ", ".join(([j["best"]] if j["best"] else []) + j["also"]) or "none"
        lines.append_text(plain(f"  {j['gold']} ← {said}: {j['reason']}", keep_newlines=False))
        lines.append("\n")
        for d, why in zip(j["also"], j.get("also_reasons", []), strict=False):
            lines.append_text(plain(f"      also {d}: {why}", keep_newlines=False))
            lines.append("\n")
    parts: list[Any] = [head, t, Text("judgements (reference ← covering draft records):"), lines]
    if info.get("judgements_file"):
        parts.append(plain(f"judgements saved as labels: {info['judgements_file']}"))
    parts.append(Text(f"judge agreement with analysts: {info['agreement']}", style="dim"))
    return Group(*parts)
