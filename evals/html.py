"""A self-contained HTML page for one scorecard: the pairs side by side, hits marked.

Why HTML: an analyst judging a score wants to read the gold record and the draft
record next to each other with the witnesses that hit coloured, which a terminal table
cannot show well.  Every string that comes from a report or a repository is untrusted
and goes through :func:`html.escape` (quotes included); the page has no scripts and
loads nothing from elsewhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from pathlib import Path

from drafter.model import (
    KIND_ORDER,
    Bullet,
    Heading,
    NumberedItem,
    Paragraph,
    Record,
    WitnessBlock,
)
from evals.choices import DEFAULT_DECISION, HELD_OUT
from evals.metrics import ABSENT, FILE, INVALID, LINE, MISS, KindScore
from evals.scorecard import Scorecard, baseline_cells, score_cells
from evals.support import LABEL as SUPPORT_LABEL
from evals.witnesses import ACCOUNT, LocatedWitness

_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
table.scores{border-collapse:collapse;margin:1em 0}
table.scores td,table.scores th{border:1px solid #ccc;padding:2px 6px;text-align:right}
table.scores td:first-child{text-align:left}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:1em;border-top:2px solid #888;padding:.6em 0}
.rec h4{margin:.2em 0}.rec .id{font-family:monospace;color:#555}
.rec p{font-size:.9em}.rec p.b{margin:.1em 0 .1em 1em}.score{font-family:monospace;color:#555}
.w{font-family:monospace;font-size:.82em;padding:3px 5px;margin:3px 0;border-left:4px solid #bbb}
.w.line{background:#d8f5d0;border-color:#2a8a1a}.w.file{background:#fff3c4;border-color:#c79a00}
.w.miss{background:#fde0e0;border-color:#c33}.w.absent{background:#eee;color:#777;border-color:#999}
.w.unlocated{background:#f6d0f0;border-color:#a3a}
.w.shared{outline:2px solid #1a5fb4;font-weight:600}
table.fields td{text-align:left;font-size:.8em;max-width:30em}
tr.base td{color:#777;font-style:italic}
.legend span{margin-right:1em}.empty{color:#999;font-style:italic}
.caveat{background:#fff8e0;padding:.4em;border-left:4px solid #c79a00}
.beaten{background:#fde0e0;padding:.4em;border-left:4px solid #c33;font-weight:600}
dl.cols{font-size:.85em;display:grid;grid-template-columns:max-content 1fr;gap:2px 1em}
dl.cols dt{font-weight:600}dl.cols dd{margin:0}
"""

_HIT_TEXT = {
    LINE: "line hit",
    FILE: "same file, other lines",
    MISS: "miss",
    ABSENT: "absent at revision",
    INVALID: "not located",
}


def _witness(w: LocatedWitness, level: str, shared: bool = False) -> str:
    anchor = w.anchor
    cls = f"w {level} shared" if shared else f"w {level}"
    mark = "<b>shared with the partner</b>; " if shared else ""
    return (
        f'<div class="{escape(cls)}" title="{escape(_HIT_TEXT.get(level, level))}">'
        f"{escape(w.witness.quote)} — <b>{escape(anchor)}</b> "
        f"<i>[{mark}{escape(str(w.status))}; {escape(_HIT_TEXT.get(level, level))}]</i></div>"
    )


def _record(
    rec: Record | None,
    witnesses: list[tuple[LocatedWitness, str]],
    partner: Sequence[LocatedWitness] = (),
) -> str:
    """One record's text with its witnesses; those overlapping the partner's marked."""
    if rec is None:
        return '<div class="rec empty">no counterpart</div>'
    parts = [
        f'<div class="rec"><h4><span class="id">{escape(rec.id)}</span> {escape(rec.label)}</h4>'
    ]
    if rec.part_of:
        parts.append(f"<p>Part of: {escape(rec.part_of)}</p>")
    wi = 0
    for b in rec.blocks:
        if isinstance(b, Paragraph | Heading | NumberedItem):
            parts.append(f"<p>{escape(b.text)}</p>")
        elif isinstance(b, Bullet):
            parts.append(f'<p class="b">• {escape(b.text)}</p>')
        elif isinstance(b, WitnessBlock) and wi < len(witnesses):
            w, level = witnesses[wi]
            parts.append(_witness(w, level, any(w.overlaps(o) for o in partner)))
            wi += 1
    parts.append("</div>")
    return "".join(parts)


#: The score table's columns, each with what it counts (the legend under the table).
COLUMNS: tuple[tuple[str, str], ...] = (
    ("kind", f"record kind ({', '.join(KIND_ORDER)}), the account's witnesses, or overall"),
    ("gold", "gold records of the kind"),
    ("found", "gold records a draft record of the same kind covers (overall: of any kind)"),
    ("draft", "draft records of the kind"),
    ("covering", "draft records that cover a gold record of the same kind (overall: any)"),
    ("links", "(gold, draft) pairs filed under the kind; one record may have several"),
    ("P", "precision: covering / draft"),
    ("R", "recall: found / gold"),
    ("F1", "harmonic mean of P and R"),
    ("gold w (absent)", "gold witnesses, and in brackets those absent at the revision "
     "(left out of every recall)"),
    ("file R", "share of the gold witnesses present at the revision that some draft "
     "witness quotes in the same file"),
    ("line R", "share of those gold witnesses some draft witness overlaps on their lines"),
    ("equiv R", "share of those gold witnesses quoted only in a copy of their file"),
    ("draft w", "draft witnesses"),
    ("line P", "share of draft witnesses overlapping some gold witness's lines"),
    ("valid", "share of draft witnesses verified at the revision (quote found in the file)"),
    ("status agr", "of the conclusion statuses gold records give, the share the paired "
     "draft record states the same"),
    ("route agr", "route fields with the same content / (same + disagreeing)"),
    ("lead agr", "lead fields (identity, form, substrate...) same / (same + disagreeing)"),
)  # fmt: skip
#: Overall scores a baseline may beat the draft on, with their column names.
_COMPARED = (
    ("recall", "R"),
    ("precision", "P"),
    ("f1", "F1"),
    ("file_recall", "file R"),
    ("line_recall", "line R"),
    ("line_precision", "line P"),
    ("status_agreement", "status agr"),
    ("route_agreement", "route agr"),
    ("lead_agreement", "lead agr"),
)


def alignment_text(card: Scorecard) -> str:
    """How the pairs were made: the method the card was scored with and its parameters,
    never a description of another method."""
    from evals.coverage import COVERAGE
    from evals.rule import RULE

    th = card.threshold
    if card.method == "coverage" and DEFAULT_DECISION == "rule":
        return (
            "coverage: a fitted logistic rule decides each (gold, draft) link "
            f"({RULE.describe()}; threshold used {th:g}), over {card.similarity} text "
            "similarity, shared code names, call path and witness overlap"
        )
    if card.method in ("coverage", "coverage-mixed"):
        return (
            f"{card.method}: a draft record covers every gold record it scores near its best "
            f"on one mixed score ({COVERAGE.with_threshold(th).describe()}); text parts by "
            f"{card.similarity} similarity"
        )
    pairing = (
        "each draft record answers its best gold record of any kind"
        if card.method == "best-gold"
        else "optimal one-to-one pairing within each kind"
    )
    return (
        f"{card.method}: {pairing}; score = {card.text_weight:g} × {card.similarity} text "
        f"similarity + {1 - card.text_weight:g} × witness overlap, threshold {th:g}"
    )


def trust_caveat() -> str:
    """How far the record scores can be trusted (the held-out agreement with analysts)."""
    held = "; ".join(
        f"{system} {a['gold_p']:.2f}/{a['gold_r']:.2f}" for system, a in HELD_OUT.items()
    )
    return (
        "How far to trust record P and R: the alignment was fitted on labelled systems; "
        "held out, its “gold record is covered” calls agreed with an analyst's labels at "
        f"precision/recall {held or 'not measured'}.  Two people labelling one pair blind "
        "agree on links at F1 0.58–0.86, and on early offline drafts the eval calls more gold "
        "records covered than analysts do.  Witness figures (file R, line R, line P, valid) "
        "are mechanical and do not depend on the alignment."
    )


def baseline_comments(card: Scorecard) -> list[str]:
    """One sentence per baseline that scores above the draft on an overall figure."""
    out = []
    for name, row in card.baselines.items():
        beaten = []
        for key, col in _COMPARED:
            b, d = row.get(key), getattr(card.overall, key)
            if isinstance(b, int | float) and d is not None and b > d:
                beaten.append(f"{col} {b:.2f} against the draft's {d:.2f}")
        if beaten:
            out.append(
                f"The {name} baseline beats the draft on {', '.join(beaten)}: on "
                f"{'that figure' if len(beaten) == 1 else 'those figures'} the draft does no "
                "better than a trivial answer."
            )
    return out


def _legend() -> str:
    items = "".join(f"<dt>{escape(c)}</dt><dd>{escape(d)}</dd>" for c, d in COLUMNS)
    return f'<dl class="cols">{items}</dl>'


def _cross_kind_note(rows: list[KindScore]) -> str:
    """Records matched only across kinds, which a kind's own row does not credit."""
    parts = [
        f"{ks.key}: {ks.gold_cross_matched} gold, {ks.draft_cross_matched} draft"
        for ks in rows
        if ks.key not in (ACCOUNT, "overall") and (ks.gold_cross_matched or ks.draft_cross_matched)
    ]
    if not parts:
        return ""
    return (
        "<p>Matched only by a record of another kind (not counted in that kind's found or "
        f"covering; counted in overall): {escape('; '.join(parts))}.</p>"
    )


def _scores_table(rows: list[KindScore], baselines: dict[str, dict[str, object]]) -> str:
    head = [c for c, _ in COLUMNS]
    out = ['<table class="scores"><tr>', *(f"<th>{escape(h)}</th>" for h in head), "</tr>"]
    for ks in rows:
        out.append("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in score_cells(ks)) + "</tr>")
    for name, row in baselines.items():
        cells = baseline_cells(name, row)
        out.append('<tr class="base">' + "".join(f"<td>{escape(c)}</td>" for c in cells) + "</tr>")
    out.append("</table>")
    return "".join(out)


def render_html(card: Scorecard) -> str:
    """The whole page as a string."""
    gold_hits = _by_owner(card.hits.gold)
    draft_hits = _by_owner(card.hits.draft)

    def ws(
        hits: dict[tuple[str, int], list[tuple[LocatedWitness, str]]], k: int
    ) -> list[tuple[LocatedWitness, str]]:
        return hits.get(("rec", k), [])

    def g(i: int, j: int | None = None) -> str:
        partner = [w for w, _ in ws(draft_hits, j)] if j is not None else []
        return _record(card.gold_record(i), ws(gold_hits, i), partner)

    def d(j: int, i: int | None = None) -> str:
        partner = [w for w, _ in ws(gold_hits, i)] if i is not None else []
        return _record(card.draft_record(j), ws(draft_hits, j), partner)

    title = f"{card.draft.system} — draft vs gold"
    body = [
        f"<h1>{escape(title)}</h1>",
        f"<p>Repository <code>{escape(card.repository)}</code> at "
        f"<code>{escape(card.revision)}</code>; gold <code>{escape(card.gold_name)}</code>, "
        f"draft <code>{escape(card.draft_name)}</code>; drafter "
        f"{escape(card.drafter_version)}, {escape(card.created)}.</p>",
        f'<p class="align">Alignment: {escape(alignment_text(card))}.</p>',
        f'<p class="caveat">{escape(trust_caveat())}</p>',
        '<p class="legend">'
        + "".join(f'<span class="w {escape(k)}">{escape(v)}</span>' for k, v in _HIT_TEXT.items())
        + "</p>",
        _scores_table([*card.kinds.values(), card.overall], card.baselines),
        _cross_kind_note(list(card.kinds.values())),
        *(f'<p class="beaten">{escape(c)}</p>' for c in baseline_comments(card)),
        _legend(),
    ]
    for key, ka in card.alignment.items():
        body.append(f"<h2>{escape(key)}</h2>")
        for p in ka.pairs:
            wit = "—" if p.witness is None else f"{p.witness:.2f}"
            cross = " — <b>draft record of another kind</b>" if p.cross_kind else ""
            body.append(
                f'<p class="score">score {p.score:.2f} '
                f"(text {p.text:.2f}, witness {escape(wit)}){cross}</p>"
                f'<div class="pair">{g(p.gold_index, p.draft_index)}'
                f"{d(p.draft_index, p.gold_index)}</div>"
                + _comparisons(card, p.gold.id, p.draft.id)
            )
        if ka.unmatched_gold:
            body.append("<h3>Unmatched gold records</h3>")
            body.extend(
                f'<div class="pair">{g(i)}{_record(None, [])}</div>' for i in ka.unmatched_gold
            )
        if ka.unmatched_draft:
            body.append("<h3>Unmatched draft records</h3>")
            body.extend(
                f'<div class="pair">{_record(None, [])}{d(j)}</div>' for j in ka.unmatched_draft
            )
    body.extend(_support_section(card))
    acc_g = gold_hits.get(("account", 0), [])
    acc_d = draft_hits.get(("account", 0), [])
    if acc_g or acc_d:
        body.append('<h2>Account witnesses</h2><div class="pair"><div>')
        body.extend(_witness(w, lv) for w, lv in acc_g)
        body.append("</div><div>")
        body.extend(_witness(w, lv) for w, lv in acc_d)
        body.append("</div></div>")
    absent = card.absent_gold()
    body.append(f"<h2>Gold witnesses absent at the revision ({len(absent)})</h2>")
    body.extend(_witness(w, ABSENT) for w in absent)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


_OUTCOME_STYLE = {"same": "line", "disagree": "miss", "unknown": "absent"}


def _comparisons(card: Scorecard, gold_id: str, draft_id: str) -> str:
    """The field-by-field outcome of one pair, as a compact table."""
    rows = [
        c
        for c in (card.content.comparisons if card.content else [])
        if c.gold_id == gold_id and c.draft_id == draft_id
    ]
    if not rows:
        return ""
    out = ['<table class="scores fields"><tr><th>field</th><th>gold</th><th>draft</th>']
    out.append("<th>outcome</th></tr>")
    for c in rows:
        sim = "" if c.similarity is None else f" ({c.similarity:.2f})"
        out.append(
            f"<tr><td>{escape(c.field)}</td><td>{escape(c.gold or '—')}</td>"
            f"<td>{escape(c.draft or '—')}</td>"
            f'<td class="w {_OUTCOME_STYLE[c.outcome]}">{escape(c.outcome + sim)}</td></tr>'
        )
    out.append("</table>")
    return "".join(out)


def _support_section(card: Scorecard) -> list[str]:
    """Kind confusion and the support heuristic's lowest ten."""
    out: list[str] = []
    confusion = card.kind_confusion()
    if confusion:
        out.append("<h2>Kind confusion (gold kind ← draft kind: pairs)</h2><ul>")
        out.extend(
            f"<li>{escape(gk)} ← {escape(dk)}: {n}{'' if gk == dk else ' (other kind)'}</li>"
            for (gk, dk), n in sorted(confusion.items())
        )
        out.append("</ul>")
    support = card.support.get("draft")
    if support is not None:
        s = support.summary()
        out.append(f"<h2>Witness support — {escape(SUPPORT_LABEL)}</h2>")
        if s.get("n"):
            out.append(
                f"<p>draft: n {s['n']}, median {s['median']:.2f}, q1 {s['q1']:.2f}, "
                f"q3 {s['q3']:.2f}; lowest ten:</p>"
            )
        out.extend(
            f'<div class="w miss">{w.support:.2f} {escape(w.owner)} — '
            f"{escape(w.quote)} — <b>{escape(w.anchor)}</b></div>"
            for w in support.lowest()
        )
    return out


def _by_owner(
    hits: list[tuple[LocatedWitness, str]],
) -> dict[tuple[str, int], list[tuple[LocatedWitness, str]]]:
    """Group hits by record position (records may share IDs in a bad draft) or account."""
    out: dict[tuple[str, int], list[tuple[LocatedWitness, str]]] = {}
    for w, level in hits:
        key = ("account", 0) if w.record_index is None else ("rec", w.record_index)
        out.setdefault(key, []).append((w, level))
    return out


def write_html(card: Scorecard, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_html(card), encoding="utf-8")
