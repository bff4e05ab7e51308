"""A map of the repository for the block every Claude call of a run shares.

Why a map and not the whole survey: the shared block is re-read from the prompt cache
on every turn of every tool loop, so each token in it is paid for hundreds of times in
a draft.  The model can ask for any finding with the ``survey`` tool and each record
request already carries the findings of its own files in full, so the shared block
only has to orient: how much of each category and kind there is, the ways the system
starts and what they reach, the findings most of the code leads to, the files where
findings gather, and a file list whose bulky folders are folded into one line.

Every choice here is by counts and the call graph alone (no file or identifier of a
particular repository), and every ordering ends in path and line, so the same survey
gives the same bytes on every call (the block is cached).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable

from graph.proposers.offline.rank import path_class
from retrieval.survey.index import EntryUnit, SurveyIndex
from retrieval.survey.model import CATEGORIES, Category, Finding, Survey

#: Entry units listed by name (the rest are counted and left to the ``survey`` tool).
MAX_ENTRY_UNITS = 50
#: Findings listed per category other than entry points.
PER_CATEGORY = 6
#: Bytes the map's entry units and its findings per category may take at most: past
#: them fewer are listed (and the finding-ID index holds the rest), so the planner's
#: first request leaves room under the request ceiling for what it reads.
ENTRY_BYTES = 6_000
KEY_BYTES = 7_000
#: Files listed as the places where findings gather.
MAX_BUSY_FILES = 15
#: Kinds named per category in the counts (the rest are summed as "other").
MAX_KINDS = 10
#: Lines of the file list; past it, folders are folded (see :func:`file_map`).
MAX_FILE_LINES = 200
#: Lines of the record conversations' file list: each record's request lists the
#: folders of its own files (:func:`nearby_files`).
RECORD_FILE_LINES = 60
#: Files of a record's own folders its request lists at most.
MAX_NEARBY = 40
#: Extensions named on a folded folder's line.
MAX_EXTS = 4
#: Characters of the plan request's index of the finding IDs the map does not show,
#: for the files outside the system's own code (tests, examples, scripts, baselines).
ID_INDEX_BUDGET = 3500
#: Characters the same index may spend on the system's own code first: every finding
#: of the core modules should be citable from the first turn.
CORE_ID_BUDGET = 14_000
#: What a path class is, as the summary of units outside the core says it.
_CLASS_NAMES = {
    1: "supporting code: scripts, baselines, benchmarks, vendored",
    2: "tests, examples, docs",
}

_RANK = {c: i for i, c in enumerate(CATEGORIES)}


def _as_survey(survey: Survey | None) -> Survey:
    """The survey to index: a real one as is, else one built from its findings (a run
    without a survey, or a test's stand-in, still gets a block of the same shape)."""
    if isinstance(survey, Survey):
        return survey
    found = list(getattr(survey, "findings", None) or [])
    return Survey(repository="", revision="", findings=found)


def _tally(counts: Counter[str], cap: int) -> str:
    """``a ×3, b ×2, other ×4``: the largest counts first, ties by name."""
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    shown = [f"{k} ×{n}" for k, n in top[:cap]]
    rest = sum(n for _, n in top[cap:])
    if rest:
        shown.append(f"other ×{rest}")
    return ", ".join(shown)


def category_counts(ix: SurveyIndex) -> list[str]:
    """One line per category that has findings: its total and its kinds."""
    out: list[str] = []
    for cat in CATEGORIES:
        found = ix.category(cat)
        if found:
            kinds = Counter(str(f.kind) for f in found)
            out.append(f"{cat} {len(found)}: {_tally(kinds, MAX_KINDS)}")
    return out


def _unit_rank(u: EntryUnit) -> tuple[int, bool, int, int, str, int]:
    """The system's own code before scripts and baselines, and those before tests and
    examples (:func:`graph.proposers.offline.rank.path_class`); real entries before
    library self-tests; then the ones reaching the most kinds of effect, then the most
    effects, then source order."""
    cats = {f.category for f in u.reached}
    return (
        path_class(u.primary.path),
        u.library,
        -len(cats),
        -len(u.reached),
        u.primary.path,
        u.primary.start_line,
    )


def _kept_units(ix: SurveyIndex) -> list[EntryUnit]:
    """The entry units the map lists, best first (:func:`_unit_rank`): those in the
    system's own code; units in scripts, tests or examples only when the core has
    none (a repository of scripts), so 95 example scripts never crowd out the three
    real entry points.  The others are summarised per folder (:func:`_support_lines`)."""
    ranked = sorted(ix.entry_units, key=_unit_rank)
    if not ranked:
        return []
    best = path_class(ranked[0].primary.path)
    kept: list[EntryUnit] = []
    size = 0
    for u in [u for u in ranked if path_class(u.primary.path) == best][:MAX_ENTRY_UNITS]:
        size += _row_bytes(u.primary) + 24 * len({f.category for f in u.reached})
        if kept and size > ENTRY_BYTES:
            break
        kept.append(u)
    return kept


def _row_bytes(f: Finding) -> int:
    """About the bytes a finding's map row takes (``finding_line``: ID, category and
    kind, lines, symbol, the snippet's first line up to 160 characters)."""
    first = (f.snippet or "").strip().splitlines()
    snippet = len(first[0][:160]) if first else 0
    return (
        len(f.id)
        + len(f.category)
        + len(str(f.kind))
        + len(f.path)
        + len(f.symbol or "")
        + snippet
        + 24
    )


def _top_folder(path: str) -> str:
    return path.split("/", 1)[0] + "/" if "/" in path else "(top level)"


def _support_lines(ix: SurveyIndex, kept: list[EntryUnit]) -> list[str]:
    """The entry units not listed, one line per class and top folder: how many, what
    they reach, one example path."""
    listed = {id(u) for u in kept}
    groups: dict[tuple[int, str], list[EntryUnit]] = defaultdict(list)
    for u in ix.entry_units:
        if id(u) not in listed:
            groups[(path_class(u.primary.path), _top_folder(u.primary.path))].append(u)
    out: list[str] = []
    for (cls, folder), units in sorted(
        groups.items(), key=lambda kv: (kv[0][0], -len(kv[1]), kv[0][1])
    ):
        reached = Counter(str(f.category) for u in units for f in u.reached)
        what = _CLASS_NAMES.get(cls, "the system's own code, past the cap")
        first = min(units, key=lambda u: (u.primary.path, u.primary.start_line)).primary
        row = f"{folder} {len(units)} entry unit(s) ({what}), e.g. {first.path}:{first.start_line}"
        if reached:
            row += f" | reach {_tally(reached, 4)}"
        out.append(row)
    return out


def entry_lines(ix: SurveyIndex, line: Callable[[Finding], str]) -> list[str]:
    """The entry units of the system's own code, best first (:func:`_kept_units`), each
    with what its code reaches; the rest summarised per folder."""
    units = ix.entry_units
    kept = _kept_units(ix)
    out: list[str] = []
    for u in kept:
        row = line(u.primary)
        reached = Counter(str(f.category) for f in u.reached)
        if reached:
            row += f" | reaches {_tally(reached, len(reached))}"
        if u.extra:
            row += f" | +{len(u.extra)} more start finding(s) of this unit"
        if u.library:
            row += " | library self-test"
        out.append(row)
    if len(units) > len(kept):
        out.append(
            f"... {len(units) - len(kept)} more entry units, not listed (they exercise or"
            ' support the code above; `survey(category="entry_point")` lists them):'
        )
        out.extend(f"  {r}" for r in _support_lines(ix, kept))
    return out


def _reach_counts(ix: SurveyIndex) -> Counter[str]:
    """How many entry units reach each finding (by ID)."""
    counts: Counter[str] = Counter()
    for u in ix.entry_units:
        counts.update({f.id for f in u.reached})
    return counts


def _ranked(ix: SurveyIndex, found: Iterable[Finding]) -> list[Finding]:
    """Findings by how central they are: the system's own code before its scripts,
    tests and examples; then the ones most entry units reach, then whose function has
    the most callers, then in the files with the most findings; ties in source order."""
    reach = _reach_counts(ix)
    return sorted(
        found,
        key=lambda f: (
            path_class(f.path),
            -reach[f.id],
            -len(ix.callers.get(f.node, ())),
            -len(ix.by_path.get(f.path, ())),
            f.path,
            f.start_line,
            f.id,
        ),
    )


def _key_picks(ix: SurveyIndex) -> dict[str, list[Finding]]:
    """Up to :data:`PER_CATEGORY` findings per category besides entry points, the most
    central (:func:`_ranked`), in source order; fewer per category (two at least)
    while their rows would pass :data:`KEY_BYTES`."""
    ranked = {
        cat: _ranked(ix, ix.category(cat))
        for cat in CATEGORIES
        if cat != Category.ENTRY_POINT and ix.category(cat)
    }
    per = PER_CATEGORY
    while per > 2 and sum(_row_bytes(f) for r in ranked.values() for f in r[:per]) > KEY_BYTES:
        per -= 1
    return {cat: sorted(r[:per], key=lambda f: ix.position[f.id]) for cat, r in ranked.items()}


def key_findings(ix: SurveyIndex, line: Callable[[Finding], str]) -> list[str]:
    """The findings of :func:`_key_picks`, each category's followed by how many more
    it has."""
    out: list[str] = []
    for cat, kept in _key_picks(ix).items():
        out.extend(line(f) for f in kept)
        more = len(ix.category(cat)) - len(kept)
        if more:
            out.append(f"... {more} more {cat} findings not shown")
    return out


def shown_ids(ix: SurveyIndex) -> set[str]:
    """IDs the shared map already shows in full (entry units' start findings and the
    key findings per category)."""
    shown = {u.primary.id for u in _kept_units(ix)}
    shown.update(f.id for kept in _key_picks(ix).values() for f in kept)
    return shown


def _file_row(path: str, found: list[Finding]) -> str:
    """``path: category line line#2; category line``: one file's finding IDs folded
    (an ID is ``category:path:line``, with ``#n`` when a line holds several)."""
    by_cat: dict[str, list[str]] = defaultdict(list)
    odd: list[str] = []
    for f in sorted(found, key=lambda f: (_RANK[f.category], f.start_line, f.id)):
        head = f"{f.category}:{path}:"
        if f.id.startswith(head) and ":" not in f.id[len(head) :]:
            by_cat[str(f.category)].append(f.id[len(head) :])
        else:  # an ID not of the usual shape is listed whole
            odd.append(f.id)
    parts = [f"{cat} {' '.join(tails)}" for cat, tails in by_cat.items()]
    return f"{path}: " + "; ".join([*parts, *odd])


def id_index(
    survey: Survey | None, budget: int | None = None, core_budget: int | None = None
) -> tuple[str, int, int]:
    """Every finding ID the shared map does not show, folded by file, in at most
    ``budget`` characters (default :data:`ID_INDEX_BUDGET`); with how many findings
    and files did not fit.

    Why: the planner cites findings by exact ID, and the map shows only a few per
    category; without the rest it left ``facts`` empty or guessed.  Path and line are
    all an ID holds, so a file's IDs fold to one short row.  Files of the system's own code
    come first within their own allowance (:data:`CORE_ID_BUDGET`), so every core
    finding is citable from the first turn; the rest (tests, examples, scripts) share
    ``budget``.  Past an allowance, whole files are kept in the order of their most
    central finding (:func:`_ranked`), so the files the code leads to are listed and
    the rest are counted; rows are written in path order.
    """
    budget = ID_INDEX_BUDGET if budget is None else budget
    ix = _as_survey(survey).index()
    shown = shown_ids(ix)
    rest: dict[str, list[Finding]] = defaultdict(list)
    for fid, f in ix.by_id.items():
        if fid not in shown:
            rest[f.path].append(f)
    order = list(dict.fromkeys(f.path for f in _ranked(ix, ix.by_id.values())))
    rows: dict[str, str] = {}
    size = {0: 0, 1: 0}
    allowance = {0: CORE_ID_BUDGET if core_budget is None else core_budget, 1: budget}
    for path in (p for p in order if p in rest):
        row = _file_row(path, rest[path])
        tier = 0 if path_class(path) == 0 else 1
        if size[tier] + len(row) + 1 > allowance[tier]:
            continue  # a smaller file further down may still fit
        rows[path] = row
        size[tier] += len(row) + 1
    left = [p for p in rest if p not in rows]
    text = "\n".join(rows[p] for p in sorted(rows))
    return text, sum(len(rest[p]) for p in left), len(left)


def busy_files(ix: SurveyIndex) -> list[str]:
    """The files holding the most findings, with the categories they hold: the
    system's own files first, then scripts, then tests and examples."""
    ranked = sorted(ix.by_path.items(), key=lambda kv: (path_class(kv[0]), -len(kv[1]), kv[0]))
    out: list[str] = []
    for path, found in ranked[:MAX_BUSY_FILES]:
        cats = Counter(str(f.category) for f in found)
        out.append(f"{path} ({len(found)}: {_tally(cats, len(cats))})")
    return out


def survey_summary(
    survey: Survey | None, line: Callable[[Finding], str], brief: bool = False
) -> tuple[str, int, set[str]]:
    """The survey's map as text, how many findings it summarises, and the files that
    hold findings (the file list keeps those listed longest).  ``brief``: the counts
    and entry units only, for record conversations (each carries its own findings)."""
    ix = _as_survey(survey).index()
    if not ix.size:
        return "(the survey found nothing)", 0, set()
    sections = [
        ("Findings per category (total: kinds)", category_counts(ix)),
        ("Entry units (ways of starting the system) and what their code reaches", None),
    ]
    if not brief:
        sections += [
            ("Findings most of the code leads to, per category", key_findings(ix, line)),
            ("Files with the most findings", busy_files(ix)),
        ]
    parts = []
    for title, rows in sections:
        body = entry_lines(ix, line) if rows is None else rows
        parts.append(f"## {title}\n" + ("\n".join(body) if body else "(none)"))
    return "\n\n".join(parts), ix.size, set(ix.by_path)


# -- the file list --------------------------------------------------------------------


def nearby_files(paths: list[str], files: list[str], cap: int = MAX_NEARBY) -> list[str]:
    """The other files in the folders of ``files`` (what a record may read next, which
    the record conversations' shorter file list may fold), sorted, at most ``cap``;
    a last row counts the rest and names the call that lists a folder."""
    folders = {f.rsplit("/", 1)[0] + "/" if "/" in f else "" for f in files}
    own = set(files)
    near = sorted(
        p
        for p in dict.fromkeys(paths)
        if p not in own and (p.rsplit("/", 1)[0] + "/" if "/" in p else "") in folders
    )
    if len(near) <= cap:
        return near
    return [*near[:cap], f"... {len(near) - cap} more; `list_files` with the glob `folder/*`"]


def _ext(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return "." + name.rsplit(".", 1)[1] if "." in name.lstrip(".") else "(no extension)"


def _ancestors(path: str) -> Iterable[str]:
    """Folders above ``path`` (``a/``, ``a/b/``), outermost first."""
    parts = path.split("/")[:-1]
    for i in range(1, len(parts) + 1):
        yield "/".join(parts[:i]) + "/"


def file_map(
    paths: list[str], keep: Collection[str] = (), budget: int = MAX_FILE_LINES
) -> tuple[list[str], int, int]:
    """The file list in at most ``budget`` lines, with how many folders were folded and
    how many paths they hold.

    Within budget every path is listed.  Past it, folders are folded into one line
    ``folder/ (N files: .py ×a, .json ×b)`` until the list fits, bulkiest first: a
    folder's bulk is the number of entries directly inside it (files and sub-folders)
    times the share of its files *not* in ``keep`` (the files the survey found
    something in); ties go to the lower share, the deeper folder, then the name.  So
    wide data, log and result folders go first, while folders of source the survey
    points into stay listed.  If the top level alone is
    over budget the last lines are cut and counted.
    """
    paths = sorted(dict.fromkeys(paths))
    if len(paths) <= budget:
        return paths, 0, 0
    below: dict[str, list[str]] = defaultdict(list)  # folder -> every file below it
    children: dict[str, set[str]] = defaultdict(set)  # folder -> names directly inside
    for p in paths:
        for a in _ancestors(p):
            below[a].append(p)
            children[a].add(p[len(a) :].split("/", 1)[0])
    shown = {f: len(ps) for f, ps in below.items()}  # lines each folder's subtree shows
    total = len(paths)
    folded: set[str] = set()
    kept = set(keep)
    share = {f: sum(p in kept for p in ps) / len(ps) for f, ps in below.items()}
    bulk = {f: len(children[f]) * (1 - share[f]) for f in below}
    order = sorted(below, key=lambda f: (-bulk[f], share[f], -f.count("/"), f))
    for f in order:
        if total <= budget:
            break
        if shown[f] <= 1 or any(a in folded for a in _ancestors(f[:-1])):
            continue
        delta = shown[f] - 1
        total -= delta
        for a in _ancestors(f[:-1]):
            shown[a] -= delta
        shown[f] = 1
        folded.add(f)
    out: dict[str, str] = {}
    for p in paths:
        top = next((a for a in _ancestors(p) if a in folded), None)
        if top is None:
            out[p] = p
        elif top not in out:
            exts = Counter(_ext(q) for q in below[top])
            out[top] = f"{top} ({len(below[top])} files: {_tally(exts, MAX_EXTS)})"
    lines = [out[k] for k in sorted(out)]
    outer = [f for f in out if f in folded]
    hidden = sum(len(below[f]) for f in outer)
    if len(lines) > budget:
        lines = [*lines[:budget], f"... {len(lines) - budget} more entries not shown"]
    return lines, len(outer), hidden
