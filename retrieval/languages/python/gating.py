"""Gates in Python code: score thresholds, selections of the best candidate, retries,
promotions and evaluation lines that decide what the system keeps or runs."""

from __future__ import annotations

import re

from retrieval.survey.base import Hit, clip
from retrieval.survey.details import GatingDetail
from retrieval.survey.model import Category, GatingKind
from retrieval.survey.source import PyFile

_SCORE_WORD = re.compile(
    r"(score|reward|threshold|accuracy|acc\b|pass(?:_rate|ed)?|best|fitness|metric|val_|margin|confidence|grade|rating|points|success)",
    re.I,
)
#: ``>= 0.5``-style comparisons against a fraction: pass/fail cut-offs even without a score name.
_UNIT_THRESHOLD = re.compile(r"(?:>=|<=|>|<)\s*(?:0?\.\d+|1\.0)\b")
_SELECT = {
    "max",
    "min",
    "sorted",
    "numpy.argmax",
    "np.argmax",
    "torch.argmax",
    "numpy.argmin",
    "np.argmin",
    "random.choice",
    "random.choices",
    "random.sample",
    "numpy.random.choice",
    "np.random.choice",
    "heapq.nlargest",
    "heapq.nsmallest",
}
_RETRY_DECORATOR = re.compile(
    r"^(?:backoff\.on_exception|backoff\.on_predicate|(?:tenacity\.)?retry)\b"
)
_AGG_WORDS = (
    "score",
    "accura",
    "reward",
    "fitness",
    "progress",
    "points",
    "match",
    "pass_rate",
    "percentage",
    "error",
    "precision",
    "recall",
    "f1",
    "truth",
    "gold",
    "label",
    "expected",
)
#: A reported metric: a dict key naming a score, e.g. ``"overall_accuracy": float(acc)``.
_METRIC_KEY = re.compile(
    r"""^\s*['"](\w*(?:score|accuracy|progress|fitness|reward|error|precision|recall|f1)\w*)['"]\s*:\s*\S""",
    re.I,
)
#: Comparing an output with a reference answer: ``df[gt_key] == df["prediction"]``.
_ANSWER_CHECK = re.compile(
    r"""\S*(?:ground_truth|truth|gold|label|expected|answer|reference|target)\S*\s*(?:==|!=)\s*"""
    r"""\S*(?:pred|prediction|response|output|answer|result)\S*|"""
    r"""\S*(?:pred|prediction|response|output)\S*\s*(?:==|!=)\s*\S*(?:ground_truth|truth|gold|label|expected|reference)\S*""",
    re.I,
)
_AGG_OPS = ("mean(", "sum(", "std(", "average(", " / ", "len(")
_AGGREGATE = re.compile(
    r"""(?P<name>[\w"'\[\]]*?(?:score|accuracy|reward|fitness|progress|points|match|pass_rate|percentage|error)\w*["']?\]?)\s*(?::|=(?!=))\s*(?P<rhs>.*(?:mean\(|sum\(|std\(|average\(|\s/\s|len\().*)""",
    re.I,
)


def gating_findings(pf: PyFile) -> list[Hit]:
    """Where the system decides on a score: thresholds, selections, retries, the lines
    that compute a score, and promotions.  ``seen`` (statement lines already reported)
    is shared, in this order, so one line makes one gating finding."""
    seen: set[int] = set()
    hits = _thresholds(pf, seen)
    hits += _selections(pf, seen)
    hits += _retries(pf)
    hits += _score_lines(pf, seen)
    hits += _promotions(pf, hits, seen)
    return hits


def _thresholds(pf: PyFile, seen: set[int]) -> list[Hit]:
    """Comparisons of a score-like name or a unit threshold (``score >= 0.8``)."""
    hits: list[Hit] = []
    for cmp in pf.compares:
        if not re.search(r"(<=|>=|<|>)", cmp.text) or "__name__" in cmp.text:
            continue
        if not _SCORE_WORD.search(cmp.text) and not _UNIT_THRESHOLD.search(cmp.text):
            continue
        start, end = int(cmp.extra["stmt_start"]), int(cmp.extra["stmt_end"])
        if start in seen:
            continue
        seen.add(start)
        hits.append(
            Hit(
                category=Category.GATING,
                kind="threshold",
                path=pf.path,
                start_line=start,
                end_line=end,
                symbol=cmp.symbol,
                detail={"comparison": clip(cmp.text, 100)},
            )
        )
    return hits


def _selections(pf: PyFile, seen: set[int]) -> list[Hit]:
    """Picking the best by a score: ``max(..., key=score)``, ``sorted`` by score ..."""
    hits: list[Hit] = []
    for c in pf.calls:
        if c.full in _SELECT or c.callee in _SELECT:
            if c.callee in ("max", "min", "sorted") and not (
                _SCORE_WORD.search(c.args_text) or "key=" in c.args_text
            ):
                continue
            if c.callee == "sorted" and not _SCORE_WORD.search(c.args_text):
                continue
            if c.stmt_start in seen:
                continue
            seen.add(c.stmt_start)
            hits.append(
                Hit.at_call(
                    pf,
                    c,
                    category=Category.GATING,
                    kind="selection",
                    detail={"call": c.callee, "args": clip(c.args_text, 100)},
                )
            )
    return hits


def _retries(pf: PyFile) -> list[Hit]:
    """Retry decorators and loops whose header speaks of retries or attempts."""
    hits: list[Hit] = []
    for d in pf.defs:
        for dec in d.decorators:
            if _RETRY_DECORATOR.match(dec):
                hits.append(
                    Hit.at_line(
                        pf.path,
                        d.start_line,
                        symbol=d.symbol,
                        category=Category.GATING,
                        kind="retry",
                        detail={"decorator": clip(dec, 100), "function": d.symbol},
                    )
                )
    for lp in pf.loops:
        header = pf.lines[lp.start_line - 1] if lp.start_line - 1 < len(pf.lines) else ""
        if re.search(r"\b(retry|retries|attempt|attempts|max_tries|tries)\b", header, re.I):
            hits.append(
                Hit.at_line(
                    pf.path,
                    lp.start_line,
                    symbol=lp.symbol,
                    category=Category.GATING,
                    kind="retry",
                    detail={"loop": clip(header, 100)},
                )
            )
    return hits


def _score_lines(pf: PyFile, seen: set[int]) -> list[Hit]:
    """Score aggregation lines: how a number that later gates or reports is computed."""
    hits: list[Hit] = []
    for i, line in enumerate(pf.lines, 1):
        s = line.strip()
        if not s or s.startswith("#") or i in seen or len(s) > 200:
            continue
        low = s.lower()
        if s.startswith(("def ", "print(", "logger", "log(", "logging", "assert ")):
            continue
        scored = _evaluation_line(s, low) or _score_line(s, low)
        if scored is not None:
            seen.add(i)
            hits.append(
                Hit.at_line(
                    pf.path,
                    i,
                    symbol=_symbol_at(pf, i),
                    category=Category.GATING,
                    kind=scored[0],
                    detail=scored[1],
                )
            )
    return hits


_ASSIGNED = re.compile(r"^\s*(?P<name>[A-Za-z_]\w*)\s*(?::[^=]+)?=(?!=)")
_STORE = re.compile(
    r"^\s*(?:(?P<target>[A-Za-z_][\w.]*(?:\[[^\]]+\]|\.\w+))\s*(?:\|=|\+=|=)(?!=)(?P<rhs>.*)"
    r"|(?P<coll>[A-Za-z_][\w.\[\]'\"]*)\.(?P<op>append|extend|add|update|insert)\((?P<args>.*))$"
)


def _promotions(pf: PyFile, hits: list[Hit], seen: set[int]) -> list[Hit]:
    """Where a selection's result is stored: the line that acts on a gate's decision.

    A comparison with a threshold decides nothing until its result lands somewhere —
    task IDs that passed added to a suite, a candidate appended to an archive, a best
    score kept in a field.  A value assigned on a threshold or selection line, then
    stored into a subscript or attribute or added to a collection later in the same
    function, marks that line as a promotion.
    """
    chosen: dict[str, dict[str, int]] = {}
    for h in hits:
        if h.kind not in ("threshold", "selection"):
            continue
        m = _ASSIGNED.match(pf.lines[h.start_line - 1])
        if m:
            chosen.setdefault(h.symbol, {})[m.group("name")] = h.start_line
    out: list[Hit] = []
    for d in pf.defs:
        names = chosen.get(d.symbol)
        if d.kind != "function" or not names:
            continue
        for i in range(d.def_line + 1, d.end_line + 1):
            if i in seen or _symbol_at(pf, i) != d.symbol:
                continue
            m = _STORE.match(pf.lines[i - 1])
            if not m:
                continue
            text = m.group("rhs") if m.group("target") else m.group("args")
            used = [
                n for n, at in names.items() if at < i and re.search(rf"\b{re.escape(n)}\b", text)
            ]
            if not used:
                continue
            seen.add(i)
            out.append(
                Hit.at_line(
                    pf.path,
                    i,
                    symbol=d.symbol,
                    category=Category.GATING,
                    kind="promotion",
                    detail={
                        "stores": clip(m.group("target") or m.group("coll"), 60),
                        "selected": used[0],
                        "selected_at": str(names[used[0]]),
                    },
                )
            )
    return out


_EXTRACT = re.compile(
    r"^(?P<name>[\w.\[\]'\"]*(?:prediction|pred|answer|final_answer|verdict|grade|label))\s*=\s*"
    r"(?P<rhs>.*(?:\[-1\]|extract|json\.loads|re\.search|re\.findall|\.group\().*)$",
    re.I,
)
_REFERENCE = re.compile(
    r"^(?P<name>[\w.]*(?:GROUND_TRUTH|(?:GOLD|REFERENCE|EXPECTED)_(?:ANSWERS?|KEY|LABELS?|OUTPUTS?|"
    r"RESULTS?|SOLUTIONS?|SQL|COL|COLUMN))\w*)"
    r"\s*(?::[^=]+)?=\s*\S",
    re.I,
)
_METRIC_RETURN = re.compile(
    r"""\breturn\s+['"](\w*(?:score|accuracy|progress|fitness|reward|precision|recall|f1)\w*)['"]""",
    re.I,
)
_SCALE = re.compile(r"""['"](?:correct|incorrect|partial|pass|fail|almost)['"]\s*:\s*-?\d""", re.I)


def _score_line(s: str, low: str) -> tuple[GatingKind, GatingDetail] | None:
    """How a number that later gates or reports is computed, on a line that names a
    score: an answer checked against the reference, a metric reported under a key, or a
    score aggregated (summed, averaged, counted); tried in that order."""
    if not any(k in low for k in _AGG_WORDS):
        return None
    check = _ANSWER_CHECK.search(s)
    if check:
        return "answer_check", {"comparison": clip(check.group(0), 100)}
    key = _METRIC_KEY.search(s)
    if key:
        return "score_report", {"name": key.group(1)}
    if not any(k in low for k in _AGG_OPS):
        return None
    m = _AGGREGATE.search(s)
    if m:
        return "score_aggregate", {"name": clip(m.group("name"), 60)}
    return None


def _evaluation_line(s: str, low: str) -> tuple[GatingKind, GatingDetail] | None:
    """How outputs become scores: answer extraction, reference keys, metrics, grading scales."""
    if any(k in low for k in ("pred", "answer", "verdict", "grade", "label")):
        m = _EXTRACT.search(s)
        if m:
            return "answer_extraction", {"name": clip(m.group("name"), 60)}
    if any(k in low for k in ("ground_truth", "gold", "reference", "expected")):
        m = _REFERENCE.search(s)
        if m:
            return "reference_def", {"name": m.group("name")}
    if "return" in low:
        m = _METRIC_RETURN.search(s)
        if m:
            return "score_report", {"name": m.group(1)}
    if _SCALE.search(s):
        return "grading_scale", {"scale": clip(s, 100)}
    return None


def _symbol_at(pf: PyFile, line: int) -> str:
    best = None
    for d in pf.defs:
        if d.kind == "function" and d.def_line <= line <= d.end_line:
            if best is None or d.def_line >= best.def_line:
                best = d
    if best is not None:
        return best.symbol
    if pf.main_guard and pf.main_guard[0] <= line <= pf.main_guard[1]:
        return "<main>"
    return "<module>"
