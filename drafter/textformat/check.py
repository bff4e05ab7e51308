"""Will this report survive a trip through the text format?

Why: drafts are assembled from model output, and a model can write a paragraph that
*looks like* structure in the text format — a line that is only a record ID, a section
title, a sentence ending in `` --- some/path`` (which would read back as a witness).
The text format has no escape syntax, so instead of silently changing meaning on the
way out, callers (render, review export, draft assembly) can ask which records and
sections would not read back the same, and warn or repair.  The comparison ignores
what the text format deliberately does not carry (verification results, flags, draft
metadata) and whitespace differences (the verifier normalises whitespace anyway).
"""

from __future__ import annotations

from typing import Any

from drafter.errors import ReportFormatError
from drafter.model import AccountSection, Bullet, Heading, Paragraph, Record, RecordSection, Report
from drafter.text import collapse
from drafter.textformat.parser import parse_report
from drafter.textformat.render import render_text


def _norm(value: Any) -> Any:
    if isinstance(value, str):
        return collapse(value)
    if isinstance(value, list):
        return [_norm(v) for v in value]
    if isinstance(value, dict):
        return {k: _norm(v) for k, v in value.items()}
    return value


def _blocks_view(blocks: list[Any]) -> list[Any]:
    out: list[Any] = []
    for b in blocks:
        if isinstance(b, Bullet):
            out.append({"type": "bullet", "text": b.text})  # "A: b" named or not reads the same
        elif isinstance(b, Paragraph | Heading):
            out.append({"type": "prose", "text": b.text})  # a title-shaped line reads as heading
        else:
            out.append(b.model_dump(exclude={"witness": {"verification"}}))
    return [_norm(b) for b in out]


def _record_view(r: Record) -> Any:
    return _norm({"id": r.id, "label": r.label, "part_of": r.part_of}), _blocks_view(r.blocks)


def _account_view(a: AccountSection) -> Any:
    return _norm(a.title), _blocks_view(a.blocks)


def _section_view(s: RecordSection) -> Any:
    return _norm(s.title), _norm(s.note), [r.id for r in s.records]


def text_round_trip_problems(report: Report) -> list[str]:
    """Differences between ``report`` and ``parse(render_text(report))``; empty when safe."""
    try:
        back = parse_report(render_text(report), where="<rendered>").report
    except ReportFormatError as exc:
        return [f"rendered text does not parse: {exc}"]
    problems: list[str] = []
    if _norm(report.system) != back.system or report.type != back.type:
        problems.append("title (system name or type) reads back differently")
    if len(report.account) != len(back.account):
        problems.append(f"{len(report.account)} account sections read back as {len(back.account)}")
    for a, b in zip(report.account, back.account, strict=False):
        if _account_view(a) != _account_view(b):
            problems.append(f"account section {a.title!r} reads back differently")
    if [_section_view(s) for s in report.sections] != [_section_view(s) for s in back.sections]:
        problems.append("record sections or their record lists read back differently")
    by_id = {r.id: r for r in back.records}
    for r in report.records:
        other = by_id.get(r.id)
        if other is None:
            problems.append(f"{r.id}: missing after reading back")
        elif _record_view(r) != _record_view(other):
            problems.append(f"{r.id}: reads back differently")
    if _norm(report.annotations or "none") != _norm(back.annotations or "none"):
        problems.append("annotations read back differently")
    return problems
