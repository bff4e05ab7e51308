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

if __name__ == "__main__":
    # ``python -m`` puts the current folder first on sys.path.  Refuse, before any other
    # project import, when that folder holds a package named like one of drafter's: an
    # analysed repository's code would be imported instead.  (Stdlib only, on purpose.)
    import sys as _sys
    from pathlib import Path as _Path

    _ours, _first = _Path(__file__).resolve().parents[1], _Path(_sys.path[0] or ".").resolve()
    if not _sys.flags.safe_path and _first != _ours:
        for _name in ("drafter", "graph", "evals", "retrieval", "tui", "prompts"):
            if (_first / _name / "__init__.py").is_file() or (_first / f"{_name}.py").is_file():
                print(
                    f"drafter: error: {_first} holds a {_name!r} package that python -m would "
                    "import instead of drafter's; run it from another folder",
                    file=_sys.stderr,
                )
                _sys.exit(2)

import hashlib
import json
from pathlib import Path

from drafter.errors import BadInput
from drafter.model import LineRange, Report, Verification, VerifyStatus, Witness
from evals.witnesses import Fingerprint, Locate, fingerprint


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
                "text": sorted(fingerprint(w.quote)),
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


def cached_fingerprint(path: Path) -> Fingerprint:
    """Quote fingerprints from a saved file (``"text"`` of each row): a redacted draft
    no longer carries its quotes' text.  A row without one (saved before fingerprints
    were) falls back to the quote as given; an unknown witness is refused."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        table = {str(r["key"]): r.get("text") for r in data["witnesses"]}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise BadInput(f"{path}: not a saved location file: {exc}") from None

    def text(w: Witness) -> frozenset[str]:
        key = _key(w)
        if key not in table:
            raise BadInput(f"{path}: no saved location for {w.path}: {w.quote[:60]!r}")
        row = table[key]
        if isinstance(row, list):
            return frozenset(str(h) for h in row)
        return fingerprint(w.quote)

    return text


def main(argv: list[str] | None = None) -> int:
    """Save the verifier's answers for a labelled pair's gold and draft witnesses."""
    import argparse
    import sys

    from drafter.snapshot import Snapshot
    from evals.evaluate import verifier_locate
    from evals.gold import load

    ap = argparse.ArgumentParser(prog="python -m evals.located", description=main.__doc__)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--rev", required=True)
    ap.add_argument("--gold", type=Path, required=True)
    ap.add_argument("--draft", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    try:
        reports = [load(a.gold, "gold"), load(a.draft, "draft")]
        with Snapshot(a.repo, a.rev) as snap:
            n = save_locations(reports, verifier_locate(snap), a.out, snap.sha)
    except BadInput as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{a.out}: {n} witness locations")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
