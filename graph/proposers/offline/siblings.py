"""Sibling files: one structure repeated in several folders, drafted once.

Systems often ship one pattern per benchmark or domain: ``a/search.py``,
``b/search.py``, ``c/search.py`` — the same file name (after the folder's own name is
taken out of it, so ``a/a_prompt.py`` and ``b/b_prompt.py`` are one name) and nearly
the same definitions.  An analyst reads one of them and notes "same in b, c"; a draft
that gives each its own route and score object spends the record budget on copies.

A file copied into another folder under a name of that folder's (``b/a_utils.py``
for ``a/utils.py``) is a sibling too when every one of its definitions (four or more)
is the same.  Detection is structural only: file names, folder names and the sets of
functions and classes the survey's call graph found in each file.  No name of one repository counts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from retrieval.survey import Survey

#: Two files are siblings when this share of their definitions is the same.
MIN_OVERLAP = 0.7
#: Fewer definitions than this say too little about a file's structure.
MIN_DEFS = 2
#: Files of different names are copies only when all of this many definitions match.
MIN_COPY_DEFS = 4


def _tokens(name: str) -> list[str]:
    return [t for t in re.split(r"[_\-.]+", name.lower()) if t]


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def shape_name(path: str) -> tuple[str, str]:
    """(the folder's parent, the file name without the folder's own name in it):
    ``x/_drop/drop_prompt.py`` -> (``x``, ``prompt.py``)."""
    folder = _folder(path)
    parent = _folder(folder) if folder else ""
    own = set(_tokens(folder.rsplit("/", 1)[-1])) if folder else set()
    stem, dot, ext = path.rsplit("/", 1)[-1].rpartition(".")
    kept = [t for t in _tokens(stem) if t not in own] or _tokens(stem)
    return parent, "_".join(kept) + dot + ext


@dataclass(frozen=True)
class Siblings:
    """Files of one repeated structure: ``first`` stands for ``others``."""

    paths: tuple[str, ...]

    def folders(self, without: Iterable[str] = ()) -> list[str]:
        skip = {_folder(p) for p in without}
        return [
            _folder(p).rsplit("/", 1)[-1] or "the repository root"
            for p in self.paths
            if _folder(p) not in skip
        ]


def definitions(survey: Survey) -> dict[str, set[str]]:
    """Path -> the names of the functions and classes defined in it."""
    out: dict[str, set[str]] = {}
    for fn in survey.call_graph.functions.values():
        if not fn.symbol.startswith("<"):
            out.setdefault(fn.path, set()).add(fn.symbol)
    return out


def _overlap(a: set[str], b: set[str]) -> float:
    return len(a & b) / max(1, len(a | b))


def sibling_sets(survey: Survey) -> list[Siblings]:
    """Groups of sibling files (two or more, each in its own folder), in path order."""
    defs = definitions(survey)
    by_shape: dict[tuple[str, str], list[str]] = {}
    for path in sorted(defs):
        if len(defs[path]) >= MIN_DEFS and "/" in path:
            by_shape.setdefault(shape_name(path), []).append(path)
    out: list[Siblings] = []
    for paths in by_shape.values():
        left = list(paths)
        while len(left) >= 2:
            head = left[0]
            same = [p for p in left if _overlap(defs[head], defs[p]) >= MIN_OVERLAP]
            left = [p for p in left if p not in same]
            if len({_folder(p) for p in same}) >= 2:
                out.append(Siblings(tuple(_most_typical_first(same, survey))))
    # a copy renamed for its folder (``a/utils.py`` and ``b/a_utils.py``): the same
    # definitions, all of them, in files of different folders
    placed = {p for sib in out for p in sib.paths}
    by_defs: dict[frozenset[str], list[str]] = {}
    for path in sorted(defs):
        if path not in placed and len(defs[path]) >= MIN_COPY_DEFS and "/" in path:
            by_defs.setdefault(frozenset(defs[path]), []).append(path)
    for paths in by_defs.values():
        firsts = list({_folder(p): p for p in reversed(paths)}.values())[::-1]
        if len(firsts) >= 2:
            out.append(Siblings(tuple(_most_typical_first(firsts, survey))))
    return out


def _most_typical_first(paths: list[str], survey: Survey) -> list[str]:
    """The copy most like the others first (by the lines of its survey findings): it
    stands for the set best, where the first in path order may be the odd one out."""
    lines: dict[str, set[str]] = {p: set() for p in paths}
    for f in survey.findings:
        if f.path in lines:
            lines[f.path].add(" ".join(f.snippet.split()))

    def typical(p: str) -> float:
        return sum(_overlap(lines[p], lines[q]) for q in paths if q != p)

    return sorted(paths, key=lambda p: (-typical(p), p))


def sibling_map(survey: Survey) -> dict[str, Siblings]:
    """Path -> its sibling set, for every file that has siblings."""
    return {p: s for s in sibling_sets(survey) for p in s.paths}


def same_in(folders: list[str]) -> str:
    """``same in `_drop`, `_gpqa` and `_mgsm` `` for a label or a sentence."""
    names = [f"`{f}`" for f in dict.fromkeys(folders)]
    if len(names) == 1:
        return f"same in {names[0]}"
    return "same in " + ", ".join(names[:-1]) + " and " + names[-1]
