"""Saved verifier answers: where each witness of a labelled pair was found.

Why: the labelled pairs are about real repositories that tests must not need.  The
verifier is run once on the real repository (``save_locations``) and its answers --
status and line span per (path, quote) -- are kept beside the saved draft; tests then
locate witnesses from that file (``cached_locate``).  A witness the file does not know
is an error, never a guess, so a draft that changed after the file was made is caught.

A witness is keyed by a hash of its path, cited lines and quote, not by the quote
itself: the file then copies neither gold text nor repository code.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from drafter.errors import BadInput
from drafter.model import LineRange, Report, Verification, VerifyStatus, Witness
from evals.witnesses import Locate


def _key(w: Witness) -> str:
    """Hash of path, cited lines and quote (a quote cited twice with different line
    hints can be located differently)."""
    raw = f"{w.path}\n{w.lines or ''}\n{w.quote}".encode()
    return hashlib.sha256(raw).hexdigest()[:24]


def save_locations(reports: list[Report], locate: Locate, out: Path, revision: str) -> int:
    """Locate every witness of ``reports`` and write the answers; returns how many."""
    rows: dict[str, dict[str, object]] = {}
    for rep in reports:
        for w in rep.witnesses:
            key = _key(w)
            if key in rows:
                continue
            v = locate(w)
            rows[key] = {
                "key": key,
                "path": w.path,
                "status": str(v.status),
                "lines": [v.lines.start, v.lines.end] if v.lines else None,
                "occurrences": v.occurrences,
            }
    ordered = sorted(rows.values(), key=lambda r: (str(r["path"]), str(r["key"])))
    lines = ",\n  ".join(json.dumps(r, ensure_ascii=False) for r in ordered)
    out.write_text(
        f'{{"revision": {json.dumps(revision)},\n "witnesses": [\n  {lines}\n ]}}\n',
        encoding="utf-8",
    )
    return len(rows)


def cached_locate(path: Path) -> Locate:
    """A Locate that answers from a saved file and refuses unknown witnesses."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        table = {str(r["key"]): r for r in data["witnesses"]}
        revision = str(data["revision"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BadInput(f"{path}: not a saved location file: {exc}") from None

    def locate(w: Witness) -> Verification:
        row = table.get(_key(w))
        if row is None:
            raise BadInput(f"{path}: no saved location for {w.path}: {w.quote[:60]!r}")
        lines = row.get("lines")
        return Verification(
            status=VerifyStatus(row["status"]),
            lines=LineRange(start=lines[0], end=lines[1]) if lines else None,
            occurrences=int(row.get("occurrences", 0)),
            revision=revision,
        )

    return locate
