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

from drafter.model import Bullet, Heading, NumberedItem, Paragraph, Record, WitnessBlock
from evals.metrics import ABSENT, FILE, INVALID, LINE, MISS, KindScore
from evals.scorecard import Scorecard, baseline_cells, score_cells
from evals.support import LABEL as SUPPORT_LABEL
from evals.witnesses import LocatedWitness

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


def _scores_table(rows: list[KindScore], baselines: dict[str, dict[str, object]]) -> str:
    head = (
        "kind gold found draft covering links P R F1 gold-w(absent) fileR lineR equivR"
        " draft-w lineP valid"
        " status-agr route-agr lead-agr"
    ).split()
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
        f"draft <code>{escape(card.draft_name)}</code>; alignment by "
        f"{escape(card.similarity)} text similarity (weight {card.text_weight:g}) and witness "
        f"overlap, threshold {card.threshold:g}; drafter {escape(card.drafter_version)}, "
        f"{escape(card.created)}.</p>",
        '<p class="legend">'
        + "".join(f'<span class="w {escape(k)}">{escape(v)}</span>' for k, v in _HIT_TEXT.items())
        + "</p>",
        _scores_table([*card.kinds.values(), card.overall], card.baselines),
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
