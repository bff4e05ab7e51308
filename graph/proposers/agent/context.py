"""A record's first request, within a byte budget: notes, findings, hits, opening pages.

Why a budget and not "everything about the record's files": on ADAS a record's first
request carried a median of 36 KB (up to 81 KB) of per-record text and about 180
findings, mostly the same findings once per near-identical benchmark folder, while
the opening pages the request promised stopped after three files.  The model then
spent its tool budget re-reading.  Here the text is built in order of use and cut to
``RecordContext.context_bytes`` (the run setting ``record_context_bytes``):

1. the planner's reading notes for the item and the ranges the planner already read
   (naming which of them are shown below with their text);
2. survey findings ranked by relevance to the item (named in its ``facts``, in its
   first files, of the categories its kind is about, sharing words with its label),
   identical findings folded across sibling files ("same in ``b/run.py`` and 2 more")
   and within one file ("same at lines 12, 40");
3. search hits outside data files (data sets, result dumps, licences);
4. the text of the ranges the planner read for this item (its notes' ranges and its
   reads of the item's files), read again from the pinned revision's git objects, never
   taken from the notes, ranges holding the item's best-ranked findings first: a relay
   run on dgm re-read the same files in two or three record conversations each;
5. an opening page of every planned file, sized to what is left; a sibling of a file
   already opened, or a file the budget cannot hold, is named with the call that reads
   it — a planned file is never silently missing; lines a range already showed are
   not shown again (the opening stops before them, or is left out).

Every cut says exactly once where to continue, so two notices can never disagree.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from drafter.sanitize import frame_escape
from drafter.text import collapse
from graph.jsontypes import JsonDict
from graph.proposer import PlanItem, ReadRange
from graph.proposers.agent.facts import LOCATION
from graph.proposers.agent.prompts import data_block, finding_line
from graph.proposers.agent.reading import note_row, unread_count
from graph.proposers.context_paths import Siblings
from retrieval.survey import Finding

#: Shares of the data budget (what the task text leaves) each section may take at most.
NOTES_SHARE = 0.22
#: Bytes of the notes share always left to the list of ranges read in the run.
RANGES_MIN = 300
FINDINGS_SHARE = 0.30
HITS_SHARE = 0.10
MAX_FINDINGS = 40
MAX_HITS = 6
HIT_LINES = 16
#: An opening shorter than this many lines is not worth showing: the file is named.
MIN_OPENING_LINES = 15
#: Bytes the page header, frame and notice of one opening take besides its rows.
PAGE_OVERHEAD = 320
MAX_LINE_CHARS = 2_000
PAGE_LINES = 400
#: Share of the data budget the planner-read ranges may take at most.
RANGES_SHARE = 0.60
#: Bytes a record's data may grow past its budget to show the item's ranges whole.
RANGES_EXTRA = 18_000
#: A cut range shorter than this many lines is listed with its call instead.
MIN_RANGE_LINES = 6
#: Lines shown each side of a location fact of a few lines (a promise's sentence).
FACT_CONTEXT = 2

#: Survey categories each record kind is mostly about, most telling first.
KIND_CATEGORIES: dict[str, tuple[str, ...]] = {
    "RTE": ("entry_point", "model_loop", "model_call", "exec_effect", "persistence"),
    "CMP": ("model_call", "config_read", "entry_point"),
    "OBJ": ("persistence", "read_back", "prompt", "state"),
    "CLM": ("claim", "gating", "exec_effect"),
    "BAP": ("prompt", "exec_effect", "tool_dispatch", "gating", "model_call", "read_back"),
}
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")
_STOP = frozenset(
    "this that with from into each when what which their there these those record "
    "route file files code model uses used only also then than main path".split()
)


def _unframed(text: str) -> str:
    """Repository paths outside a data block still cannot open or close one."""
    return frame_escape(text, "repository_data")


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


def _words(text: str) -> set[str]:
    out: set[str] = set()
    for w in _WORD.findall(text):
        for part in [w, *w.split("_")]:
            low = part.lower()
            if len(low) >= 4 and low not in _STOP:
                out.add(low)
    return out


# -- findings -----------------------------------------------------------------------------


@dataclass
class Folded:
    """One finding shown for itself and the identical findings it stands for."""

    finding: Finding
    score: float
    same_lines: list[int] = field(default_factory=list)  # same file
    same_files: list[str] = field(default_factory=list)  # sibling files, "path:line"

    def line(self) -> str:
        row = finding_line(self.finding)
        if self.same_lines:
            row += " · same at lines " + _some([str(n) for n in self.same_lines])
        if self.same_files:
            row += " · same in " + _some(self.same_files)
        return row


def _some(items: list[str], show: int = 3) -> str:
    if len(items) <= show:
        return ", ".join(items[:-1]) + (" and " if len(items) > 1 else "") + items[-1]
    return ", ".join(items[:show]) + f" and {len(items) - show} more"


def rank_findings(findings: list[Finding], item: PlanItem, extra_words: str = "") -> list[Finding]:
    """Findings most relevant to ``item`` first (stable for equal scores)."""
    return [f for f, _ in _scored(findings, item, extra_words)]


def _scored(
    findings: list[Finding], item: PlanItem, extra_words: str
) -> list[tuple[Finding, float]]:
    facts = set(item.facts)
    files = {p: i for i, p in enumerate(item.files)}
    cats = KIND_CATEGORIES.get(item.kind, ())
    words = _words(f"{item.label} {item.rationale} {extra_words}")

    def score(f: Finding) -> float:
        s = 0.0
        if f.id in facts:
            s += 100
        if f.path in files:
            s += 20 - min(files[f.path], 10)
        if f.category in cats:
            s += 12 - 2 * cats.index(f.category)
        s += min(15, 3 * len(words & _words(f"{f.symbol} {f.snippet}")))
        return s

    scored = [(f, score(f)) for f in findings]
    order = {id(f): i for i, f in enumerate(findings)}
    return sorted(scored, key=lambda t: (-t[1], order[id(t[0])]))


def fold_findings(ranked: list[tuple[Finding, float]], siblings: Siblings | None) -> list[Folded]:
    """Identical findings (same category, kind, symbol and code) folded into the best
    ranked one: within one file, and across sibling files."""
    out: list[Folded] = []
    groups: dict[tuple[str, str, str, str], list[Folded]] = {}
    for f, s in ranked:
        key = (str(f.category), str(f.kind), str(f.symbol), collapse(f.snippet or ""))
        host = None
        for g in groups.get(key, []):
            first = g.finding.path
            if first == f.path or (siblings is not None and siblings.related(first, f.path)):
                host = g
                break
        if host is None:
            folded = Folded(f, s)
            groups.setdefault(key, []).append(folded)
            out.append(folded)
        elif host.finding.path == f.path:
            host.same_lines.append(f.start_line)
        else:
            host.same_files.append(f"{f.path}:{f.start_line}")
    return out


def findings_section(
    findings: list[Finding],
    item: PlanItem,
    siblings: Siblings | None,
    budget: int,
    extra_words: str = "",
) -> str:
    """The ranked, folded findings within ``budget`` bytes, saying what was left out."""
    if not findings:
        return ""
    folded = fold_findings(_scored(findings, item, extra_words), siblings)
    rows: list[str] = []
    used = 300  # head, frame and the trailer
    for fd in folded[:MAX_FINDINGS]:
        row = fd.line()
        if used + _size(row) + 1 > budget:
            break
        rows.append(row)
        used += _size(row) + 1
    shown = {id(fd.finding) for fd in folded[: len(rows)]}
    left = [fd for fd in folded if id(fd.finding) not in shown]
    head = (
        f"Survey findings of this record's files and facts ({len(findings)}; identical ones "
        f"folded into {len(folded)}), most relevant first: ID | category/kind | lines | "
        "symbol | first line"
    )
    text = head + "\n" + data_block("findings", "\n".join(rows), count=str(len(rows)))
    if left:
        paths = sorted({fd.finding.path for fd in left})
        text += (
            f"\n[{len(left)} more (folded) findings not shown, in "
            + _unframed(_some([f"`{p}`" for p in paths]))
            + '; `survey(path="…")` lists a file\'s findings]'
        )
    return text


# -- notes and ranges already read -----------------------------------------------------------


def merge_ranges(ranges: list[ReadRange]) -> list[ReadRange]:
    """Overlapping or touching ranges of one file merged; sorted by path and line."""
    out: list[ReadRange] = []
    for r in sorted(ranges, key=lambda r: (r.path, r.start_line, r.end_line)):
        last = out[-1] if out else None
        if last is not None and last.path == r.path and r.start_line <= last.end_line + 1:
            out[-1] = ReadRange(
                path=r.path, start_line=last.start_line, end_line=max(last.end_line, r.end_line)
            )
        else:
            out.append(r)
    return out


def _fitting(rows: list[str], budget: int, joiner: str) -> tuple[list[str], int]:
    """The leading rows whose joined size fits ``budget``, and how many were left out."""
    kept: list[str] = []
    for r in rows:
        if _size(joiner.join([*kept, r])) > budget:
            break
        kept.append(r)
    return kept, len(rows) - len(kept)


def notes_section(
    item: PlanItem, reads: list[ReadRange], budget: int, shown: list[ReadRange] | None = None
) -> str:
    """The planner's notes for this item and the ranges the run has already read, saying
    which ranges' text is ``shown`` further on; rows that do not fit are counted, never
    cut mid-way (a framed block always closes)."""
    parts: list[str] = []
    if item.notes:
        rows = [note_row(n, reads) for n in item.notes]
        unread = unread_count(item.notes, reads)
        # the item's own notes first: a plan item holds at most MAX_NOTES of them, and
        # the share is sized to carry them all; the run's read ranges get what is left
        kept, left = _fitting(rows, budget - RANGES_MIN, "\n")
        if kept:
            more = f"\n({left} more notes left out)" if left else ""
            marks = (
                f"; {unread} of them name lines the planner never read, marked"
                ' "mentioned, not read": read those lines before relying on them'
                if unread
                else ""
            )
            parts.append(
                "What the planner noted for this record (its notes; "
                f"quote only what a tool result shows you{marks}):\n"
                + data_block("plan_notes", "\n".join(kept))
                + more
            )
    merged = merge_ranges(reads)
    if merged:
        rows = [f"{r.path} {r.start_line}–{r.end_line}" for r in merged]
        used = _size("\n\n".join(parts))
        kept, left = _fitting(rows, max(RANGES_MIN, budget - used - 200), ", ")
        more = f" and {left} more" if left else ""
        if shown:
            tail = (
                " Their text is shown below (from the repository at this revision) only for "
                + _unframed(_some([f"{r.path} {r.start_line}–{r.end_line}" for r in shown], 4))
                + ', under "Ranges the planner read for this record"; the rest is not in '
                "this conversation: read again only the lines you still need to quote."
            )
        else:
            tail = (
                " Their text is not in this conversation: read again only the lines you "
                "still need to quote."
            )
        parts.append(
            "Ranges already read in this run (by the planner): "
            + _unframed(", ".join(kept))
            + more
            + "."
            + tail
        )
    return "\n\n".join(parts)


# -- search hits -------------------------------------------------------------------------------


def hits_section(chunks: list[JsonDict], budget: int) -> str:
    parts: list[str] = []
    used = 0
    for h in chunks[:MAX_HITS]:
        text = "\n".join((h.get("text") or "").splitlines()[:HIT_LINES])
        block = data_block(
            "search_hit",
            text,
            path=str(h.get("path")),
            lines=f"{h.get('start')}-{h.get('end')}",
            symbol=str(h.get("symbol") or ""),
        )
        if used + _size(block) + 2 > budget:
            break
        parts.append(block)
        used += _size(block) + 2
    return "\n\n".join(parts)


# -- opening pages -----------------------------------------------------------------------------

#: ``page(path, last_line)`` gives the file's numbered page 1..last_line as ``read_file``
#: shows it; ``lines(path)`` gives the file's lines, or a reason it has none.
PageFn = Callable[[str, int], str]
LinesFn = Callable[[str], "list[str] | str"]
#: ``span(path, first, last)`` gives lines first..last as ``read_file`` shows them.
SpanFn = Callable[[str, int, int], str]
_PAGE_LINES_ATTR = re.compile(r'kind="file_lines" path="[^"]*" lines="(\d+)-(\d+)"')


# -- ranges the planner read ---------------------------------------------------------------------


def _fact_ranges(item: PlanItem) -> list[ReadRange]:
    """The locations the item cites as facts (``path:12`` or ``path:12-40``); a range of
    a few lines (a promise's sentence) widened by :data:`FACT_CONTEXT` lines each side,
    so the sentence is read with what frames it."""
    out: list[ReadRange] = []
    for f in item.facts:
        m = LOCATION.match(f.strip())
        if m is not None:
            a = int(m.group("a"))
            b = max(a, int(m.group("b") or a))
            if b - a < 3:
                a, b = max(1, a - FACT_CONTEXT), b + FACT_CONTEXT
            out.append(ReadRange(path=m.group("path"), start_line=a, end_line=b))
    return out


def item_ranges(
    item: PlanItem,
    reads: list[ReadRange],
    findings: list[Finding],
    shared: Collection[str] = (),
) -> list[ReadRange]:
    """The ranges the planner read *for* ``item``: first the ranges its notes and its
    location facts name (the lines the planner said matter for this record) where the
    planner did read that file's lines, then what else it read of the files only this
    item plans (``shared``: files other items of the plan name too, whose pages were
    read for whichever of them); each group most relevant first (by the best rank of
    an item's finding the range holds, then in the order of the item's files).

    Why not every read of every planned file: a page read for one record was shown in
    every record naming its file, and crowded out that record's own lines.  Why a note
    must touch a read: a note saying "lines 1–1 … not read" named lines nobody read.

    Why notes apart from reads: a planner reads whole pages (up to 400 lines) and notes
    the few lines that matter; merged, the note vanished into its page and the request
    showed the page's top (a relay run on dgm: ``DGM_outer.py`` 1-88 shown where the note
    said 221-335, so every record re-read the file).  Reads only add the lines no note
    already names."""
    files = set(item.files) - set(shared)
    claimed = [
        ReadRange(path=n.path, start_line=n.start_line, end_line=max(n.start_line, n.end_line))
        for n in item.notes
    ]
    # a location fact is checked against the revision when the plan is accepted (a
    # promise's line from the plan request's list is one, read or not)
    noted = merge_ranges(
        [c for c in claimed if any(_touches(c, r) for r in reads)] + _fact_ranges(item)
    )
    rest = merge_ranges([piece for r in reads if r.path in files for piece in _outside(r, noted)])
    scored = _scored(findings, item, "")
    order = {p: i for i, p in enumerate(item.files)}

    def key(r: ReadRange) -> tuple[float, int, str, int]:
        best = max(
            (
                s
                for f, s in scored
                if f.path == r.path and r.start_line <= f.start_line <= r.end_line
            ),
            default=0.0,
        )
        return (-best, order.get(r.path, len(order)), r.path, r.start_line)

    return sorted(noted, key=key) + sorted(rest, key=key)


def _touches(a: ReadRange, b: ReadRange) -> bool:
    return a.path == b.path and a.start_line <= b.end_line and b.start_line <= a.end_line


def _outside(r: ReadRange, cover: list[ReadRange]) -> list[ReadRange]:
    """The parts of ``r`` no range of ``cover`` (same file) holds."""
    pieces = [r]
    for c in cover:
        if c.path != r.path:
            continue
        nxt: list[ReadRange] = []
        for p in pieces:
            if c.end_line < p.start_line or c.start_line > p.end_line:
                nxt.append(p)
                continue
            if p.start_line < c.start_line:
                nxt.append(
                    ReadRange(path=p.path, start_line=p.start_line, end_line=c.start_line - 1)
                )
            if p.end_line > c.end_line:
                nxt.append(ReadRange(path=p.path, start_line=c.end_line + 1, end_line=p.end_line))
        pieces = nxt
    return pieces


def _shares(needs: list[int], total: int) -> list[int]:
    """``total`` bytes shared among ``needs``: the smallest whole first, the rest split
    evenly among the larger (so a 3-line range is never crowded out by a page)."""
    out = [0] * len(needs)
    left, count = total, len(needs)
    for i in sorted(range(len(needs)), key=lambda i: (needs[i], i)):
        out[i] = min(needs[i], max(0, left) // max(1, count))
        left -= out[i]
        count -= 1
    return out


def ranges_section(
    ranges: list[ReadRange], span: SpanFn, lines_of: LinesFn, budget: int
) -> tuple[str, list[ReadRange], list[str]]:
    """The numbered text of ``ranges`` in order, within ``budget`` bytes, the spans
    actually shown, and the ranges not shown (each with why and the ``read_file`` call
    that reads it).  The budget is shared so that small ranges come whole and large
    ones are cut, saying where they go on."""
    pages: list[str] = []
    listed: list[str] = []
    shown: list[ReadRange] = []
    todo: list[tuple[ReadRange, list[str], int, int]] = []
    for r in ranges:
        got = lines_of(r.path)
        if isinstance(got, str):
            listed.append(f"`{r.path}` {r.start_line}–{r.end_line}: {got}")
            continue
        first, last = r.start_line, min(len(got), r.end_line)
        if first > last:
            listed.append(
                f"`{r.path}` {r.start_line}–{r.end_line}: past its last line ({len(got)})"
            )
            continue
        if all(_empty(got[i - 1]) for i in range(first, last + 1)):
            continue  # blank or comment-only lines: nothing to quote, nothing to list
        todo.append((r, got, first, last))
    needs = [
        PAGE_OVERHEAD + sum(_row_size(i, got[i - 1]) for i in range(a, b + 1))
        for _, got, a, b in todo
    ]
    allowance = _shares(needs, budget - 120 - min(60 + 140 * len(ranges), budget // 4))
    for (r, got, first, last), cap in zip(todo, allowance, strict=True):
        call = f'read_file(path="{r.path}", start_line={first}, end_line={last})'
        used, k = PAGE_OVERHEAD, first - 1
        for i in range(first, last + 1):
            used += _row_size(i, got[i - 1])
            if used > cap:
                break
            k = i
        if k < min(first + MIN_RANGE_LINES - 1, last):
            listed.append(f"`{r.path}` {first}–{last}: no room left in this request; {call}")
            continue
        text = span(r.path, first, k)
        m = _PAGE_LINES_ATTR.search(text)
        end = int(m.group(2)) if m else k
        # a page the tool itself cut already says where to continue: one notice per cut
        if end < last and "\n[cut at line " not in text:
            text += (
                f"\n[range cut: lines {first}–{end} of the {first}–{last} the planner read; "
                f'continue with read_file(path="{r.path}", start_line={end + 1}, '
                f"end_line={last})]"
            )
        pages.append(text)
        shown.append(ReadRange(path=r.path, start_line=first, end_line=end))
    if not pages:
        return "", [], listed
    out = "Ranges the planner read for this record (from the repository, most relevant first):"
    return out + "\n" + "\n\n".join(pages), shown, listed


_COMMENT = ("#", "//", "/*", "*", "--", "<!--")
#: Lines that open an import or a module declaration, in the usual languages.
_IMPORT = re.compile(
    r"^(import\b|from\s+\S+\s+import\b|export\s+(\*|\{[^}]*\}|type\s+\{)[^;]*\bfrom\b"
    r"|(const|let|var)\s+[\w{}\s,]+=\s*require\(|package\s|use\s|#include|using\s"
    r"|['\"]use (strict|client|server)['\"])"
)
#: A header shorter than this many lines is shown (skipping it saves nothing).
MIN_SKIP_LINES = 5


def body_start(lines: list[str]) -> int:
    """The first line after a file's leading licence header, comments and imports (1
    when there is little to skip).  Blank lines and comments between imports are part
    of the block; a multi-line import runs until its brackets close."""
    depth = 0
    last = 0  # the last line of the header block
    for i, line in enumerate(lines, 1):
        s = line.strip()
        if depth > 0:
            depth += s.count("(") + s.count("{") - s.count(")") - s.count("}")
            last = i
            continue
        if _empty(line):
            continue
        if _IMPORT.match(s):
            depth = max(0, s.count("(") + s.count("{") - s.count(")") - s.count("}"))
            last = i
            continue
        break
    else:
        return 1  # the whole file is header: show it from the top
    if last < MIN_SKIP_LINES:
        # a file opening with a long comment (a licence) and no imports
        first_code = next((i for i, ln in enumerate(lines, 1) if not _empty(ln)), 1)
        return first_code if first_code > MIN_SKIP_LINES else 1
    nxt = last + 1
    while nxt <= len(lines) and not lines[nxt - 1].strip():
        nxt += 1
    return nxt if nxt <= len(lines) else 1


_LICENCE = re.compile(r"licen[cs]e|copyright|spdx|\(c\)", re.I)


def header_label(lines: list[str]) -> str:
    """What the lines an opening skips are: a licence header, other comments, imports."""
    words: list[str] = []
    comments = [ln for ln in lines if ln.strip() and _empty(ln)]
    if any(_LICENCE.search(ln) for ln in comments):
        words.append("licence header")
    elif comments:
        words.append("comments")
    if any(_IMPORT.match(ln.strip()) for ln in lines):
        words.append("imports")
    return " and ".join(words) or "blank lines"


def _empty(line: str) -> bool:
    """A blank line or one holding only a comment (in any of the usual syntaxes)."""
    s = line.strip()
    return not s or s.startswith(_COMMENT)


def _row_size(i: int, line: str) -> int:
    clipped = line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + " [line cut]"
    return _size(f"{i:>5}  {clipped}") + 1


def _fit(lines: list[str], allowance: int) -> int:
    """How many opening lines fit in ``allowance`` bytes of page."""
    used = PAGE_OVERHEAD
    k = 0
    for i, line in enumerate(lines[:PAGE_LINES], 1):
        used += _row_size(i, line)
        if used > allowance:
            break
        k = i
    return k


def _shown_whole_note(path: str, total: int, first: ReadRange) -> str:
    """Why a file shown above from its first line gets no opening, and where to go on."""
    nxt = (
        f'read_file(path="{path}", start_line={first.end_line + 1})'
        if first.end_line < total
        else "the whole file"
    )
    return (
        f"`{path}` ({total} lines): lines 1–{first.end_line} are shown above "
        f"(ranges the planner read); {nxt}"
    )


def _opening_page(
    path: str,
    got: list[str],
    start: int,
    k: int,
    above: list[ReadRange],
    page: PageFn,
    span: SpanFn | None,
) -> str:
    """Lines ``start``–``k`` of ``path`` as a page, with the notice saying what is left
    out and where reading goes on."""
    cap = above[0].start_line - 1 if above else len(got)
    if start > 1 and span is not None:
        text = span(path, start, k) + (
            f"\n[lines 1–{start - 1}: {header_label(got[: start - 1])}, not shown;"
            f' read_file(path="{path}", start_line=1, end_line={start - 1})]'
        )
    else:
        text = page(path, k)
    # a page the tool itself cut (smaller pages for a small context window) already
    # says where to continue: one notice per cut
    if "\n[cut at line " not in text:
        text += _opening_notice(path, start, k, len(got), above[0] if k == cap and above else None)
    return text


def openings_section(
    files: list[str],
    page: PageFn,
    lines_of: LinesFn,
    siblings: Siblings | None,
    budget: int,
    shown: list[ReadRange] | None = None,
    span: SpanFn | None = None,
    left_out: list[str] | None = None,
) -> str:
    """An opening page of each planned file, sharing ``budget``; the files not opened
    are named with why and with the call that reads them (appended to ``left_out``
    when given, for the request's one list of what it does not show).  An opening stops before the
    first line of the file already ``shown`` above, and a file shown from its first line
    gets no opening: no line appears twice.  With ``span``, an opening starts after the
    file's licence header and import block (:func:`body_start`), which say nothing a
    record quotes, and says where they are."""
    pages: list[str] = []
    left: list[str] = []
    opened: list[str] = []
    # room for the left-out list: a line per planned file at most
    remaining = budget - min(40 + 160 * len(files), budget // 3)

    def twin_of(path: str, among: list[str]) -> str | None:
        return next((o for o in among if siblings is not None and siblings.related(o, path)), None)

    # files that will get a page of their own (a sibling of an earlier file will not)
    distinct = sum(1 for i, p in enumerate(files) if twin_of(p, files[:i]) is None)
    for path in files:
        twin = twin_of(path, opened)
        if twin is not None:
            left.append(
                f"`{path}`: mostly the same lines as `{twin}` (opened above); "
                f'read_file(path="{path}")'
            )
            continue
        got = lines_of(path)
        share = remaining // max(1, distinct)
        distinct -= 1
        if isinstance(got, str):
            left.append(f"`{path}`: {got}")
            continue
        # touching ranges shown apart (a note and the rest of its page) read as one
        above = merge_ranges([r for r in shown or [] if r.path == path])
        cap = above[0].start_line - 1 if above else len(got)
        if above and cap < 1:
            left.append(_shown_whole_note(path, len(got), above[0]))
            continue
        start = body_start(got) if span is not None else 1
        if start > cap:
            start = 1
        body = got[start - 1 :]
        k = min(cap, start - 1 + _fit(body, min(share, 24_000)))
        floor = min(start - 1 + MIN_OPENING_LINES, len(got), cap)
        if k < floor:
            # earlier files come first: a short page if the rest of the budget has room
            if start - 1 + _fit(body, min(remaining, 24_000)) < floor:
                left.append(
                    f"`{path}` ({len(got)} lines): no room left in this request; "
                    f'read_file(path="{path}")'
                )
                continue
            k = floor
        text = _opening_page(path, got, start, k, above, page, span)
        pages.append(text)
        opened.append(path)
        remaining -= _size(text) + 2
    out = "\n\n".join(pages)
    if left_out is not None:
        left_out.extend(left)
    elif left:
        out += (
            ("\n\n" if out else "")
            + "Planned files not opened here:\n"
            + "\n".join(f"- {_unframed(x)}" for x in left)
        )
    return out


def _opening_notice(path: str, start: int, k: int, total: int, above: ReadRange | None) -> str:
    """Where an opening of lines ``start``–``k`` stops, and how to read on."""
    if above is not None:
        more = (
            f'; continue with read_file(path="{path}", start_line={above.end_line + 1})'
            if above.end_line < total
            else ""
        )
        return (
            f"\n[opening only: lines {start}–{k} of {total}; lines {above.start_line}–"
            f"{above.end_line} are shown above{more}]"
        )
    if k < total:
        return (
            f"\n[opening only: lines {start}–{k} of {total}; continue with "
            f'read_file(path="{path}", start_line={k + 1})]'
        )
    return ""


# -- the whole data turn -------------------------------------------------------------------------


@dataclass
class RecordData:
    """Inputs of one record's data turn (everything but the task text)."""

    item: PlanItem
    findings: list[Finding]
    chunks: list[JsonDict]
    reads: list[ReadRange]
    page: PageFn
    lines_of: LinesFn
    siblings: Siblings | None
    budget: int  # bytes for this turn
    #: reads the planner's ranges again from the revision (None: no ranges shown)
    span: SpanFn | None = None
    #: files other items of the plan name too (their reads are not this item's)
    shared: frozenset[str] = frozenset()
    #: the other files of the item's folders (the record map's file list is shorter)
    nearby: list[str] = field(default_factory=list)
    #: bytes the turn may take at most, the item's own ranges included (None: no cap):
    #: what the request's ceiling leaves beside the system block, tools and later turns
    cap: int | None = None


def ranges_bytes(ranges: list[ReadRange], lines_of: LinesFn) -> int:
    """Bytes :func:`ranges_section` needs to show ``ranges`` whole."""
    need = 120 + min(60 + 140 * len(ranges), 4_000)
    for r in ranges:
        got = lines_of(r.path)
        if isinstance(got, list):
            rows = range(r.start_line, min(len(got), r.end_line) + 1)
            need += PAGE_OVERHEAD + sum(_row_size(i, got[i - 1]) for i in rows)
    return need


def build_record_data(d: RecordData) -> str:
    """Notes, planner-read ranges, findings, hits and openings, in that order, within
    ``d.budget`` bytes plus what the item's own ranges need (up to
    :data:`RANGES_EXTRA`): the planner's reading for the item comes whole and first,
    and the rest shares what is left."""
    picked = item_ranges(d.item, d.reads, d.findings, d.shared) if d.span is not None else []
    want = ranges_bytes(picked, d.lines_of) if picked else 0
    budget = max(1_000, d.budget) + min(RANGES_EXTRA, want)
    if d.cap is not None:
        budget = max(1_000, min(budget, d.cap))
    notes_budget = int(budget * NOTES_SHARE)
    notes = notes_section(d.item, d.reads, notes_budget)
    ranges = ""
    shown: list[ReadRange] = []
    unshown: list[str] = []
    if d.span is not None and picked:
        # the notes grow by the sentence naming the shown ranges (at most four named)
        room = min(want, int(budget * RANGES_SHARE), budget - _size(notes) - 700 - 1_500)
        ranges, shown, unshown = ranges_section(picked, d.span, d.lines_of, max(0, room))
        if shown:
            notes = notes_section(d.item, d.reads, notes_budget, shown)
    left = budget - sum(_size(x) + 2 for x in (notes, ranges) if x)
    note_words = " ".join(n.showed for n in d.item.notes)
    finds = findings_section(
        d.findings, d.item, d.siblings, min(int(budget * FINDINGS_SHARE), left // 2), note_words
    )
    hits = hits_section(d.chunks, min(int(budget * HITS_SHARE), left // 6))
    if hits:
        hits = "Search hits for this record's label:\n" + hits
    head = [x for x in (notes, ranges, finds, hits) if x]
    used = sum(_size(x) + 2 for x in head) + 120 * len(unshown)
    used += sum(_size(p) + 1 for p in d.nearby) + 120 if d.nearby else 0
    files_left: list[str] = []
    openings = openings_section(
        d.item.files,
        d.page,
        d.lines_of,
        d.siblings,
        budget - used - 60,
        shown,
        d.span,
        left_out=files_left,
    )
    parts = [*head]
    if openings:
        parts.append("Openings of the planned files:\n" + openings)
    if d.nearby:
        parts.append(
            "Other files in the folders of this record's files:\n"
            + data_block("file_list", "\n".join(d.nearby), count=str(len(d.nearby)))
        )
    missing = _not_covered(unshown, openings) + files_left
    if missing:
        parts.append(
            "Not shown in this request (read what you need with the call given):\n"
            + "\n".join(f"- {_unframed(x)}" for x in missing)
        )
    return "\n\n".join(parts) if parts else "(no repository data for this record)"


_LISTED_RANGE = re.compile(r"^`(?P<path>[^`]+)` (?P<a>\d+)–(?P<b>\d+):")
_OPENED = re.compile(r'kind="file_lines" path="(?P<path>[^"]*)" lines="(?P<a>\d+)-(?P<b>\d+)"')


def _not_covered(listed: list[str], openings: str) -> list[str]:
    """The ranges ``listed`` as not shown whose lines no opening below shows (an opening
    can hold a range the ranges' share had no room for): one list, never a range
    called missing and then shown."""
    spans = [(m["path"], int(m["a"]), int(m["b"])) for m in _OPENED.finditer(openings)]
    out: list[str] = []
    for row in listed:
        m = _LISTED_RANGE.match(row)
        if m is not None and any(
            p == m["path"] and a <= int(m["a"]) and int(m["b"]) <= b for p, a, b in spans
        ):
            continue
        out.append(row)
    return out
