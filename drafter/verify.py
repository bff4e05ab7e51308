"""The witness verifier: is this quote really in this file at the pinned revision?

Why it is built this way: the guarantee drafter gives an analyst is that a witness
shown as verified exists at the revision.  So a quote is accepted only as an exact
substring of the file under the report format's normalisations (drafter.normalize),
tried least first; the kind of the first that matches is reported.  Misses get the
nearest real passages of the file — offered to a drafter for repair, never accepted.

Decisions worth knowing:

* Levels are tried in order exact → whitespace → markup.  A ``•`` in a quote stands
  for a source list marker (``-``, ``*``, ``+`` opening a line); that is layout, like
  line breaks, so it belongs to the whitespace level.  Inline Markdown (emphasis,
  strong, links) is dropped only in Markdown-like files; code-span backticks in all.
* Occurrences are counted at the first level that finds the quote.  A line range is
  an optional hint that only chooses between occurrences: a quote found once verifies
  at its true lines whatever the range says (the message says "lines corrected").
  Several occurrences and no range → ``ambiguous``; a range picks the occurrences
  whose span overlaps it; a range that picks none of several → ``not_found``, naming
  where the quote is.
* A path that is absolute or contains ``..`` is ``path_missing`` before any lookup.

Files are read once through the snapshot (under a lock, so a LangGraph fan-out can
share one verifier) and their normal forms are built lazily and cached per path.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from drafter.errors import RepoError
from drafter.model import (
    LineRange,
    MatchKind,
    Passage,
    Report,
    Verification,
    VerifyStatus,
    Witness,
)
from drafter.normalize import (
    BULLET,
    LEVELS,
    Mapped,
    file_form,
    has_markup,
    is_markdown_path,
    quote_form,
)
from drafter.snapshot import Snapshot, safe_relpath
from drafter.text import collapse

_KIND = {"exact": MatchKind.exact, "whitespace": MatchKind.whitespace, "markup": MatchKind.markup}
#: An occurrence count above this is reported as "at least"; finding more helps nobody.
MAX_OCCURRENCES = 1000
NEAREST = 3
MAX_OTHER_FILES = 10
#: Files up to this size find a line number by counting newlines instead of a table.
SMALL_FILE = 65536
_WORD = re.compile(r"\w+")
#: Nearest-passage voting: words this rare in the file vote; commoner ones are skipped.
RARE = 24
#: Quotes up to this length are aligned with their nearest passages by character.
SHORT_QUOTE = 100
_TOKEN = re.compile(r"\w+|[^\w\s]")
#: Markup rules match within a paragraph, and an unclosed ``_``/``*``/backtick makes
#: them scan to its end: on a paragraph longer than this (a one-line data file) the
#: markup level is not tried, which keeps a verdict on a huge line under a second.
MAX_MARKUP_PARAGRAPH = 20_000
#: A passage offered as a repair hint shows at most this much of its lines.
MAX_PASSAGE_CHARS = 2_000
#: The nearest-passage search reads at most this much of a quote: a hint is a place to
#: look, and the quote's opening finds it as well as a megabyte of it would.
MAX_HINT_QUOTE = 2_000
#: Characters of file text the nearest-passage search may scan in all (each voting
#: piece scans the file once): fewer pieces vote in a larger file, so a miss in a
#: multi-megabyte file stays a fraction of a second.
HINT_SCAN_BUDGET = 40_000_000
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


def _tokens(text: str) -> list[tuple[str, int]]:
    """Words and single punctuation marks with their offsets, for passage alignment."""
    return [(m.group(), m.start()) for m in _TOKEN.finditer(text)]


def _votes(hay: str, pieces: list[tuple[str, int]]) -> dict[int, float]:
    """Where the quote would start in ``hay`` if each piece (at its offset in the
    quote) were in place, weighted so that rare pieces count most.  Pieces seen more
    than RARE times are left out unless nothing rarer exists (then the three rarest)."""
    cands = sorted((c, pos, piece) for piece, pos in pieces if (c := hay.count(piece)))
    used = [x for x in cands if x[0] <= RARE] or cands[:3]
    votes: dict[int, float] = {}
    get = votes.get
    for c, pos, piece in used:
        weight = 1.0 + 1.0 / c
        i = hay.find(piece)
        while i != -1:
            key = max(0, i - pos)
            votes[key] = get(key, 0.0) + weight
            i = hay.find(piece, i + 1)
    return votes


def _align(q: str, window: str) -> tuple[float, int, int] | None:
    """Similarity of ``q`` to ``window`` and the part of the window that lines up.

    Short quotes are compared character by character (a one-letter slip should score
    high); long ones token by token, which keeps a miss cheap.  Trimming the window to
    its aligned part stops a passage spilling into a neighbouring line.
    """
    if len(q) <= SHORT_QUOTE:
        sm = SequenceMatcher(None, q, window, autojunk=False)
        blocks = [b for b in sm.get_matching_blocks() if b.size]
        if not blocks:
            return None
        return sm.ratio(), blocks[0].b, blocks[-1].b + blocks[-1].size
    q_tokens, w_tokens = _tokens(q), _tokens(window)
    sm = SequenceMatcher(None, [t for t, _ in q_tokens], [t for t, _ in w_tokens], autojunk=False)
    blocks = [b for b in sm.get_matching_blocks() if b.size]
    if not blocks:
        return None
    first, last = blocks[0].b, blocks[-1].b + blocks[-1].size - 1
    return sm.ratio(), w_tokens[first][1], w_tokens[last][1] + len(w_tokens[last][0])


@dataclass(slots=True)
class _Occurrence:
    start: int  # original offsets
    end: int
    lines: LineRange


class FileText:
    """One file's text with its line table and normal forms (built lazily, cached)."""

    def __init__(self, path: str, text: str, lossy: bool):
        self.path = path
        self.text = text
        self.lossy = lossy
        self.markdown = is_markdown_path(path)
        self._forms: dict[tuple[str, bool], Mapped] = {}
        self._line_starts: list[int] | None = None
        self._long_paragraph: bool | None = None
        self._lock = threading.Lock()

    @property
    def long_paragraph(self) -> bool:
        """Whether a paragraph is longer than :data:`MAX_MARKUP_PARAGRAPH` (linear scan)."""
        if self._long_paragraph is None:
            self._long_paragraph = (
                len(self.text) > MAX_MARKUP_PARAGRAPH and not self._paragraphs_short()
            )
        return self._long_paragraph

    def _paragraphs_short(self) -> bool:
        return paragraphs_short(self.text)

    def form(self, level: str, bullets: bool) -> Mapped:
        key = (level, bullets)
        m = self._forms.get(key)
        if m is None:
            if level == "markup" and (
                self.long_paragraph or not has_markup(self.text, self.markdown)
            ):
                m = self.form("whitespace", bullets)  # same text: share it
            with self._lock:
                m = m or self._forms.get(key)
                if m is None:
                    m = file_form(self.text, level, bullets=bullets, markdown=self.markdown)
                self._forms[key] = m
        return m

    @property
    def line_starts(self) -> list[int]:
        if self._line_starts is None:
            starts = [0]
            find = self.text.find
            i = find("\n")
            while i != -1:
                starts.append(i + 1)
                i = find("\n", i + 1)
            self._line_starts = starts
        return self._line_starts

    def line_of(self, offset: int) -> int:
        """1-based line of an original offset."""
        if len(self.text) <= SMALL_FILE:
            return self.text.count("\n", 0, offset) + 1  # memchr beats building a table
        return bisect_right(self.line_starts, offset)

    def lines(self, start: int, end: int) -> LineRange:
        """1-based line span of the original ``[start, end)``."""
        return LineRange(start=self.line_of(start), end=self.line_of(max(start, end - 1)))

    def passage_text(self, lines: LineRange) -> str:
        ls = self.line_starts
        a = ls[lines.start - 1]
        b = ls[lines.end] - 1 if lines.end < len(ls) else len(self.text)
        return self.text[a:b]


def paragraphs_short(text: str) -> bool:
    """Whether every paragraph of ``text`` is at most :data:`MAX_MARKUP_PARAGRAPH` long
    (the markup rules' bound, for a file and for a quote alike)."""
    prev = 0
    for m in _PARAGRAPH_BREAK.finditer(text):
        if m.start() - prev > MAX_MARKUP_PARAGRAPH:
            return False
        prev = m.end()
    return len(text) - prev <= MAX_MARKUP_PARAGRAPH


class QuoteForms:
    """One quote's normal forms, made once however many files it is looked for in.

    The markup form is not made for a quote with a paragraph over
    :data:`MAX_MARKUP_PARAGRAPH` (the rule files follow): the markup rules can scan a
    paragraph once per unclosed delimiter, which on a megabyte quote takes minutes."""

    def __init__(self, quote: str):
        self.quote = quote
        self._forms: dict[tuple[str, bool], str | None] = {}

    def form(self, level: str, markdown: bool) -> str | None:
        key = (level, markdown)
        if key not in self._forms:
            q = self.quote
            skip = level == "markup" and len(q) > MAX_MARKUP_PARAGRAPH and not paragraphs_short(q)
            self._forms[key] = None if skip else quote_form(q, level, markdown=markdown)
        return self._forms[key]


def _find_all(hay: str, needle: str) -> list[int]:
    out: list[int] = []
    i = hay.find(needle)
    while i != -1 and len(out) < MAX_OCCURRENCES:
        out.append(i)
        i = hay.find(needle, i + 1)
    return out


class Verifier:
    """Checks witnesses against one snapshot; safe to share between threads."""

    def __init__(self, snapshot: Snapshot, *, nearest: int = NEAREST, elsewhere: bool = True):
        self.snapshot = snapshot
        self.nearest_k = nearest
        #: look for a quote whose path is missing in every other file (reads the whole
        #: revision once); off where a miss is expected, as in a review opened at a
        #: repository that is not the draft's
        self.search_elsewhere = elsewhere
        self._files: dict[str, FileText | str] = {}  # path -> text, or why it has none
        self._clean: dict[str, str | None] = {}  # path as written -> safe_relpath(path)
        self._lock = threading.Lock()

    # -- reading ----------------------------------------------------------------

    def _file(self, clean: str) -> FileText | str:
        """The file's text, or a message saying why it has none (cached either way)."""
        got = self._files.get(clean)
        if got is not None:
            return got
        with self._lock:
            got = self._files.get(clean)
            if got is not None:
                return got
            entry = self.snapshot.entry(clean)
            if entry is None and self.snapshot.is_dir(clean):
                got = f"{clean} is a directory at {self.snapshot.sha[:12]}, not a file"
            elif entry is None:
                got = f"{clean} does not exist at {self.snapshot.sha[:12]}"
            elif entry.kind == "submodule":
                got = f"{clean} is a submodule at {self.snapshot.sha[:12]}, not a file"
            elif entry.kind == "symlink":
                got = f"{clean} is a symlink at {self.snapshot.sha[:12]}; links are not followed"
            else:
                try:
                    tf = self.snapshot.read_text(clean)
                except RepoError as exc:
                    got = str(exc)
                else:
                    got = "binary" if tf.binary else FileText(clean, tf.text, tf.lossy)
            self._files[clean] = got
            return got

    # -- public -----------------------------------------------------------------

    def prefetch(self, paths: Iterable[str]) -> None:
        """Read the files of many witnesses in one exchange with git (a cold-start
        speed-up only: results are the same without it)."""
        wanted = [c for p in paths if (c := safe_relpath(p)) is not None and c not in self._files]
        if wanted:
            with self._lock:
                self.snapshot.prefetch(wanted)

    def verify_many(self, witnesses: list[Witness]) -> list[Verification]:
        """Verdicts for many witnesses, in order, reading their files up front."""
        self.prefetch(w.path for w in witnesses)
        return [self.verify(w) for w in witnesses]

    def verify(self, witness: Witness) -> Verification:
        """The verdict on one witness (the witness itself is not modified)."""
        return self.check(witness.quote, witness.path, witness.lines)

    def check(self, quote: str, path: str, lines: LineRange | None = None) -> Verification:
        rev = self.snapshot.sha
        clean = self._clean.get(path, "")
        if clean == "":
            clean = self._clean.setdefault(path, safe_relpath(path))
        if clean is None:
            return Verification(
                status=VerifyStatus.path_missing,
                revision=rev,
                message=f"path {path!r} is absolute or leaves the repository; not looked up",
            )
        got = self._file(clean)
        if isinstance(got, str):
            if got == "binary":
                return Verification(
                    status=VerifyStatus.not_found, revision=rev, message=f"{clean} is a binary file"
                )
            return Verification(
                status=VerifyStatus.path_missing,
                revision=rev,
                nearest=self.elsewhere(quote, exclude=clean) if self.search_elsewhere else [],
                message=got,
            )
        return self._check_in(got, QuoteForms(quote), lines, rev)

    def _check_in(
        self, ft: FileText, forms: QuoteForms, lines: LineRange | None, rev: str, hints: bool = True
    ) -> Verification:
        quote = forms.quote
        if "\ufffd" in quote:
            return Verification(
                status=VerifyStatus.not_found,
                revision=rev,
                message="quote contains U+FFFD, which no decoded file text can vouch for",
            )
        bullets = BULLET in quote
        outside: list[_Occurrence] = []
        searched: tuple[int, str] | None = None
        for level in LEVELS:
            needle = forms.form(level, ft.markdown)
            # a needle longer than the text it is looked for in cannot be in it (no normal
            # form of a file is longer than the file)
            if not needle or len(needle) > len(ft.text):
                continue
            if level == "exact":
                hay_map: Mapped | None = None
                hits = _find_all(ft.text, needle)
            else:
                hay_map = ft.form(level, bullets)
                if searched == (id(hay_map), needle):
                    continue  # markup rules changed neither side: nothing new to find
                searched = (id(hay_map), needle)
                hits = _find_all(hay_map.text, needle)
            if not hits:
                continue
            occs = []
            for h in hits:
                if hay_map is None:
                    a, b = h, h + len(needle)
                else:
                    a, b = hay_map.span(h, h + len(needle))
                occs.append(_Occurrence(a, b, ft.lines(a, b)))
            decided = self._pick(ft, occs, lines, level, rev)
            if decided is not None:
                return decided
            if not outside:
                outside = occs
        if outside:
            where = ", ".join(str(o.lines) for o in outside[:10])
            return Verification(
                status=VerifyStatus.not_found,
                occurrences=0,
                revision=rev,
                nearest=[
                    self._passage(ft, o.lines, 1.0, o.start) for o in outside[: self.nearest_k]
                ],
                message=f"quote occurs in {ft.path} at lines {where}, not within {lines}",
            )
        return self._not_found(ft, forms, rev, hints)

    def _pick(
        self,
        ft: FileText,
        occs: list[_Occurrence],
        lines: LineRange | None,
        level: str,
        rev: str,
    ) -> Verification | None:
        """Verified (one occurrence in the hinted lines, or the only one anywhere) or
        ambiguous (several); None when none is within the hint."""
        picked = occs if lines is None else [o for o in occs if o.lines.overlaps(lines)]
        corrected = ""
        if not picked and len(occs) == 1:
            # the only occurrence: a wrong optional hint does not make a true quote false
            picked = occs
            corrected = f"lines corrected: the quote is at {occs[0].lines}, not {lines}"
        if len(picked) == 1:
            return Verification(
                status=VerifyStatus.verified,
                match_kind=_KIND[level],
                lines=picked[0].lines,
                occurrences=len(occs),
                revision=rev,
                message="; ".join(x for x in (corrected, _lossy_note(ft)) if x),
            )
        if len(picked) > 1:
            where = ", ".join(str(o.lines) for o in picked[:10])
            return Verification(
                status=VerifyStatus.ambiguous,
                match_kind=_KIND[level],
                occurrences=len(occs),
                revision=rev,
                nearest=[self._passage(ft, o.lines, 1.0, o.start) for o in picked[:10]],
                message=f"quote occurs {len(picked)} times in {ft.path} (lines {where}); "
                "give a line range that picks one",
            )
        return None

    def _not_found(self, ft: FileText, forms: QuoteForms, rev: str, hints: bool) -> Verification:
        quote = forms.quote
        spaced = forms.form("whitespace", ft.markdown) or ""
        longer = (
            f" (the quote, {len(spaced):,} characters with its spaces collapsed, is longer "
            f"than the file's {len(ft.text):,})"
            if len(spaced) > len(ft.text)
            else ""
        )
        return Verification(
            status=VerifyStatus.not_found,
            revision=rev,
            nearest=self.nearest_passages(ft, quote) if hints else [],
            message=f"quote not found in {ft.path}{longer}"
            + (f"; {_lossy_note(ft)}" if ft.lossy else "")
            + (
                f"; inline markup was not normalised (a paragraph over {MAX_MARKUP_PARAGRAPH} "
                "characters)"
                if ft.long_paragraph and has_markup(quote, ft.markdown)
                else ""
            ),
        )

    # -- repair hints -----------------------------------------------------------

    def _passage(
        self, ft: FileText, lines: LineRange, score: float, at: int | None = None
    ) -> Passage:
        """The passage at ``lines``; on a huge line, the part around offset ``at``."""
        text = ft.passage_text(lines)
        if len(text) > MAX_PASSAGE_CHARS:
            first = ft.line_starts[lines.start - 1]
            lo = max(0, (at if at is not None else first) - first - MAX_PASSAGE_CHARS // 4)
            text = text[lo : lo + MAX_PASSAGE_CHARS]
        return Passage(path=ft.path, lines=lines, text=text, score=round(score, 4))

    def nearest_passages(self, ft: FileText, quote: str, k: int | None = None) -> list[Passage]:
        """The ``k`` real passages of the file most like the quote.

        Each rare word of the quote votes for where the quote would start if that word
        were in place (found with ``str.find``, no per-file index); the best-voted
        distinct windows are then compared with the quote token by token.  A miss thus
        costs a few C-speed scans and ``k`` small sequence comparisons, however long
        the file.  These passages are repair hints only: nothing here is accepted.
        """
        k = self.nearest_k if k is None else k
        q = collapse(quote[: 4 * MAX_HINT_QUOTE])[:MAX_HINT_QUOTE]
        hay_map = ft.form("whitespace", False)
        hay = hay_map.text
        if not q or not hay:
            return []
        pieces = max(16, HINT_SCAN_BUDGET // len(hay))  # each piece scans the file once
        words = [(m.group(), m.start()) for m in _WORD.finditer(q)][:pieces]
        # a mistyped identifier ("generate_lop") is in no line, so on its own it cannot
        # vote; its character 4-grams can, and they are rare where the real name stands
        typos = [(w, p) for w, p in words if len(w) >= 5 and w not in hay]
        grams = [(w[i : i + 4], p + i) for w, p in typos for i in range(len(w) - 3)]
        votes = _votes(hay, (words + grams)[: 2 * pieces])
        if not votes:
            # no whole word of the quote is in the file (a one-word quote with a typo,
            # say): fall back to its character 4-grams
            grams = [(q[i : i + 4], i) for i in range(max(1, len(q) - 3))]
            votes = _votes(hay, grams[:pieces])
        if not votes:
            return []
        n = len(q)
        starts: list[int] = []
        for start in sorted(votes, key=lambda s: (-votes[s], s))[: 8 * k]:
            if all(abs(start - s) >= max(1, n // 2) for s in starts):
                starts.append(start)
                if len(starts) >= k:
                    break
        chosen: list[tuple[float, int, int]] = []
        for start in starts:
            aligned = _align(q, hay[start : start + n])
            if aligned is not None:
                score, lo, hi = aligned
                chosen.append((score, start + lo, start + hi))
        chosen.sort(key=lambda t: (-t[0], t[1]))
        out: list[Passage] = []
        seen: list[LineRange] = []
        for score, lo, hi in chosen:
            a, b = hay_map.span(lo, hi)
            lines = ft.lines(a, b)
            if any(lines.overlaps(s) for s in seen):
                continue
            seen.append(lines)
            out.append(self._passage(ft, lines, score, a))
        return out

    def elsewhere(self, quote: str, exclude: str | None = None) -> list[Passage]:
        """Other files of the revision where the quote occurs (first occurrence each)."""
        out: list[Passage] = []
        forms = QuoteForms(quote)
        paths = self.snapshot.files()
        self.prefetch(paths)
        for path in paths:
            if path == exclude:
                continue
            got = self._file(path)
            if isinstance(got, str):
                continue
            v = self._check_in(got, forms, None, self.snapshot.sha, hints=False)
            if v.status in (VerifyStatus.verified, VerifyStatus.ambiguous):
                lines = v.lines or v.nearest[0].lines
                out.append(self._passage(got, lines, 1.0))
                if len(out) >= MAX_OTHER_FILES:
                    break
        return out


def _lossy_note(ft: FileText) -> str:
    return f"{ft.path} is not valid UTF-8; decoded with replacement" if ft.lossy else ""


# -- reports ----------------------------------------------------------------------------


@dataclass
class VerifySummary:
    """Counts of a verification run, per status and per match kind."""

    total: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    by_match: dict[str, int] = field(default_factory=dict)

    @property
    def verified(self) -> int:
        return self.by_status.get(VerifyStatus.verified.value, 0)

    @property
    def ok(self) -> bool:
        """True when every witness verified (vacuously true for a report without any)."""
        return self.verified == self.total

    def to_dict(self) -> dict[str, object]:
        return {
            "total": self.total,
            "by_status": self.by_status,
            "by_match": self.by_match,
            "ok": self.ok,
        }


def summarize(verifications: Iterable[Verification | None]) -> VerifySummary:
    s = VerifySummary()
    for v in verifications:
        s.total += 1
        status = (v.status if v is not None else VerifyStatus.unchecked).value
        s.by_status[status] = s.by_status.get(status, 0) + 1
        if v is not None and v.status == VerifyStatus.verified and v.match_kind is not None:
            s.by_match[v.match_kind.value] = s.by_match.get(v.match_kind.value, 0) + 1
    return s


def settle_lines(witness: Witness, v: Verification) -> tuple[Witness, str | None]:
    """The witness carrying its verdict, and the true lines when its line hint was wrong.

    A hint only chooses between occurrences: a quote found once verifies wherever the
    hint pointed, and the witness then keeps the lines it really is at, with a note
    ``lines corrected: path hint → true`` for the analyst.  Records and the account
    (both runtime and epistemic) settle their witnesses' lines through this one rule.
    """
    w = witness.model_copy(update={"verification": v})
    hint = w.lines
    if v.ok and v.lines is not None and hint is not None and not v.lines.overlaps(hint):
        return w.model_copy(update={"lines": v.lines}), (
            f"lines corrected: {w.path} {hint} → {v.lines}"
        )
    return w, None


def verify_report(
    report: Report,
    snapshot: Snapshot,
    *,
    verifier: Verifier | None = None,
    in_place: bool = False,
) -> Report:
    """A copy of ``report`` (or ``report`` itself with ``in_place``) with every witness —
    in the account and in the records — carrying the verifier's verdict."""
    out = report if in_place else report.model_copy(deep=True)
    ver = verifier or Verifier(snapshot)
    witnesses = out.witnesses
    for w, v in zip(witnesses, ver.verify_many(witnesses), strict=True):
        w.verification = v
    return out


def report_summary(report: Report) -> VerifySummary:
    return summarize(w.verification for w in report.witnesses)
