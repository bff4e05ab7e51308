"""Scores and selection: the numbers that decide what is kept, reported or promoted.

One object per file that judges outputs (answer checks, thresholds, selections),
quoted by its deciding lines: the promotion, the comparison against a named
threshold, before aggregations and reports.  A file whose deciding lines a route
already quotes needs no object of its own (the plan's prune pass removes it).
"""

from __future__ import annotations

import re

from drafter.ids import slug
from drafter.model import Block, Record
from drafter.text import clip
from graph.proposer import PlanItem
from graph.proposers.offline.prose import join_names, para
from graph.proposers.offline.rank import decisive_rank, path_class
from graph.proposers.offline.recipe import DraftContext, PlanState, file_stem
from retrieval.survey import Finding
from retrieval.survey.model import Category

MAX_SCORES = 5
_JUDGES = {"answer_extraction", "reference_def", "answer_check", "grading_scale"}
_KINDS = {
    "answer_extraction": "answer extraction from model output",
    "reference_def": "reference-answer keys",
    "answer_check": "comparisons with reference answers",
    "grading_scale": "grading scales",
    "score_report": "reported metrics",
    "threshold": "threshold comparisons",
    "selection": "max/min/sorted choices",
    "score_aggregate": "score aggregations",
    "promotion": "promotion of a selected result",
}


#: What decides a score, most decisive first: what counts as right (the check against
#: a reference), the promotion or gate, then how the number is formed and reported.
_DECIDES = {
    "answer_check": 0, "answer_extraction": 0, "grading_scale": 0, "reference_def": 1,
    "promotion": 0, "threshold": 1, "selection": 2, "score_aggregate": 2, "score_report": 3,
}  # fmt: skip


def deciding_first(fs: list[Finding]) -> list[Finding]:
    """Gating findings, one of each kind in turn from the most deciding kind down, so
    three witnesses show the check, the gate and the number; headline numbers
    (overall, average, best) before per-class ones."""
    ordered = sorted(
        fs,
        key=lambda f: (
            _DECIDES.get(f.kind, 4),
            decisive_rank(f),
            0 if re.search(r"overall|average|mean|total|final|best", f.snippet, re.I) else 1,
            f.start_line,
        ),
    )
    by: dict[str, list[Finding]] = {}
    for f in ordered:
        by.setdefault(f.kind, []).append(f)
    out: list[Finding] = []
    while any(by.values()):
        for q in by.values():
            if q:
                out.append(q.pop(0))
    return out


#: A draw weighted by scores: ``random.choices(xs, weights)``, ``np.random.choice(xs,
#: p=...)``, ``multinomial(...)`` — the sampling half of a selection formula.
_WEIGHTED_DRAW = re.compile(
    r"\bchoices\s*\([^,()]+(?:\([^()]*\))?\s*,\s*(?!k\s*=)\S|\bchoice\s*\([^)]*\bp\s*=|multinomial\s*\(",
)


def selection_formula(fs: list[Finding]) -> list[Finding]:
    """The formula that picks what is kept or worked on next: a draw weighted by scores
    and the score transform above it in the same function.  When several branches of
    one function draw this way (one per selection method), the richest formula — the
    most lines from transform to draw — is quoted; the simpler ones are its special
    cases.  Empty when the file draws nothing by weight."""
    best: tuple[int, list[Finding]] = (-1, [])
    for draw in fs:
        if draw.kind != "selection" or not _WEIGHTED_DRAW.search(draw.snippet):
            continue
        above = [
            a
            for a in fs
            if a.kind == "score_aggregate"
            and a.node == draw.node
            and a.start_line < draw.start_line
            and not any(
                d.kind == "selection" and a.start_line < d.start_line < draw.start_line for d in fs
            )
        ]
        if not above:
            continue
        transform = max(above, key=lambda a: a.start_line)
        span = draw.start_line - transform.start_line
        if span > best[0]:
            best = (span, [transform, draw])
    return best[1]


def deciding_with_formula(fs: list[Finding]) -> list[Finding]:
    """:func:`deciding_first`, with a weighted selection formula (transform, then draw)
    leading: what an analyst quotes for "how the next parent is chosen"."""
    formula = selection_formula(fs)
    ids = {f.id for f in formula}
    return formula + [f for f in deciding_first(fs) if f.id not in ids]


#: ``random.random() < 0.25``: a coin flip that picks a branch, not a score compared
#: with a threshold.
_COIN_FLIP = re.compile(r"\brandom\.(random|uniform)\(\)\s*[<>]=?\s*[\d.]+")


#: A name or word that says a number is a measure of outcome (not a count, a size or
#: an identifier): what a scores witness must mention unless its kind already judges.
_SCORE_NAME = re.compile(
    r"score|reward|fitness|accura|metric|\bf1|precision|recall|pass_?rate|\bbest|grade|"
    r"rating|success|correct|\berror|\bloss|perf|utility|threshold",
    re.I,
)
#: A random draw: ``random.choice(s)``, ``random.sample``, ``np.random.choice``.
_RANDOM_DRAW = re.compile(r"\brandom\.(?:choices?|sample)\s*\(")
#: A right-hand side that only allocates (``np.zeros(...)``, ``[]``, ``0``): a score
#: about to be computed elsewhere, not its computation.
_ALLOCATION = re.compile(
    r"^\s*[\w.\[\]'\"]+\s*(?::[^=]+)?=\s*"
    r"(?:(?:np|numpy|torch)\.(?:zeros|ones|empty|full)(?:_like)?\(|\[\s*\]|\{\s*\}|"
    r"(?:list|dict)\(\s*\)|-?\d+(?:\.\d*)?\s*$|None\s*$)"
)
#: Kinds whose line shows a score by what it is: a judgement of an output, a gate on
#: a score-like name or a cut-off, a metric reported under a score key.
_SCORE_BY_KIND = _JUDGES | {"threshold", "score_report"}


def shows_score(f: Finding, source: Finding | None = None) -> bool:
    """Whether ``f``'s line shows a score being computed, written or compared.

    The survey's selection and aggregation rules are broad (any ``random.choices``,
    any ``min``/``max`` or ``sorted`` of counts, any line naming ``len(``): a draw that
    no score weights or filters is sampling (an identifier, a bootstrap resample, a
    subset of data), an allocation only prepares a number, and a ``min``/``max`` of
    sizes chooses nothing by merit (one by a ``key=`` does: it ranks by a computed
    key).  A promotion stores what its ``source`` line (the selection or gate it
    keeps) picked, so it shows a score when that line does.
    """
    if f.kind in _SCORE_BY_KIND:
        return True
    text = f.snippet
    if f.kind == "selection":
        weighted = _RANDOM_DRAW.search(text) and (
            _WEIGHTED_DRAW.search(text) or re.search(r"\b(?:cum_)?weights\s*=", text)
        )
        # a max/min/sort by a key ranks by a computed merit: a pick of the best
        ranked = not _RANDOM_DRAW.search(text) and re.search(r"\bkey\s*=", text)
        return bool(weighted or ranked or _SCORE_NAME.search(text))
    if f.kind == "score_aggregate":
        return not _ALLOCATION.search(text)  # the survey already asked for a score name
    if f.kind == "promotion":
        return source is None or shows_score(source)
    return False


#: Kinds that prepare a score without forming one: the answer pulled from an output and
#: the reference it will be checked against.  A file with nothing else computes,
#: compares or writes no score, so it gets no scores object.
_PREPARES = {"answer_extraction", "reference_def"}


def _promoted_from(f: Finding, by_line: dict[tuple[str, int], Finding]) -> Finding | None:
    """The selection or gate a promotion finding stores the pick of, when surveyed."""
    at = f.detail.get("selected_at", "") if f.kind == "promotion" else ""
    return by_line.get((f.path, int(at))) if str(at).isdigit() else None


class Scores:
    name = "scores"
    kind = "OBJ"

    def plan(self, st: PlanState) -> list[PlanItem]:
        route_nodes = {n for u in st.units for n in st.ix.reachable(u.node)}
        gating = st.ix.category(Category.GATING)
        by_line = {(f.path, f.start_line): f for f in gating}
        gates: dict[str, list[Finding]] = {}
        for f in gating:
            if _COIN_FLIP.search(f.snippet) or not shows_score(f, _promoted_from(f, by_line)):
                continue
            gates.setdefault(f.path, []).append(f)
        gates = {p: fs for p, fs in gates.items() if any(f.kind not in _PREPARES for f in fs)}
        if any(path_class(p) < 2 for p in gates):  # tests judge the tests, not the system
            gates = {p: fs for p, fs in gates.items() if path_class(p) < 2}
        ranked = sorted(
            gates.items(),
            key=lambda kv: (
                path_class(kv[0]),
                0 if any(f.node in route_nodes for f in kv[1]) else 1,
                min(decisive_rank(f) for f in kv[1]),
                0 if any(f.kind in _JUDGES for f in kv[1]) else 1,
                -len(kv[1]),
                kv[0],
            ),
        )
        items = []
        for path, gfs in ranked:
            base = file_stem(path)
            items.append(
                st.item(
                    self,
                    slug("scores", base),
                    f"Scores and selection in {path}",
                    deciding_with_formula(gfs)[:6],
                    "Numbers compared with thresholds or used to choose.",
                )
            )
        return items

    def draft(self, ctx: DraftContext) -> Record | None:
        fs = ctx.findings
        if not fs:
            return None
        paths = sorted({f.path for f in fs})
        found = join_names(sorted({_KINDS.get(f.kind, f.kind) for f in fs}))
        shown = join_names(
            [f"{clip(f.snippet, 60, at_word=True)} (line {f.start_line})" for f in fs], 3
        )
        blocks: list[Block] = [
            para(
                f"Source-native identity: numbers computed and compared in {join_names(paths, 3)}: "
                f"{found}. Representational form: symbolic numeric values in code. Storage "
                "substrate: process memory unless a write elsewhere persists them."
            ),
            para(
                f"Deciding lines: {shown}. What these numbers gate follows from the routes that "
                "reach them; their validity as measures is not assessed."
            ),
        ]
        return ctx.record(blocks, fs)
