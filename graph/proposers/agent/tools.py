"""The investigation tools Claude may call, over the pinned revision only.

Why a tool loop at all: a record call that sees four files cut at 12,000 characters
cannot follow a route through a 45 KB module; an analyst reads on, greps, follows a
call and checks a quote before writing.  These tools give the model the same moves,
with three guarantees:

- **Git objects only.**  Every read goes through :class:`drafter.snapshot.Snapshot`
  (``git cat-file`` of the pinned commit); nothing touches a work tree and nothing of
  the repository is ever run.  Absolute paths, ``..`` and paths outside the
  revision's tree are refused with a tool error, whatever the model or a file says.
- **Bounded output.**  A page is at most :data:`PAGE_LINES` lines / :data:`PAGE_CHARS`
  characters, any tool answer at most :data:`MAX_OUTPUT_CHARS`; every cut says so and
  says how to continue.  ``grep`` patterns are length-limited and run under a time limit
  (the ``regex`` module's timeout), so a pathological pattern cannot stall a run.
- **Deterministic answers.**  The same input at the same revision gives the same text,
  which is what lets a resumed run replay its journal (see :mod:`graph.journal`).

Repository text in an answer is framed with
:func:`graph.proposers.agent.prompts.data_block`, like every other piece of
repository data the model sees.
"""

from __future__ import annotations

import copy
import fnmatch
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import regex
from pydantic import BaseModel, Field, ValidationError

from drafter.errors import RepoError
from drafter.model import LineRange, Witness
from drafter.snapshot import safe_relpath
from graph.context_window import PageLimits
from graph.jsontypes import JsonDict
from graph.proposers.agent.prompts import data_block, framed_size
from graph.proposers.agent.schema import inline_schema, model_witness
from graph.proposers.offline.rank import path_class
from graph.resources import Resources

PAGE_LINES = 400
PAGE_CHARS = 24_000
MAX_OUTPUT_CHARS = 24_000
#: Characters a read_file answer spends besides its rows: header, frame and cut notice.
PAGE_OVERHEAD = 600
MAX_LINE_CHARS = 2_000
MAX_PATTERN_CHARS = 200
GREP_SECONDS = 2.0
GREP_MAX_BYTES = 1_000_000
LIST_LIMIT = 400


def _hint(start: int | None, end: int | None) -> LineRange | None:
    if start is None:
        return None
    return LineRange(start=start, end=max(start, end or 0))


class ToolError(Exception):
    """A refused or failed tool call; the text goes back as an error ``tool_result``."""


# -- input schemas (what the model reads) ---------------------------------------------


class ListFilesInput(BaseModel):
    glob: str = Field(
        default="*",
        max_length=300,
        description='fnmatch pattern over repository paths, e.g. "src/*", "*.ts" or "*.py".',
    )


class ReadFileInput(BaseModel):
    path: str = Field(max_length=500, description="Repository-relative path.")
    start_line: int = Field(default=1, ge=1, description="First line to show (1-based).")
    end_line: int | None = Field(
        default=None, ge=1, description=f"Last line to show; a page holds {PAGE_LINES} at most."
    )


class GrepInput(BaseModel):
    pattern: str = Field(
        max_length=MAX_PATTERN_CHARS,
        description="Regular expression (Python `re` syntax), matched per line of any file.",
    )
    path_glob: str = Field(
        default="*", max_length=300, description='fnmatch filter on paths, e.g. "src/*.ts".'
    )
    exclude_glob: str | None = Field(
        default=None,
        max_length=300,
        description='fnmatch pattern of paths not to search, e.g. "*.test.ts" or "tests/*".',
    )
    max_hits: int = Field(default=40, ge=1, le=200, description="Hits to return at most.")


class SearchInput(BaseModel):
    query: str = Field(max_length=500, description="What to look for, in words or identifiers.")
    k: int = Field(default=8, ge=1, le=20, description="Passages to return.")


class SurveyInput(BaseModel):
    category: str | None = Field(
        default=None, description="Survey category, e.g. entry_point, model_call, persistence."
    )
    path: str | None = Field(default=None, description="Only findings in this file.")


class SymbolInput(BaseModel):
    name: str = Field(
        max_length=200, description='Function or method name, e.g. "run_task" or "Agent.step".'
    )


class QuoteInput(BaseModel):
    quote: str = Field(max_length=4000, description="The verbatim excerpt to check.")
    path: str = Field(max_length=500, description="Repository-relative path it is copied from.")
    start_line: int | None = Field(default=None, ge=1)
    end_line: int | None = Field(default=None, ge=1)


class CheckQuotesInput(BaseModel):
    witnesses: list[QuoteInput] = Field(max_length=20, description="Quotes to check, at most 20.")


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    model: type[BaseModel]

    def definition(self) -> JsonDict:
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": inline_schema(self.model),
        }


SPECS: tuple[ToolSpec, ...] = (
    ToolSpec("list_files", "List repository paths matching a glob.", ListFilesInput),
    ToolSpec(
        "read_file",
        "Read numbered lines of a file at the pinned revision; long files come in pages.",
        ReadFileInput,
    ),
    ToolSpec(
        "grep",
        "Regular-expression search over the revision's text files; the system's own code is"
        " searched first, tests, snapshots and examples after it.",
        GrepInput,
    ),
    ToolSpec("search", "Hybrid (lexical + embedding) search over indexed code.", SearchInput),
    ToolSpec("survey", "Static survey findings, by category and/or file.", SurveyInput),
    ToolSpec("symbol", "Definitions, callers and callees of a function (call graph).", SymbolInput),
    ToolSpec(
        "check_quotes",
        "Verify quotes exactly as the report's verifier will; misses come with nearest passages.",
        CheckQuotesInput,
    ),
)
TOOL_NAMES = tuple(s.name for s in SPECS)


def tool_definitions(search: bool = True) -> list[JsonDict]:
    """The investigation tools' definitions; without an index (``--no-index``) ``search``
    is not offered at all, rather than offered and then refused."""
    return [s.definition() for s in SPECS if search or s.name != "search"]


# -- helpers ------------------------------------------------------------------------


def bound(text: str, limit: int = MAX_OUTPUT_CHARS) -> str:
    """Cut an answer to ``limit`` characters at a line end, saying that it was cut."""
    if len(text) <= limit:
        return text
    cut = text.rfind("\n", 0, limit - 200)
    cut = cut if cut > 0 else limit - 200
    return text[:cut] + f"\n[output cut at {cut} of {len(text)} characters; narrow the request]"


def clean_path(path: str) -> str:
    clean = safe_relpath(path.strip())
    if clean is None:
        raise ToolError(
            f"refused: {path!r} is absolute or contains '..'; only repository-relative "
            "paths of the pinned revision can be read"
        )
    return clean


def clean_glob(glob: str) -> str:
    g = glob.strip() or "*"
    if g.startswith(("/", "\\")) or ".." in g.split("/"):
        raise ToolError(f"refused: glob {glob!r} must be repository-relative, without '..'")
    return g


def glob_match(path: str, glob: str) -> bool:
    return fnmatch.fnmatchcase(path, glob) or fnmatch.fnmatchcase(path, glob.rstrip("/") + "/*")


def _clip_line(line: str) -> str:
    if len(line) <= MAX_LINE_CHARS:
        return line
    return line[:MAX_LINE_CHARS] + f" [line cut: {len(line)} characters]"


#: Skipped files a grep answer names one by one; the rest are counted.
SKIPPED_NAMED = 10
#: Suffixes of files a large size does not make unreadable as text.
_TEXT_SUFFIXES = frozenset(
    ".py .ts .tsx .js .jsx .mjs .cjs .go .rs .java .c .h .cc .cpp .rb .sh .md .rst .txt "
    ".json .jsonl .yaml .yml .toml .csv .tsv .xml .html .css .sql .log".split()
)


def _too_big(path: str) -> str:
    """Why a large file was not searched, and, only for a text file, how to read it
    (a binary is never suggested for ``read_file``)."""
    name = path.rsplit("/", 1)[-1].lower()
    suffix = "." + name.rsplit(".", 1)[1] if "." in name.lstrip(".") else ""
    if suffix in _TEXT_SUFFIXES:
        return f"larger than {GREP_MAX_BYTES:,} bytes; read it with read_file"
    return f"larger than {GREP_MAX_BYTES:,} bytes and likely binary; not readable as text"


def _skipped_note(skipped: list[tuple[str, str]]) -> str:
    """Each file grep did not search, with why (paths are repository data: framed)."""
    if not skipped:
        return ""
    rows = [f"{p}: {why}" for p, why in sorted(skipped)[:SKIPPED_NAMED]]
    more = len(skipped) - len(rows)
    body = "\n".join(rows) + (f"\n(and {more} more)" if more else "")
    return f"{len(skipped)} file(s) not searched:\n" + data_block("grep_skipped", body)


class SnapshotTools:
    """Runs the investigation tools against one run's :class:`Resources`."""

    def __init__(
        self,
        resources: Resources,
        *,
        grep_seconds: float = GREP_SECONDS,
        limits: PageLimits | None = None,
    ):
        self.res = resources
        self.grep_seconds = grep_seconds
        # a smaller context window reads smaller pages (graph.context_window.PageLimits)
        self.page_lines: int = limits.lines if limits else PAGE_LINES
        self.page_chars: int = limits.chars if limits else PAGE_CHARS
        self.output_chars: int = limits.output_chars if limits else MAX_OUTPUT_CHARS
        self._handlers: dict[str, Callable[[Any], str]] = {
            "list_files": self.list_files,
            "read_file": self.read_file,
            "grep": self.grep,
            "search": self.search,
            "survey": self.survey,
            "symbol": self.symbol,
            "check_quotes": self.check_quotes,
        }

    def capped(self, chars: int | None) -> SnapshotTools:
        """These tools with answers (and pages) of at most ``chars`` characters: what a
        request's remaining room allows (:meth:`graph.proposers.agent.loop.ToolLoop.room`).
        A copy, so concurrent conversations over the same tools keep their own caps."""
        if chars is None or chars >= self.output_chars:
            return self
        out = copy.copy(self)
        out.output_chars = chars
        out.page_chars = min(self.page_chars, max(200, chars - PAGE_OVERHEAD))
        out._handlers = {name: getattr(out, name) for name in self._handlers}
        return out

    @property
    def sha(self) -> str:
        return str(self.res.snapshot().sha)

    def refusal(self, name: str, raw: Any) -> str | None:
        """Why the schema refuses this call (an unknown tool, input that does not
        validate), or None.  A refused call is answered but costs no budget."""
        spec = next((s for s in SPECS if s.name == name), None)
        if spec is None:
            return f"unknown tool {name!r}; tools are: {', '.join(TOOL_NAMES)}"
        try:
            spec.model.model_validate(raw if isinstance(raw, dict) else {})
        except ValidationError as exc:
            errs = "; ".join(
                f"{'.'.join(str(x) for x in e['loc']) or '(root)'}: {e['msg']}"
                for e in exc.errors()[:5]
            )
            return f"invalid input for {name}: {errs}"
        return None

    def run(self, name: str, raw: Any) -> tuple[str, bool]:
        """(answer, is_error) for one call; never raises for bad model input."""
        refused = self.refusal(name, raw)
        if refused is not None:
            return refused, True
        spec = next(s for s in SPECS if s.name == name)
        args = spec.model.model_validate(raw if isinstance(raw, dict) else {})
        try:
            return bound(self._handlers[name](args), self.output_chars), False
        except ToolError as exc:
            return str(exc), True
        except RepoError as exc:
            return f"{name} failed: {str(exc).splitlines()[0][:300]}", True

    # -- tools ----------------------------------------------------------------------

    def _text(self, path: str) -> tuple[str, list[str]]:
        clean = clean_path(path)
        snap = self.res.snapshot()
        entry = snap.entry(clean)
        if entry is None:
            where = "a directory" if snap.is_dir(clean) else "not a file"
            raise ToolError(
                f"{clean} is {where} at {self.sha[:12]}; use list_files to see what exists"
            )
        if not entry.is_regular:
            raise ToolError(f"{clean} is a {entry.kind} at {self.sha[:12]}; links are not followed")
        tf = snap.read_text(clean)
        if tf.binary:
            raise ToolError(f"{clean} is a binary file")
        return clean, tf.text.splitlines()

    def lines_or_reason(self, path: str) -> list[str] | str:
        """The file's lines at the revision, or why it has none (for request builders)."""
        try:
            _, lines = self._text(path)
        except ToolError as exc:
            return str(exc)
        except RepoError as exc:
            return str(exc).splitlines()[0][:300]
        return lines or "empty file"

    def text_or_none(self, path: str) -> str | None:
        got = self.lines_or_reason(path)
        return "\n".join(got) if isinstance(got, list) else None

    def list_files(self, args: ListFilesInput) -> str:
        glob = clean_glob(args.glob)
        snap = self.res.snapshot()
        hits = [e for e in snap.entries() if e.is_regular and glob_match(e.path, glob)]
        rows = [f"{e.path}  ({e.size} bytes)" for e in hits[:LIST_LIMIT]]
        more = (
            f"\n[{len(hits) - LIST_LIMIT} more paths not shown; narrow the glob]"
            if len(hits) > LIST_LIMIT
            else ""
        )
        head = f"{len(hits)} file(s) matching {glob!r} @ {self.sha[:12]}"
        return head + "\n" + "\n".join(rows) + more

    def _page_rows(self, args: ReadFileInput) -> tuple[str, int, int, int, list[str]]:
        """(path, start, end, total lines, numbered rows) of the page ``args`` asks for."""
        path, lines = self._text(args.path)
        n = len(lines)
        if n == 0:
            return path, 1, 0, 0, []
        if args.start_line > n:
            raise ToolError(f"{path} has {n} lines; start_line {args.start_line} is past the end")
        start = args.start_line
        want = min(n, args.end_line or n, start + self.page_lines - 1)
        # the page, framed, with its header and cut notice must fit the tool's answer
        # limit: otherwise the answer is cut again mid-page and its header ("lines
        # 1–307") and its last line (302) disagree
        room = min(self.page_chars, self.output_chars - PAGE_OVERHEAD - 3 * len(path))
        out: list[str] = []
        size = 0
        end = start - 1
        for i in range(start, want + 1):
            row = f"{i:>5}  {_clip_line(lines[i - 1])}"
            grown = framed_size(row) + 1
            if out and size + grown > room:
                break
            out.append(row)
            size += grown
            end = i
        return path, start, end, n, out

    def page_span(self, raw: Any) -> tuple[str, int, int] | None:
        """(path, first, last line) a ``read_file`` call with input ``raw`` shows, or None
        when it shows nothing (bad input, refused path, empty file)."""
        try:
            path, start, end, _, _ = self._page_rows(ReadFileInput.model_validate(raw))
        except (ValidationError, ToolError, RepoError):
            return None
        return (path, start, end) if end >= start else None

    def read_file(self, args: ReadFileInput) -> str:
        path, start, end, n, out = self._page_rows(args)
        if n == 0:
            return f"{path} @ {self.sha[:12]} · empty file"
        header = f"{path} @ {self.sha[:12]} · lines {start}–{end} of {n}"
        body = data_block("file_lines", "\n".join(out), path=path, lines=f"{start}-{end}")
        asked_end = min(n, args.end_line or n)
        if end < asked_end:
            body += (
                f"\n[cut at line {end} of {n} (a page is at most {self.page_lines} lines / "
                f'{self.page_chars} characters); continue with read_file(path="{path}", '
                f"start_line={end + 1})]"
            )
        return f"{header}\n{body}"

    def grep(self, args: GrepInput) -> str:
        glob = clean_glob(args.path_glob)
        try:
            rx = regex.compile(args.pattern, regex.MULTILINE)
        except (regex.error, OverflowError) as exc:
            raise ToolError(f"bad pattern: {exc}") from exc
        snap = self.res.snapshot()
        exclude = clean_glob(args.exclude_glob) if args.exclude_glob else None
        matched = [
            e
            for e in snap.entries()
            if e.is_regular
            and glob_match(e.path, glob)
            and (exclude is None or not glob_match(e.path, exclude))
        ]
        # the system's own code first, then scripts, then tests, snapshots and examples:
        # a query's hits are not crowded out by the tests next to the sources
        matched.sort(key=lambda e: (path_class(e.path), e.path))
        #: (path, why) of each file not searched, named in the answer
        skipped = [(e.path, _too_big(e.path)) for e in matched if e.size > GREP_MAX_BYTES]
        paths = [e.path for e in matched if e.size <= GREP_MAX_BYTES]
        snap.prefetch(paths)  # one exchange with git, then every read is a cache hit
        # the time limit bounds the pattern's work, so it starts once the files are in
        # hand: on a loaded machine the prefetch alone could use it all up
        deadline = time.monotonic() + self.grep_seconds
        hits: list[str] = []
        stopped, binary, searched = "", 0, len(paths)
        for n, path in enumerate(paths):
            try:
                tf = snap.read_text(path)
            except RepoError as exc:  # e.g. a blob absent from a partial clone
                skipped.append((path, "could not be read: " + str(exc).splitlines()[0][:120]))
                continue
            if tf.binary:
                binary += 1
                continue
            try:
                self._grep_file(rx, path, tf.text, deadline, hits, args.max_hits)
            except TimeoutError:
                searched = n
                stopped = (
                    f"[grep stopped after {self.grep_seconds:g} s with {n} of {len(paths)} "
                    "files searched; narrow path_glob or simplify the pattern]"
                )
                break
            if len(hits) >= args.max_hits:
                stopped = f"[stopped at max_hits={args.max_hits}; more hits may exist]"
                break
        head = f"grep {args.pattern!r} in {glob!r} @ {self.sha[:12]}: {len(hits)} hit(s)"
        if searched < len(paths):  # a count over part of the files is not a negative
            head += f" in the first {searched} of {len(paths)} files (stopped early)"
        if binary:
            head += f" ({binary} binary file(s) not searched)"
        body = data_block("grep_hits", "\n".join(hits) or "(no hits)")
        return "\n".join(x for x in (head, body, _skipped_note(skipped), stopped) if x)

    @staticmethod
    def _grep_file(
        rx: Any, path: str, text: str, deadline: float, hits: list[str], max_hits: int
    ) -> None:
        """Append ``path:line: text`` per matching line (grep's per-line semantics: a
        pattern never spans lines); TimeoutError past the deadline."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError
        if rx.search(text, timeout=remaining) is None:  # most files: one whole-text pass
            return
        for line_no, line in enumerate(text.splitlines(), 1):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            if rx.search(line, timeout=remaining) is not None:
                hits.append(f"{path}:{line_no}: {line.strip()[:300]}")
                if len(hits) >= max_hits:
                    return

    def search(self, args: SearchInput) -> str:
        if self.res.index() is None:
            raise ToolError(
                "no search index in this run (--no-index): search is not offered; use grep"
            )
        hits, note = self.res.search_answer(args.query, k=args.k)
        parts = [f"search {args.query!r}: {len(hits)} passage(s)" + (f"; {note}" if note else "")]
        for h in hits:
            text = "\n".join((h.get("text") or "").splitlines()[:40])
            parts.append(
                data_block(
                    "search_hit",
                    text,
                    path=str(h.get("path")),
                    lines=f"{h.get('start')}-{h.get('end')}",
                    symbol=str(h.get("symbol") or ""),
                )
            )
        return "\n\n".join(parts)

    def survey(self, args: SurveyInput) -> str:
        from graph.proposers.agent.prompts import finding_line

        sv = self.res.survey()
        path = clean_path(args.path) if args.path else None
        ix = sv.index()
        if args.category is not None:
            pool = ix.category(args.category)
        elif path is not None:
            pool = ix.by_path.get(path, [])
        else:
            pool = sv.findings
        found = [f for f in pool if path is None or f.path == path]
        rows = [finding_line(f) for f in found[:150]]
        more = f"\n[{len(found) - 150} more findings; narrow by path]" if len(found) > 150 else ""
        head = f"{len(found)} survey finding(s) (category={args.category}, path={path})"
        return head + "\n" + data_block("survey_findings", "\n".join(rows) or "(none)") + more

    def symbol(self, args: SymbolInput) -> str:
        sv = self.res.survey()
        graph, callers = sv.call_graph, sv.index().callers
        name = args.name.strip()
        nodes = [
            f
            for f in graph.functions.values()
            if f.symbol == name or f.symbol.endswith("." + name) or f.id == name
        ][:8]
        if not nodes:
            raise ToolError(f"no function named {name!r} in the call graph; try grep")
        parts = [f"{len(nodes)} definition(s) of {name!r} ({graph.note})"]
        for f in nodes:
            who = sorted(callers.get(f.id, ()))
            calls = graph.callees(f.id)
            parts.append(
                f"- {f.id}  defined at {f.path}:{f.start_line}-{f.end_line}\n"
                f"  callers ({len(who)}): {', '.join(who[:25]) or '(none found)'}\n"
                f"  callees ({len(calls)}): {', '.join(calls[:25]) or '(none found)'}"
            )
        return "\n".join(parts)

    def check_quotes(self, args: CheckQuotesInput) -> str:
        witnesses = [
            model_witness(q.quote, q.path, _hint(q.start_line, q.end_line)) for q in args.witnesses
        ]
        ok, rows = self.verdicts(witnesses)
        return f"{ok} of {len(rows)} verified" + "\n" + "\n".join(rows)

    def verdicts(
        self, witnesses: list[Witness], misses_only: bool = False
    ) -> tuple[int, list[str]]:
        """(how many verify, one row per witness): the verifier's own verdict, and for a
        miss the nearest real passages (or, for an ambiguous quote, its occurrences).
        ``misses_only``: rows only for the witnesses that do not verify, numbered by
        their place among all of them.  Nothing here marks a witness verified: the
        workflow's verifier does that on the record it keeps."""
        rows = []
        ok = 0
        for i, w in enumerate(witnesses, 1):
            v = self.res.verify(w)
            ok += v.ok
            if v.ok and misses_only:
                continue
            where = f" at lines {v.lines.start}-{v.lines.end}" if v.lines else ""
            kind = f" ({v.match_kind})" if v.match_kind else ""
            row = f"{i}. {v.status}{kind}{where} in {w.path}"
            if v.message:
                row += f": {v.message}"
            if v.status == "ambiguous":
                row += self._occurrences(w.path, w.quote, [p.lines.start for p in v.nearest])
            elif not v.ok:
                for p in v.nearest[:2]:
                    text = "\n".join(p.text.splitlines()[:12])
                    row += "\n   nearest passage:\n" + data_block(
                        "passage", text, path=p.path, lines=f"{p.lines.start}-{p.lines.end}"
                    )
            rows.append(row)
        return ok, rows

    def _occurrences(self, path: str, quote: str, starts: list[int]) -> str:
        """Which occurrence of an ambiguous quote is which: each one's line, and whether
        the quote stands on its own there or is the tail of a longer name
        (``random.seed(`` inside ``np.random.seed(``), with the line hint that picks it."""
        got = self.lines_or_reason(path)
        first = quote.strip().splitlines()[0].strip() if quote.strip() else ""
        if not isinstance(got, list) or not first:
            return ""
        rows: list[str] = []
        whole: list[int] = []
        for n in starts:
            if not 1 <= n <= len(got):
                continue
            line = got[n - 1]
            at = " ".join(line.split()).find(" ".join(first.split()))
            collapsed = " ".join(line.split())
            inside = at > 0 and (collapsed[at - 1].isalnum() or collapsed[at - 1] in "._$")
            rows.append(
                f"line {n}: {collapsed[:160]}"
                + (" (the quote is the tail of a longer name here)" if inside else "")
            )
            if not inside:
                whole.append(n)
        if not rows:
            return ""
        tip = (
            f"\n   only line {whole[0]} holds the quote on its own: add start_line={whole[0]}"
            if len(whole) == 1 and len(rows) > 1
            else "\n   add start_line/end_line for the occurrence you mean"
        )
        return "\n   occurrences:\n" + data_block("occurrences", "\n".join(rows), path=path) + tip
