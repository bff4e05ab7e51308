"""Which languages a revision's code is written in, and which of them were surveyed.

Why: a draft of a mixed repository that surveyed one language describes that part of
the system only, with every quote verified.  The draft's opening therefore says which
languages were surveyed and what share of the source files and lines each holds, and
names a language that is present but not surveyed, with its share, so a reader knows
what the draft cannot have seen.

Source files are files of a programming language by suffix (the survey's language table
for surveyed ones, :data:`UNSURVEYED` for the rest) that the file roles do not set
aside as vendored, generated, data or run output.  Shell scripts and Dockerfiles are
left out: the survey reads their command lines as entry points, and they are not what a
system's logic is written in.
"""

from __future__ import annotations

from dataclasses import dataclass

from drafter.snapshot import Snapshot
from retrieval.languages import for_path
from retrieval.roles import Role, classify_revision

#: Languages drafter has no rules for, by suffix: counted so they can be named.
UNSURVEYED: dict[str, str] = {
    ".ts": "TypeScript",
    ".tsx": "TypeScript",
    ".mts": "TypeScript",
    ".cts": "TypeScript",
    ".js": "JavaScript",
    ".jsx": "JavaScript",
    ".mjs": "JavaScript",
    ".cjs": "JavaScript",
    ".go": "Go",
    ".rs": "Rust",
    ".java": "Java",
    ".kt": "Kotlin",
    ".scala": "Scala",
    ".rb": "Ruby",
    ".php": "PHP",
    ".cs": "C#",
    ".swift": "Swift",
    ".c": "C",
    ".h": "C",
    ".cc": "C++",
    ".cpp": "C++",
    ".hpp": "C++",
    ".lua": "Lua",
    ".dart": "Dart",
    ".ex": "Elixir",
    ".jl": "Julia",
    ".r": "R",
}
_SET_ASIDE = frozenset({Role.vendored, Role.data, Role.logs, Role.results})


@dataclass(frozen=True, slots=True)
class LanguageShare:
    """One language's source files and lines at the revision."""

    label: str
    files: int
    lines: int
    surveyed: bool


def _label(path: str) -> tuple[str, bool] | None:
    lang = for_path(path)
    if lang is not None:
        return lang.label, True
    if path.endswith(".d.ts"):
        return None
    dot = path.rfind(".")
    slash = path.rfind("/")
    if dot <= slash + 1:
        return None
    label = UNSURVEYED.get(path[dot:].lower())
    return (label, False) if label else None


def language_shares(snapshot: Snapshot) -> list[LanguageShare]:
    """Source files and lines per language, most lines first."""
    roles = classify_revision(snapshot)
    files: dict[tuple[str, bool], list[str]] = {}
    for path, fr in roles.files.items():
        got = _label(path)
        if got is None or fr.role in _SET_ASIDE:
            continue
        files.setdefault(got, []).append(path)
    out = []
    for (label, surveyed), paths in files.items():
        snapshot.prefetch(paths)
        lines = 0
        for p in paths:
            try:
                text = snapshot.read_text(p)
            except Exception:  # noqa: BLE001 - an unreadable file adds no lines
                continue
            if not text.binary:
                lines += text.text.count("\n") + (not text.text.endswith("\n") and bool(text.text))
        out.append(LanguageShare(label, len(paths), lines, surveyed))
    # a language surveyed under two table entries (TypeScript and TSX) is one line
    merged: dict[tuple[str, bool], LanguageShare] = {}
    for s in out:
        k = (s.label, s.surveyed)
        if k in merged:
            m = merged[k]
            s = LanguageShare(s.label, m.files + s.files, m.lines + s.lines, s.surveyed)
        merged[k] = s
    return sorted(merged.values(), key=lambda s: (-s.lines, -s.files, s.label))


def _pct(n: int, total: int) -> str:
    if not total:
        return "0%"
    p = 100 * n / total
    return f"{p:.0f}%" if p >= 1 or p == 0 else "under 1%"


def shares_sentence(shares: list[LanguageShare]) -> str:
    """The opening's sentence on languages: surveyed ones with their shares, then any
    present but not surveyed, said plainly."""
    files = sum(s.files for s in shares)
    lines = sum(s.lines for s in shares)

    def one(s: LanguageShare) -> str:
        return (
            f"{s.label} ({s.files} file(s), {_pct(s.files, files)} of source files; "
            f"{s.lines:,} lines, {_pct(s.lines, lines)} of source lines)"
        )

    surveyed = [one(s) for s in shares if s.surveyed]
    missing = [s for s in shares if not s.surveyed]
    out = "Languages surveyed: " + (", ".join(surveyed) if surveyed else "none") + "."
    if missing:
        out += (
            " Present but not surveyed (no survey rules read them, so nothing they do is "
            "in this draft): " + ", ".join(one(s) for s in missing) + "."
        )
    return out
