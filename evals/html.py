"""A self-contained HTML page for one scorecard: the pairs side by side, hits marked.

Why HTML: an analyst judging a score wants to read the gold record and the draft
record next to each other with the witnesses that hit coloured, which a terminal table
cannot show well.  Every string that comes from a report or a repository is untrusted
and goes through :func:`html.escape` (quotes included); the page has no scripts and
loads nothing from elsewhere.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from drafter.model import Bullet, Heading, NumberedItem, Paragraph, Record, WitnessBlock
from evals.metrics import ABSENT, FILE, INVALID, LINE, MISS, KindScore
from evals.scorecard import Scorecard, score_cells
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
.legend span{margin-right:1em}.empty{color:#999;font-style:italic}
"""

_HIT_TEXT = {
    LINE: "line hit",
    FILE: "same file, other lines",
    MISS: "miss",
    ABSENT: "absent at revision",
    INVALID: "not located",
}


def _witness(w: LocatedWitness, level: str) -> str:
    anchor = w.anchor
    return (
        f'<div class="w {escape(level)}" title="{escape(_HIT_TEXT.get(level, level))}">'
        f"{escape(w.witness.quote)} — <b>{escape(anchor)}</b> "
        f"<i>[{escape(str(w.status))}; {escape(_HIT_TEXT.get(level, level))}]</i></div>"
    )


def _record(rec: Record | None, witnesses: list[tuple[LocatedWitness, str]]) -> str:
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
            parts.append(_witness(*witnesses[wi]))
            wi += 1
    parts.append("</div>")
    return "".join(parts)


def _scores_table(rows: list[KindScore]) -> str:
    head = (
        "kind gold draft matched P R F1 gold-w(absent) fileR lineR draft-w lineP valid"
        " status-agr route-fields"
    ).split()
    out = ['<table class="scores"><tr>', *(f"<th>{escape(h)}</th>" for h in head), "</tr>"]
    for ks in rows:
        out.append("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in score_cells(ks)) + "</tr>")
    out.append("</table>")
    return "".join(out)


def render_html(card: Scorecard) -> str:
    """The whole page as a string."""
    gold_hits = _by_owner(card.hits.gold)
    draft_hits = _by_owner(card.hits.draft)

    def g(i: int) -> str:
        r = card.gold_record(i)
        return _record(r, gold_hits.get(("rec", i), []))

    def d(j: int) -> str:
        r = card.draft_record(j)
        return _record(r, draft_hits.get(("rec", j), []))

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
        _scores_table([*card.kinds.values(), card.overall]),
    ]
    for key, ka in card.alignment.items():
        body.append(f"<h2>{escape(key)}</h2>")
        for p in ka.pairs:
            wit = "—" if p.witness is None else f"{p.witness:.2f}"
            body.append(
                f'<p class="score">score {p.score:.2f} '
                f"(text {p.text:.2f}, witness {escape(wit)})</p>"
                f'<div class="pair">{g(p.gold_index)}{d(p.draft_index)}</div>'
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
