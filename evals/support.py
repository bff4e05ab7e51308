"""Support: does a quote bear on what its record says?  A heuristic, not a proof.

Why: validity says a quote exists at the revision, which every verified draft gets
by construction.  It does not say the quote has anything to do with the sentences
that cite it.  For each witness this scores

    support = (similarity + identifier overlap) / 2

* similarity -- rescaled embedding similarity (evals.similarity) between the quote and
  the prose that cites it: the paragraphs and bullets just before the witness in its
  record (after the previous witness), or the record's label and lead when none.
  Witnesses that follow one another with no prose between them (a record that argues
  first and quotes after) are all cited by the prose before the first of them;
* identifier overlap -- the share of the quote's names (identifiers of three or more
  characters, keywords dropped) that the citing prose also mentions, as the name or
  as the start of a longer word ("exec" in "executes", "result" in "results"; names
  of four or more characters).  A quote without names is scored on similarity alone.

Reported as a distribution with the lowest ten listed, for the draft and, as a
reference point, for the gold.  Low support flags a witness to read, nothing more:
a correct quote of a generic line can score low, and a quote that merely repeats
the record's words can score high.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from drafter.model import Bullet, Heading, NumberedItem, Paragraph, Record, Report, WitnessBlock
from evals.similarity import TextSimilarity

LABEL = "heuristic: quote vs citing prose (embedding similarity + identifier overlap)"
LOWEST = 10
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
_STOP = frozenset(
    """and are as assert async await break class continue def del elif else except false
    finally for from global import lambda none nonlocal not pass raise return self true try
    while with yield the this that with into not but its was were has have had you your
    str int dict list bool float print len""".split()
)


def names(text: str) -> set[str]:
    """Identifiers (and words) of three or more characters, lower-cased, keywords out;
    dotted and snake names also count by their parts."""
    out: set[str] = set()
    for tok in _NAME.findall(text):
        low = tok.lower()
        if low in _STOP:
            continue
        out.add(low)
        out.update(p for p in low.split("_") if len(p) >= 3 and p not in _STOP)
    return out


def citing_text(rec: Record, block_index: int) -> str:
    """Prose between the previous witness (or the record start) and this one; for a
    witness right after other witnesses, the prose before that run of witnesses.

    Why the run: drafts often write a record's prose first and its quotes after it.
    Read one witness at a time, only the first quote had prose before it; the others
    fell back to the label and lead, so a quote the prose names outright scored as if
    nothing cited it.
    """
    start = block_index
    while start > 0 and isinstance(rec.blocks[start - 1], WitnessBlock):
        start -= 1
    parts: list[str] = []
    for b in reversed(rec.blocks[:start]):
        if isinstance(b, WitnessBlock):
            break
        if isinstance(b, Paragraph | Heading | NumberedItem | Bullet):
            parts.append(b.text)
    text = " ".join(reversed(parts)).strip()
    return text or f"{rec.label}. {rec.body_text()[:400]}"


#: A quote name this long or longer also matches a prose word it starts (or that starts
#: it): "exec" in "executes", "globals" for "global".  Shorter names must match whole.
PREFIX_MIN = 4


def _mentioned(name: str, prose: set[str], stems: set[str]) -> bool:
    if name in prose:
        return True
    if len(name) < PREFIX_MIN:
        return False
    return name[:PREFIX_MIN] in stems and any(
        w.startswith(name) or (len(w) >= PREFIX_MIN and name.startswith(w)) for w in prose
    )


def identifier_overlap(quote: str, citing: str) -> float | None:
    """Share of the quote's names the citing prose mentions (see the module text)."""
    q = names(quote)
    if not q:
        return None
    prose = names(citing)
    stems = {w[:PREFIX_MIN] for w in prose if len(w) >= PREFIX_MIN}
    return sum(_mentioned(n, prose, stems) for n in q) / len(q)


@dataclass(slots=True)
class WitnessSupport:
    owner: str
    anchor: str
    quote: str
    similarity: float
    overlap: float | None

    @property
    def support(self) -> float:
        if self.overlap is None:
            return self.similarity
        return (self.similarity + self.overlap) / 2.0


@dataclass(slots=True)
class SupportReport:
    """Support of every record witness of one report."""

    items: list[WitnessSupport] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        values = np.array([w.support for w in self.items], dtype=np.float64)
        if not len(values):
            return {"n": 0}
        q = np.quantile(values, [0.0, 0.25, 0.5, 0.75, 1.0])
        hist, _ = np.histogram(values, bins=10, range=(0.0, 1.0))
        return {
            "n": len(values),
            "mean": round(float(values.mean()), 4),
            "min": round(float(q[0]), 4),
            "q1": round(float(q[1]), 4),
            "median": round(float(q[2]), 4),
            "q3": round(float(q[3]), 4),
            "max": round(float(q[4]), 4),
            "histogram_tenths": hist.tolist(),
        }

    def lowest(self, n: int = LOWEST) -> list[WitnessSupport]:
        return sorted(self.items, key=lambda w: (w.support, w.owner))[:n]

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": LABEL,
            "summary": self.summary(),
            "lowest": [
                {
                    "owner": w.owner,
                    "anchor": w.anchor,
                    "quote": w.quote,
                    "support": round(w.support, 4),
                    "similarity": round(w.similarity, 4),
                    "identifier_overlap": None if w.overlap is None else round(w.overlap, 4),
                }
                for w in self.lowest()
            ],
        }


def witness_support(report: Report, text_similarity: TextSimilarity) -> SupportReport:
    """Score every record witness of ``report`` (one similarity call for all)."""
    rows: list[tuple[str, str, str, str]] = []  # owner, anchor, quote, citing
    for rec in report.records:
        for i, b in enumerate(rec.blocks):
            if isinstance(b, WitnessBlock):
                w = b.witness
                rows.append((rec.id, w.anchor, w.quote, citing_text(rec, i)))
    if not rows:
        return SupportReport()
    quotes = sorted({r[2] for r in rows})
    cites = sorted({r[3] for r in rows})
    matrix = np.asarray(text_similarity(quotes, cites), dtype=np.float64)
    qi = {q: n for n, q in enumerate(quotes)}
    ci = {c: n for n, c in enumerate(cites)}
    out = SupportReport()
    for owner, anchor, quote, cite in rows:
        out.items.append(
            WitnessSupport(
                owner,
                anchor,
                quote,
                float(matrix[qi[quote], ci[cite]]),
                identifier_overlap(quote, cite),
            )
        )
    return out
