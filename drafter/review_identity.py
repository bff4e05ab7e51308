"""Which decision store belongs to a draft: keyed by the draft's identity, not its name.

Why not the file stem: ``ah.json`` (a machine draft) and ``ah.txt`` (a text report)
are different documents, yet a store named after the stem made them share decisions
by accident; and a draft carried to a new revision (``drafter reverify``) or redrafted
(``drafter redraft``) is written to a new file, yet must keep its review.  So the
identity is taken from what the document says about itself — system, report type,
source repository and revision — and a draft derived from another records its
parent's identity in ``meta.extra`` so both open the same store.

Why not when and by what a draft was generated: decisions follow the *records*
(record ID and content hash), not the file.  A draft made again at the same revision
with the same records must find its decisions; a record whose content changed shows
as "changed since review", and a new record as pending, whatever made the draft.
Stores named by the earlier identity (which included the generator and the creation
time) are still found: :func:`identity_store_path` opens one that exists.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from drafter.config import data_dir
from drafter.model import DraftMeta, Report
from drafter.store_locator import ENV_STORE, for_draft, is_server

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
    return _hash(_identity_fields(report, fmt))


def legacy_identity(report: Report, fmt: str = "json") -> str:
    """The identity stores were named by before decisions followed the records."""
    meta = report.meta
    data = _identity_fields(report, fmt)
    data["generator"] = meta.generator if meta else None
    data["created"] = meta.created if meta else None
    return _hash(data)


def _identity_fields(report: Report, fmt: str) -> dict[str, str | None]:
    return {
        "system": report.system,
        "type": report.type.value,
        "repository": report.source.repository if report.source else None,
        "revision": report.source.revision if report.source else None,
        "format": fmt,
    }


def _hash(data: dict[str, str | None]) -> str:
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
) -> Path | str:
    """The store a command should use: ``--store`` (else ``$DRAFTER_STORE``) as given,
    or a draft's own; a locator string for a server, a path for an SQLite file.

    Why a draft path is accepted: the default store is named by a hash of the draft's
    identity (``reviews/3f9c….sqlite``), which nobody types.  ``--store draft.json``
    (any existing report file rather than a SQLite file) means "the store that
    ``drafter review draft.json`` uses"; without ``--store`` it is ``draft``'s own.  A
    server locator or a folder holds one store per draft identity.
    """
    if given is None or not str(given).strip():
        given = os.environ.get(ENV_STORE) or None
    if given is None:
        return identity_store_path(draft, report)
    if is_server(str(given)):
        return for_draft(str(given), draft_identity(report, file_kind(draft)))
    path = Path(given).expanduser()
    if path.is_dir():
        return identity_store_path(draft, report, root=path)
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
    path = base / f"{draft_identity(report, fmt)}.sqlite"
    legacy = base / f"{legacy_identity(report, fmt)}.sqlite"
    if not path.exists() and legacy.exists():
        return legacy
    return path


def store_exists(found: Path | str) -> bool:
    """Has the store been made?  (A server store exists once its database does.)"""
    return not isinstance(found, Path) or found.exists()
