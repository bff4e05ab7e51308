"""Parse the report text format (runtime and epistemic) into the report model.

The parser is a small state machine over lines: title, "Type:" line, account
sections, "Shared records" with its record sections, "Annotations".  It is strict
where a mistake would change meaning (a record without a label, a witness without a
path, an unknown section where records are expected, binary content) and raises
:class:`drafter.errors.ReportFormatError` with the line number; it is lenient where
text is merely unusual (unknown status values, duplicate IDs, an ID in the wrong
section) and returns warnings.  Nothing is silently dropped: text that fits no rule
becomes a paragraph.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from drafter.kinds import ID_FORM, ID_PREFIXES
from drafter.model import (
    CITED_ID_RE,
    EPISTEMIC_SECTIONS,
    EPISTEMIC_TYPE_PATH,
    RUNTIME_SECTIONS,
    RUNTIME_TYPE_PATH,
    SECTION_KIND,
    AccountSection,
    Heading,
    Paragraph,
    Record,
    RecordSection,
    Report,
    ReportType,
    Source,
)
from drafter.sanitize import visible
from drafter.textformat.blocks import BlockRun, Diagnostics, build_blocks, warn_unknown_statuses
from drafter.textformat.escapes import unescape_report
from drafter.textformat.lines import (
    classify,
    is_id_like,
    is_valid_record_id,
    looks_like_section_title,
)

RUNTIME_ACCOUNT_SECTIONS = ("Runtime account",)
EPISTEMIC_ACCOUNT_SECTIONS = (
    "Source-and-claim boundary",
    "Coverage",
    "Epistemic-object inventory",
    "Authority-route ledger",
    "System-claim versus route comparison",
    "Bounded conclusion",
)
#: The sub-sections every runtime account in the analysts' reports uses, in order.
RUNTIME_ACCOUNT_SUBSECTIONS = (
    "Scope and ordinary invocation",
    "Effect boundaries, authority and isolation",
    "Load-bearing guarantees and forcing cases",
)
SHARED_RECORDS = "Shared records"
ANNOTATIONS = "Annotations"
NO_ABSENCES = "none declared in this member"

ACCOUNT_SECTIONS = {
    ReportType.runtime: RUNTIME_ACCOUNT_SECTIONS,
    ReportType.epistemic: EPISTEMIC_ACCOUNT_SECTIONS,
}
RECORD_SECTIONS = {
    ReportType.runtime: RUNTIME_SECTIONS,
    ReportType.epistemic: EPISTEMIC_SECTIONS,
}
TYPE_PATHS = {ReportType.runtime: RUNTIME_TYPE_PATH, ReportType.epistemic: EPISTEMIC_TYPE_PATH}
RECORD_PREFIX = {t: ID_PREFIXES[t] for t in ReportType}

_TITLE_RE = re.compile(r"^(?P<system>\S.*?)\s+(?P<type>[A-Za-z-]+)\s+report$")
_TYPE_RE = re.compile(r"^Type:\s*(?P<path>.*)$")
_SOURCE_RE = re.compile(
    r"^Source:\s*(?P<id>SRC-\d+)\s+(?P<repo>.+?)(?:\s+at\s+(?P<rev>[0-9a-f]{7,64}))?$"
)
_LABEL_RE = re.compile(r"^Label:\s*(?P<label>.*)$")
_PART_OF_RE = re.compile(r"^Part of:\s*(?P<id>.*)$")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029]")


@dataclass
class ParseResult:
    """A parsed report and the warnings (``where:line: message``) it raised."""

    report: Report
    warnings: list[str] = field(default_factory=list)


def _check_text(text: str, diag: Diagnostics) -> list[str]:
    """Refuse binary content; return the lines (without newlines)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    m = _CONTROL_RE.search(text)
    if m:
        line = text.count("\n", 0, m.start()) + 1
        if m.group() == "\x00":
            diag.error(line, "NUL byte in report text (binary file?)")
        diag.error(
            line,
            f"raw control character U+{ord(m.group()):04X} in report text "
            f"(write it as {visible(m.group())})",
        )
    if "\ufffd" in text:  # may be a quote of a lossily decoded file: unusual, not fatal
        line = text.count("\n", 0, text.index("\ufffd")) + 1
        diag.warn(line, "U+FFFD replacement character (text decoded from non-UTF-8 bytes?)")
    if not text.strip():
        diag.error(None, "report is empty")
    return text.split("\n")


class _Parser:
    def __init__(self, lines: list[str], diag: Diagnostics):
        self.lines = lines
        self.diag = diag
        self.pos = 0  # index into lines

    # -- cursor helpers ------------------------------------------------------------

    def lineno(self, idx: int | None = None) -> int:
        return (self.pos if idx is None else idx) + 1

    def skip_blank(self) -> None:
        while self.pos < len(self.lines) and not self.lines[self.pos].strip():
            self.pos += 1

    def peek_nonblank(self, start: int) -> int | None:
        i = start
        while i < len(self.lines):
            if self.lines[i].strip():
                return i
            i += 1
        return None

    # -- document ------------------------------------------------------------------

    def parse(self) -> Report:
        self.skip_blank()
        title_idx = self.pos
        title = self.lines[title_idx].strip()
        m = _TITLE_RE.match(title)
        if not m:
            self.diag.error(
                self.lineno(),
                f"first line {title[:60]!r} is not "
                "'<System> runtime report' or '<System> epistemic report'",
            )
        try:
            rtype = ReportType(m.group("type").lower())
        except ValueError:
            self.diag.error(
                self.lineno(), f"unknown report type {m.group('type')!r} (runtime or epistemic)"
            )
        self.rtype = rtype
        system = m.group("system")
        self.pos += 1

        type_path = self._type_line()
        source = self._source_line()
        report = Report(system=system, type=rtype, type_path=type_path, source=source)

        account_titles = ACCOUNT_SECTIONS[rtype]
        self.skip_blank()
        if self.pos >= len(self.lines):
            self.diag.error(
                self.lineno(self.pos - 1), "report ends before its first section (truncated?)"
            )
        first = self.lines[self.pos].strip()
        if first not in account_titles and first not in (SHARED_RECORDS, ANNOTATIONS):
            self.diag.error(
                self.lineno(),
                f"expected a section heading ({', '.join(account_titles)} or {SHARED_RECORDS}), "
                f"found {first[:60]!r}",
            )
        self._account(report, account_titles)
        if self.pos < len(self.lines) and self.lines[self.pos].strip() == SHARED_RECORDS:
            self.pos += 1
            self._shared_records(report)
        elif self.pos < len(self.lines) and self._records_start_here(self.pos):
            self.diag.warn(self.lineno(), f"'{SHARED_RECORDS}' heading is missing before this line")
            self._shared_records(report)
        else:
            self.diag.warn(
                self.lineno(min(self.pos, len(self.lines) - 1)), f"no '{SHARED_RECORDS}' section"
            )
        if self.pos < len(self.lines) and self.lines[self.pos].strip() == ANNOTATIONS:
            self.pos += 1
            report.annotations = self._annotations()
        elif rtype == ReportType.runtime:
            self.diag.warn(len(self.lines), f"no '{ANNOTATIONS}' section")
        self._final_checks(report)
        return report

    def _type_line(self) -> str | None:
        self.skip_blank()
        if self.pos < len(self.lines):
            m = _TYPE_RE.match(self.lines[self.pos].strip())
            if m:
                path = m.group("path").strip()
                self.pos += 1
                if not path:
                    self.diag.warn(self.lineno(self.pos - 1), "empty 'Type:' line")
                    return None
                other = (
                    ReportType.epistemic if self.rtype == ReportType.runtime else ReportType.runtime
                )
                if other.value in path and self.rtype.value not in path:
                    self.diag.warn(
                        self.lineno(self.pos - 1),
                        f"'Type:' names a {other.value} report "
                        f"but the title says {self.rtype.value}",
                    )
                return path
        self.diag.warn(
            self.lineno(), "no 'Type:' line after the title (the standard one is assumed)"
        )
        return TYPE_PATHS[self.rtype]

    def _source_line(self) -> Source | None:
        i = self.peek_nonblank(self.pos)
        if i is None:
            return None
        m = _SOURCE_RE.match(self.lines[i].strip())
        if not m:
            return None
        self.pos = i + 1
        return Source(id=m.group("id"), repository=m.group("repo"), revision=m.group("rev"))

    # -- account ---------------------------------------------------------------------

    def _account(self, report: Report, titles: tuple[str, ...]) -> None:
        seen: list[str] = []
        while self.pos < len(self.lines):
            self.skip_blank()
            if self.pos >= len(self.lines):
                break
            title = self.lines[self.pos].strip()
            if title in (SHARED_RECORDS, ANNOTATIONS) or self._records_start_here(self.pos):
                break
            # _parse() guarantees the first one is a known title; later ones end a body
            start_line = self.lineno()
            if title in seen:
                self.diag.warn(start_line, f"section {title!r} appears twice")
            seen.append(title)
            self.pos += 1
            body_start = self.pos
            while self.pos < len(self.lines):
                s = self.lines[self.pos].strip()
                if s in titles or s in (SHARED_RECORDS, ANNOTATIONS):
                    break
                if self._records_start_here(self.pos):
                    break
                self.pos += 1
            run = self._blocks(body_start, self.pos, headings=True)
            warn_unknown_statuses(run, self.diag, title)
            self._warn_unknown_subsections(run, title)
            if not run.blocks:
                self.diag.warn(start_line, f"section {title!r} is empty")
            report.account.append(AccountSection(title=title, blocks=run.blocks))
        expected = [t for t in titles if t not in seen]
        for t in expected:
            self.diag.warn(
                self.lineno(min(self.pos, len(self.lines) - 1)), f"section {t!r} is missing"
            )
        order = [t for t in seen if t in titles]
        if order != sorted(order, key=titles.index):
            self.diag.warn(
                self.lineno(min(self.pos, len(self.lines) - 1)), "account sections are out of order"
            )

    def _warn_unknown_subsections(self, run: BlockRun, section: str) -> None:
        """A sub-heading the report type does not define is kept, but never silently."""
        known = RUNTIME_ACCOUNT_SUBSECTIONS if self.rtype == ReportType.runtime else ()
        for block, line in zip(run.blocks, run.starts, strict=True):
            if isinstance(block, Heading) and block.text not in known:
                self.diag.warn(
                    line, f"unknown sub-section {block.text!r} in {section!r} (kept as a heading)"
                )

    def _blocks(self, start: int, end: int, *, headings: bool) -> BlockRun:
        return build_blocks(
            ((i + 1, classify(self.lines[i])) for i in range(start, end)),
            self.diag,
            headings=headings,
        )

    # -- shared records ------------------------------------------------------------

    def _is_record_section_title(self, s: str) -> bool:
        return s in RUNTIME_SECTIONS or s in EPISTEMIC_SECTIONS

    def _records_start_here(self, idx: int) -> bool:
        """A record section title followed by a record ID: shared records begin."""
        if not self._is_record_section_title(self.lines[idx].strip()):
            return False
        nxt = self.peek_nonblank(idx + 1)
        return nxt is not None and is_id_like(self.lines[nxt])

    def _unknown_section_here(self, idx: int) -> bool:
        """A title-shaped line followed by a record ID: a section heading we do not know."""
        s = self.lines[idx].strip()
        if not looks_like_section_title(s) or self._is_record_section_title(s):
            return False
        nxt = self.peek_nonblank(idx + 1)
        return nxt is not None and is_id_like(self.lines[nxt])

    def _shared_records(self, report: Report) -> None:
        expected = RECORD_SECTIONS[self.rtype]
        section: RecordSection | None = None
        note_lines: list[tuple[int, str]] = []
        while True:
            self.skip_blank()
            if self.pos >= len(self.lines):
                break
            s = self.lines[self.pos].strip()
            if s == ANNOTATIONS:
                break
            if self._is_record_section_title(s):
                self._close_note(section, note_lines)
                note_lines = []
                if s not in expected:
                    self.diag.warn(
                        self.lineno(), f"section {s!r} is not part of a {self.rtype.value} report"
                    )
                if report.section(s) is not None:
                    self.diag.warn(self.lineno(), f"record section {s!r} appears twice")
                section = RecordSection(title=s)
                report.sections.append(section)
                self.pos += 1
                continue
            if section is None and is_id_like(s):
                self.diag.error(
                    self.lineno(), f"record {s} comes before any record section heading"
                )
            if section is None:
                allowed = ", ".join(expected)
                self.diag.error(
                    self.lineno(), f"unknown record section {s[:60]!r} (expected one of: {allowed})"
                )
            if is_id_like(s):
                self._close_note(section, note_lines)
                note_lines = []
                section.records.append(self._record(section))
                continue
            if self._unknown_section_here(self.pos):
                allowed = ", ".join(expected)
                self.diag.error(
                    self.lineno(), f"unknown record section {s!r} (expected one of: {allowed})"
                )
            if section.records:
                # only reachable when a record body ended on a section-like line
                self.diag.error(
                    self.lineno(), f"unexpected line in section {section.title!r}: {s[:60]!r}"
                )
            if _LABEL_RE.match(s):
                self.diag.error(self.lineno(), "'Label:' line without a record ID line above it")
            if classify(s).kind == "witness":
                self.diag.warn(
                    self.lineno(),
                    f"witness line outside any record in {section.title!r} "
                    "(kept as section text, not checked)",
                )
            note_lines.append((self.lineno(), s))
            self.pos += 1
        self._close_note(section, note_lines)
        self._check_section_order(report, expected)

    def _close_note(self, section: RecordSection | None, note_lines: list[tuple[int, str]]) -> None:
        if section is None or not note_lines:
            return
        section.note = "\n\n".join(text for _, text in note_lines)
        if section.note != NO_ABSENCES:
            self.diag.warn(
                note_lines[0][0],
                f"text in section {section.title!r} outside any record (kept as its note)",
            )

    def _check_section_order(self, report: Report, expected: tuple[str, ...]) -> None:
        titles = [s.title for s in report.sections if s.title in expected]
        if titles != sorted(titles, key=expected.index):
            self.diag.warn(
                self.lineno(min(self.pos, len(self.lines) - 1)), "record sections are out of order"
            )
        for t in expected:
            if t not in titles:
                self.diag.warn(
                    self.lineno(min(self.pos, len(self.lines) - 1)),
                    f"record section {t!r} is missing",
                )

    def _record_end(self, start: int) -> int:
        """Index of the first line after the record body starting at ``start``."""
        i = start
        while i < len(self.lines):
            s = self.lines[i].strip()
            if s == ANNOTATIONS or self._is_record_section_title(s) or is_id_like(s):
                return i
            if self._unknown_section_here(i):
                return i
            i += 1
        return i

    def _record(self, section: RecordSection) -> Record:
        id_line = self.lineno()
        rid = self.lines[self.pos].strip()
        if not is_valid_record_id(rid):
            self.diag.error(id_line, f"record ID {rid!r} is not of the form {ID_FORM}")
        self.pos += 1
        end = self._record_end(self.pos)
        label_idx = self.peek_nonblank(self.pos)
        if label_idx is None or label_idx >= end:
            at = label_idx + 1 if label_idx is not None else len(self.lines)
            why = "file ends" if label_idx is None else "next section or record starts"
            self.diag.error(at, f"record {rid} has no 'Label:' line ({why} first; truncated?)")
        m = _LABEL_RE.match(self.lines[label_idx].strip())
        if not m or not m.group("label").strip():
            found = self.lines[label_idx].strip()[:60]
            self.diag.error(
                label_idx + 1, f"record {rid} has no label: expected 'Label: ...', found {found!r}"
            )
        label = m.group("label").strip()
        body_start = label_idx + 1
        part_of: str | None = None
        po_idx = self.peek_nonblank(body_start)
        if po_idx is not None and po_idx < end:
            pm = _PART_OF_RE.match(self.lines[po_idx].strip())
            if pm:
                target = pm.group("id").strip()
                if is_valid_record_id(target):
                    part_of = target
                    body_start = po_idx + 1
                else:
                    self.diag.warn(
                        po_idx + 1, f"'Part of:' value {target!r} is not a record ID (kept as text)"
                    )
        run = self._blocks(body_start, end, headings=False)
        self.pos = end
        self._check_record(rid, section, id_line, run)
        return Record(id=rid, label=label, part_of=part_of, blocks=run.blocks)

    def _check_record(self, rid: str, section: RecordSection, line: int, run: BlockRun) -> None:
        prefix, kind = rid.split("-", 2)[:2]
        want_kind = SECTION_KIND.get(section.title)
        if want_kind is not None and kind != want_kind:
            self.diag.warn(
                line,
                f"record {rid} ({kind}) is in section {section.title!r} ({want_kind} expected)",
            )
        if prefix != RECORD_PREFIX[self.rtype]:
            self.diag.warn(line, f"record {rid} has prefix {prefix} in a {self.rtype.value} report")
        for block, bline in zip(run.blocks, run.starts, strict=True):
            if isinstance(block, Paragraph) and _PART_OF_RE.match(block.text):
                self.diag.warn(
                    bline, f"record {rid}: 'Part of:' after the body is kept as a paragraph"
                )
        warn_unknown_statuses(run, self.diag, rid)

    # -- annotations ---------------------------------------------------------------

    def _annotations(self) -> str | None:
        start = self.pos
        body = self.lines[start:]
        self.pos = len(self.lines)
        while body and not body[0].strip():
            body.pop(0)
            start += 1
        while body and not body[-1].strip():
            body.pop()
        text = "\n".join(line.rstrip() for line in body)
        if not text:
            self.diag.warn(start, f"'{ANNOTATIONS}' section is empty")
            return None
        if self.rtype == ReportType.runtime and text.strip() == "none":
            return None
        return text

    # -- whole-report checks ---------------------------------------------------------

    def _final_checks(self, report: Report) -> None:
        if not report.account and not report.sections:
            self.diag.error(len(self.lines), "report has no sections (truncated?)")
        seen: set[str] = set()
        for r in report.records:
            if r.id in seen:
                self.diag.warn(self._line_of(r.id), f"duplicate record ID {r.id}")
            seen.add(r.id)
        for d in report.dangling():
            self.diag.warn(self._line_citing(d.id), str(d))

    def _line_citing(self, rid: str) -> int:
        """The first line that names ``rid`` (0 when none does)."""
        for i, line in enumerate(self.lines):
            if rid in line and rid in CITED_ID_RE.findall(line):
                return i + 1
        return 0

    def _line_of(self, rid: str) -> int:
        hits = [i + 1 for i, line in enumerate(self.lines) if line.strip() == rid]
        return hits[-1] if hits else 0


def parse_report(text: str, *, where: str = "<report>") -> ParseResult:
    """Parse report text of either type.

    Raises :class:`drafter.errors.ReportFormatError` (with ``where`` and the line
    number) for input that cannot be a report; returns warnings for unusual text.
    """
    diag = Diagnostics(where)
    lines = _check_text(text, diag)
    report = unescape_report(_Parser(lines, diag).parse())
    return ParseResult(report=report, warnings=diag.warnings)


__all__ = ["ParseResult", "parse_report"]
