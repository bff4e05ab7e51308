"""Export the accepted part of a reviewed draft as report text, Markdown or JSON.

Only accepted records are exported, with the analyst's edits applied and rejected
witnesses removed (:meth:`drafter.review_store.ReviewStore.accepted_report`); the
rendering itself is the core's, so an export reads back with ``drafter parse``.
"""

from __future__ import annotations

from pathlib import Path

from drafter.errors import BadInput
from drafter.model import Report
from drafter.review_store import ReviewStore

FORMATS = ("text", "markdown", "json")
SUFFIX = {"text": ".txt", "markdown": ".md", "json": ".json"}


def render(report: Report, fmt: str) -> str:
    if fmt == "json":
        return report.to_json()
    from drafter.textformat import render_markdown, render_text

    if fmt == "text":
        return render_text(report)
    if fmt == "markdown":
        return render_markdown(report)
    raise BadInput(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")


def default_export_path(draft: Path, fmt: str) -> Path:
    return draft.with_name(draft.stem + ".accepted" + SUFFIX[fmt])


def export_accepted(store: ReviewStore, report: Report, fmt: str, out: Path) -> int:
    """Write the accepted records to ``out``; returns how many records were written."""
    return write_export(store.accepted_report(report), fmt, out)


def write_export(accepted: Report, fmt: str, out: Path) -> int:
    """Render an already-filtered report and replace ``out`` atomically.

    Split from :func:`export_accepted` so the app can read the store on its own
    thread and leave only rendering and writing to a worker.
    """
    if fmt not in FORMATS:
        raise BadInput(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")
    text = render(accepted, fmt)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(out.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(out)
    except OSError as exc:
        raise BadInput(f"cannot write export: {exc.strerror}", where=str(out)) from None
    return len(accepted.records)
