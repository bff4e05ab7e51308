"""Which decision store belongs to a draft: keyed by the draft's identity, not its name.

Why not the file stem: ``ah.json`` (a machine draft) and ``ah.txt`` (a text report)
are different documents, yet a store named after the stem made them share decisions
by accident; and a draft carried to a new revision (``drafter reverify``) or redrafted
(``drafter redraft``) is written to a new file, yet must keep its review.  So the
identity is taken from what the document says about itself — system, report type,
source repository and, for a machine draft, when and by what it was generated — and a
draft derived from another records its parent's identity in ``meta.extra`` so both
open the same store.  Decisions inside the store are still keyed by record ID and
content hash, so a record that changed shows as "changed since review".
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from drafter.config import data_dir
from drafter.model import DraftMeta, Report

#: Key in ``meta.extra`` naming the review identity a derived draft shares.
IDENTITY_KEY = "review_identity"


def draft_identity(report: Report, fmt: str = "json") -> str:
    """A short stable identity of the draft for choosing its review store.

    ``fmt`` is the file's kind ("json" or "text"): a text report carries no generation
    metadata, so without it a text export of a draft would share the draft's store.
    """
    meta = report.meta
    if meta is not None and isinstance(meta.extra.get(IDENTITY_KEY), str):
        return str(meta.extra[IDENTITY_KEY])
    data = {
        "system": report.system,
        "type": report.type.value,
        "repository": report.source.repository if report.source else None,
        "revision": report.source.revision if report.source else None,
        "generator": meta.generator if meta else None,
        "created": meta.created if meta else None,
        "format": fmt,
    }
    blob = json.dumps(data, sort_keys=True, ensure_ascii=False).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def derive_meta(parent: Report, fmt: str = "json") -> DraftMeta:
    """Meta for a draft derived from ``parent`` (same review identity)."""
    meta = parent.meta.model_copy(deep=True) if parent.meta else DraftMeta(generator="review")
    meta.extra[IDENTITY_KEY] = draft_identity(parent, fmt)
    return meta


def file_kind(path: str | os.PathLike[str]) -> str:
    """ "json" for a draft JSON file, "text" for anything else (report text, Markdown)."""
    return "json" if Path(path).suffix.lower() == ".json" else "text"


#: The first bytes of every SQLite database file.
_SQLITE_MAGIC = b"SQLite format 3\x00"


def is_store_file(path: str | os.PathLike[str]) -> bool:
    """Is ``path`` an existing SQLite file (a review store), as opposed to a report?"""
    try:
        with open(path, "rb") as fh:
            return fh.read(len(_SQLITE_MAGIC)) == _SQLITE_MAGIC
    except OSError:
        return False


def resolve_store(
    given: str | os.PathLike[str] | None,
    draft: str | os.PathLike[str],
    report: Report,
) -> Path:
    """The store a command should use: ``--store`` as given, or a draft's own.

    Why a draft path is accepted: the default store is named by a hash of the draft's
    identity (``reviews/3f9c….sqlite``), which nobody types.  ``--store dgm.json``
    (any existing report file rather than a SQLite file) means "the store that
    ``drafter review dgm.json`` uses"; without ``--store`` it is ``draft``'s own.
    """
    if given is None:
        return identity_store_path(draft, report)
    path = Path(given)
    if path.is_file() and not is_store_file(path) and path.stat().st_size > 0:
        from drafter.errors import BadInput
        from drafter.reportio import load_report

        try:
            other = load_report(path)
        except BadInput:
            raise BadInput(
                "--store is neither a review store (SQLite) nor a draft or report", where=str(path)
            ) from None
        return identity_store_path(path, other)
    return path


def identity_store_path(
    draft: str | os.PathLike[str], report: Report, root: Path | None = None
) -> Path:
    """The default store of a draft: ``<data dir>/reviews/<identity>.sqlite``."""
    fmt = file_kind(draft)
    base = root if root is not None else data_dir() / "reviews"
    return base / f"{draft_identity(report, fmt)}.sqlite"
