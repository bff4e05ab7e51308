"""Export the accepted part of a reviewed draft as report text, Markdown or JSON.

Only accepted records are exported, with the analyst's edits applied and rejected
witnesses removed; notes, reasons and edits become the report's annotations
(:func:`drafter.review_export.reviewed_report`).  The rendering itself is the core's,
so an export reads back with ``drafter parse`` and verifies with ``drafter verify``.
"""

from __future__ import annotations

from pathlib import Path

from drafter.errors import BadInput
from drafter.model import Report
from drafter.reportio import atomic_write_text, dump_report
from drafter.review_export import reviewed_report
from drafter.review_store import ReviewStore

FORMATS = ("text", "markdown", "json")
#: Why a review opened with ``--allow-mismatch`` exports nothing.
MISMATCH_EXPORT = (
    "no export from a review at another repository or revision: an export states the "
    "draft's own revision; review it there, or carry it first with drafter reverify"
)
SUFFIX = {"text": ".txt", "markdown": ".md", "json": ".json"}


def check_export_target(out: Path, draft: Path, store: Path | None) -> None:
    """Refuse an export path that is the draft or the review store itself.

    Why: the export replaces ``out`` whole, so ``--export DRAFT.json`` (or typing the
    draft's name at the app's prompt) once replaced the draft with its accepted part
    (with nothing accepted yet: a draft of 0 records), and nothing saved may be lost.
    """
    for keep, what in ((draft, "the draft being reviewed"), (store, "the review store")):
        if keep is None:  # a store on a server: no file to overwrite
            continue
        try:
            same = out.exists() and keep.exists() and out.samefile(keep)
        except OSError:
            same = False
        if same:
            raise BadInput(f"the export would overwrite {what}; give another file", where=str(out))


def default_export_path(draft: Path, fmt: str) -> Path:
    return draft.with_name(draft.stem + ".accepted" + SUFFIX[fmt])


def export_accepted(
    store: ReviewStore, report: Report, fmt: str, out: Path, resolve: str | None = None
) -> int:
    """Write the accepted records to ``out``; returns how many records were written.
    A conflict between analysts that ``resolve`` does not settle is refused."""
    return write_export(reviewed_report(store, report, resolve), fmt, out)


def write_export(accepted: Report, fmt: str, out: Path) -> int:
    """Render an already-filtered report and replace ``out`` atomically.

    Split from :func:`export_accepted` so the app can read the store on its own
    thread and leave only rendering and writing to a worker.
    """
    if fmt not in FORMATS:
        raise BadInput(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")
    text = dump_report(accepted, fmt)
    try:
        atomic_write_text(out, text)
    except OSError as exc:
        raise BadInput(f"cannot write export: {exc.strerror}", where=str(out)) from None
    return len(accepted.records)
