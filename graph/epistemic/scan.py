"""Find truth-apt artifacts and the code that transforms or checks them.

An epistemic report asks which outputs of a system could be true or false
(predictions, scores, grades, reports) and which code turns one into another or
decides on it (normalisation, comparison, thresholds, aggregation, label maps).  This
module finds candidates statically, from the survey's function table and persistence
findings plus the source lines of the pinned revision — no code is run.

Rules are vocabulary- and syntax-based so they generalise: a line is a *check line*
when it has an operator of one check kind and a truth-apt word (or the function that
holds it is named with one).  Test, example and documentation folders are skipped:
their checks judge the project's own code, not the system's outputs.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

from graph.proposers.offline.deciding import deciding_quote
from retrieval.survey import Survey

#: Lines of a file at the pinned revision, or None when it cannot be read as text.
TextOf = Callable[[str], list[str] | None]


class CheckKind(StrEnum):
    """What a deciding line does to a truth-apt value."""

    normalisation = "normalisation"
    mapping = "mapping"
    comparison = "comparison"
    threshold = "threshold"
    aggregation = "aggregation"


class ObjectClass(StrEnum):
    """The kind of truth-apt content an artifact carries."""

    predictions = "predictions"
    grades = "grades"
    scores = "scores"
    reports = "reports"
    labels = "labels"


#: Words that name truth-apt content, by class (checked in this order).
CLASS_WORDS: dict[ObjectClass, re.Pattern[str]] = {
    ObjectClass.grades: re.compile(r"grade|grading|judg|verdict|points", re.I),
    ObjectClass.predictions: re.compile(r"predict|answer|response|completion", re.I),
    ObjectClass.scores: re.compile(
        r"score|accura|fitness|progress|reward|metric|precision|recall|pass(?:ed|es)?\b|"
        r"success|error_rate|mean_abs",
        re.I,
    ),
    ObjectClass.reports: re.compile(r"report|summary|results\b", re.I),
    ObjectClass.labels: re.compile(r"label|ground_truth|reference|expected|gold\b", re.I),
}
_TRUTH = re.compile(
    "|".join(p.pattern for p in CLASS_WORDS.values()) + r"|correct|match|returncode|exit_?code",
    re.I,
)
#: Function names that announce a check or a choice among scored candidates.
_CHECK_FN = re.compile(r"check|verif|valid|eval|judge|assess|grade|best|rank|select", re.I)

_CHECKS: tuple[tuple[CheckKind, re.Pattern[str]], ...] = (
    (CheckKind.mapping, re.compile(r"\.(?:map|replace)\(\s*\{|\.fillna\(")),
    (CheckKind.normalisation, re.compile(r"\.(?:strip|lower|casefold|upper|lstrip|rstrip)\(\)")),
    (
        CheckKind.aggregation,
        re.compile(
            r"\.mean\(|\bnp\.(?:mean|std|median|average|sum)\(|\bstatistics\.\w+\(|\bsum\(|"
            r"/\s*(?:len\(|total\b|\w*count\b)|\bMAX\(|\bAVG\(|"
            r"\b(?:max|min|sorted)\([^)]*key="
        ),
    ),
    (CheckKind.comparison, re.compile(r"[^=!<>]==[^=]|!=|\.isin\(|\.isna\(|\.notna\(|returncode")),
    (CheckKind.threshold, re.compile(r"(?:>=|<=|[^-=<>]>\s|[^<=]<\s)")),
)
_CONSTANT = re.compile(r"\b[A-Z][A-Z0-9_]{2,}\b")
_SKIP_PATH = re.compile(r"(^|/)(tests?|testing|examples?|docs?|benchmarks?)/|(^|/)test_[^/]*$")
#: Path classes below the system's main code: baselines, scripts, analysis, notebooks.
_SECONDARY = re.compile(r"(^|/)(baselines?|scripts?|analysis|notebooks?|experiments?)/")
_COMMENT = re.compile(r"^\s*(#|\"\"\"|''')")


@dataclass
class CheckLine:
    kind: CheckKind
    line: int  # 1-based
    text: str  # the stripped source line


@dataclass
class CheckSite:
    """A function whose lines transform or check truth-apt values."""

    path: str
    symbol: str
    start: int
    end: int
    lines: list[CheckLine] = field(default_factory=list)

    @property
    def kinds(self) -> list[CheckKind]:
        return [k for k, _ in Counter(c.kind for c in self.lines).most_common()]

    @property
    def name(self) -> str:
        return self.symbol.split(".")[-1]

    @property
    def score(self) -> float:
        truthy = sum(1 for c in self.lines if _TRUTH.search(c.text))
        base = len({c.kind for c in self.lines}) * 2 + min(len(self.lines), 6) + 3 * min(truthy, 3)
        return base / 2 if secondary(self.path) else base


@dataclass
class Artifact:
    """A truth-apt artifact: written by ``symbol`` at ``line`` of ``path``."""

    cls: ObjectClass
    path: str
    symbol: str
    line: int
    text: str
    persisted: bool
    form: str  # JSON, CSV, SQL table, text file, return value
    names: list[str] = field(default_factory=list)


def truth_class(text: str) -> ObjectClass | None:
    for cls, pat in CLASS_WORDS.items():
        if pat.search(text):
            return cls
    return None


def secondary(path: str) -> bool:
    """Baselines, scripts, analysis and notebooks: ranked below the system's main code."""
    return bool(_SECONDARY.search(path))


def auxiliary(path: str) -> bool:
    """Tests, examples, docs and benchmarks: they judge the project, not its outputs."""
    return bool(_SKIP_PATH.search(path))


def skip_path(path: str) -> bool:
    return auxiliary(path) or not path.endswith(".py")


def _check_kind(line: str, truthy_fn: bool) -> CheckKind | None:
    """The check kind of one source line, or None.

    Normalisation needs a truth-apt word on the line itself (``line.strip()`` on any
    text is not a label convention); the other kinds may rely on a check-named
    function; a threshold needs a truth-apt word or a named constant.
    """
    if line.startswith(("def ", "class ", "@", "import ", "from ")) or _COMMENT.match(line):
        return None
    if "->" in line and line.rstrip().endswith(":"):
        return None
    on_line = bool(_TRUTH.search(line))
    for kind, pat in _CHECKS:
        if not pat.search(f" {line} "):
            continue
        if kind == CheckKind.normalisation and not on_line:
            continue
        if kind == CheckKind.threshold and not (on_line or _CONSTANT.search(line)):
            continue
        if on_line or truthy_fn:
            return kind
    return None


def find_check_sites(survey: Survey, text_of: TextOf) -> list[CheckSite]:
    """Functions holding check lines, best first; ``text_of(path)`` gives file lines."""
    sites: list[CheckSite] = []
    for fn in survey.call_graph.functions.values():
        if fn.symbol.startswith("<") or skip_path(fn.path):
            continue
        lines = text_of(fn.path)
        if lines is None:
            continue
        truthy_fn = bool(_TRUTH.search(fn.symbol) or _CHECK_FN.search(fn.symbol))
        site = CheckSite(fn.path, fn.symbol, fn.start_line, fn.end_line)
        for n in range(fn.start_line, min(fn.end_line, len(lines)) + 1):
            raw = lines[n - 1].strip()
            # the offline drafter's deciding-line rule: a shape or loop-bound check
            # (``assert len(a) == len(b)``), a bare return or a print decides nothing
            kind = _check_kind(raw, truthy_fn) if raw and deciding_quote(raw) else None
            if kind is not None:
                site.lines.append(CheckLine(kind, n, raw))
        if site.lines:
            sites.append(site)
    # nested functions repeat their parent's lines: keep the innermost owner only
    sites = _qualified(_innermost(sites))
    sites.sort(key=lambda s: (-s.score, s.path, s.start))
    # split after ranking: the normalisation part keeps its function's rank
    return _split_normalisation(sites)


def _split_normalisation(sites: list[CheckSite]) -> list[CheckSite]:
    """A function that normalises labels and then compares or aggregates them holds two
    routes: a content transformation (spelling) and a check; each gets its own site."""
    out: list[CheckSite] = []
    for s in sites:
        norm = [c for c in s.lines if c.kind == CheckKind.normalisation]
        rest = [c for c in s.lines if c.kind != CheckKind.normalisation]
        if norm and rest:
            out.append(CheckSite(s.path, s.symbol, s.start, s.end, rest))
            out.append(CheckSite(s.path, s.symbol, s.start, s.end, norm))
        else:
            out.append(s)
    return out


def _qualified(sites: list[CheckSite]) -> list[CheckSite]:
    """Sites with a truth-apt word on a deciding line or in the function's name; a
    site that only has a check-like name (``best_of``, ``select``) counts when its file
    holds another such site, i.e. when it sits among checks of truth-apt values."""
    strong = [
        s for s in sites if _TRUTH.search(s.symbol) or any(_TRUTH.search(c.text) for c in s.lines)
    ]
    files = {s.path for s in strong}
    return [s for s in sites if s in strong or s.path in files]


def _innermost(sites: list[CheckSite]) -> list[CheckSite]:
    owner: dict[tuple[str, int], CheckSite] = {}
    for s in sorted(sites, key=lambda s: s.end - s.start, reverse=True):
        for c in s.lines:
            owner[(s.path, c.line)] = s
    out = []
    for s in sites:
        s.lines = [c for c in s.lines if owner[(s.path, c.line)] is s]
        if s.lines:
            out.append(s)
    return out
