"""The opening's sentence on languages: which were surveyed, what share each holds.

Why: a draft of a mixed repository that surveyed one language describes that part of
the system only, with every quote verified.  The opening therefore says which languages
were surveyed and what share of the source files and lines each holds, and names a
language that is present but not surveyed, with its share, so a reader knows what the
draft cannot have seen.  The counts are the survey's (``Survey.languages``).
"""

from __future__ import annotations

from retrieval.survey.model import LanguageShare


def _pct(share: float) -> str:
    p = 100 * share
    return f"{p:.0f}%" if p >= 1 or p == 0 else "under 1%"


def _merged(shares: list[LanguageShare]) -> list[LanguageShare]:
    """One line per printed language (a language the table keeps as two grammars, such
    as TypeScript and TSX, is one language to a reader)."""
    out: dict[tuple[str, bool], LanguageShare] = {}
    for s in shares:
        key = (s.label, s.supported)
        if key in out:
            m = out[key]
            s = m.model_copy(
                update={
                    "files": m.files + s.files,
                    "lines": m.lines + s.lines,
                    "surveyed": m.surveyed + s.surveyed,
                    "file_share": m.file_share + s.file_share,
                    "line_share": m.line_share + s.line_share,
                }
            )
        out[key] = s
    return sorted(out.values(), key=lambda s: (-s.lines, -s.files, s.label))


def _one(s: LanguageShare) -> str:
    return (
        f"{s.label} ({s.files} file(s), {_pct(s.file_share)} of source files; "
        f"{s.lines:,} lines, {_pct(s.line_share)} of source lines)"
    )


def shares_sentence(shares: list[LanguageShare]) -> str:
    """Surveyed languages with their shares, then any present but not surveyed, said
    plainly; "none" when the revision holds no source file the survey could read."""
    shares = _merged(shares)
    surveyed = [_one(s) for s in shares if s.supported]
    missing = [s for s in shares if not s.supported]
    out = "Languages surveyed: " + (", ".join(surveyed) if surveyed else "none") + "."
    if missing:
        out += (
            " Present but not surveyed (no survey rules read them, so nothing they do is "
            "in this draft): " + ", ".join(_one(s) for s in missing) + "."
        )
    return out
