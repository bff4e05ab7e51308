"""Load the runtime report an epistemic draft stands on.

RUNTIME may be a runtime draft JSON, a reviewed export (JSON, text or Markdown-free
text) or a hand-written runtime report text; the loader in :mod:`drafter.reportio`
tells them apart by content.  With a review store, only the records the analyst
accepted are kept (edits applied), so an epistemic draft never cites a rejected or
undecided runtime record.  The set of runtime IDs loaded here is the only set of
``RT-`` IDs the epistemic draft may cite.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from drafter.errors import BadInput
from drafter.model import Record, Report, ReportType
from drafter.reportio import load_report


@dataclass(frozen=True)
class RuntimeInput:
    """The runtime records an epistemic draft may cite, and where they came from."""

    report: Report
    origin: str
    accepted_only: bool

    @property
    def ids(self) -> set[str]:
        return {r.id for r in self.report.records}

    def of_kind(self, kind: str) -> list[Record]:
        return [r for r in self.report.records if r.kind == kind and r.prefix == "RT"]


def load_runtime(
    path: str | Path, store: str | Path | None = None, resolve: str | None = None
) -> RuntimeInput:
    """Read RUNTIME; refuse an epistemic report or one without runtime records.

    With a store, the runtime records are those of the review's export (the one
    builder, :func:`drafter.review_export.reviewed_report`), so an unsettled conflict
    between analysts is refused here as it is on export."""
    report = load_report(path)
    if report.type != ReportType.runtime:
        raise BadInput(f"{path}: --runtime needs a runtime report, this one is {report.type}")
    if store is not None:
        from drafter.review_export import reviewed_report
        from drafter.review_identity import resolve_store, store_exists
        from drafter.review_store import ReviewStore

        found = resolve_store(store, path, report)
        if not store_exists(found):
            if found == Path(store):
                raise BadInput(f"{store}: no such review store")
            raise BadInput(
                f"{store} has not been reviewed yet: its review store {found} does not exist "
                f"(review it with: drafter review {store} --repo REPO)"
            )
        with ReviewStore(found) as rs:
            report = reviewed_report(rs, report, resolve)
    if not any(r.prefix == "RT" for r in report.records):
        what = "accepted " if store is not None else ""
        raise BadInput(f"{path}: no {what}runtime records to build on")
    return RuntimeInput(report=report, origin=str(path), accepted_only=store is not None)
