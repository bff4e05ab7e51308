"""Which repository paths are data, and which files are near-copies of each other.

Why these rules exist: a record's context is small (``record_context_bytes``), and on
real repositories it was spent on the wrong text — search hits from data sets, result
dumps and the licence, and the same survey findings repeated once per near-identical
folder (one benchmark folder per task, each with its own copy of the same script).

Both rules are generic, read only paths and file text, and never name a folder:

- **Data**: a file whose extension is a data format, a licence file, or any file in a
  folder whose files are overwhelmingly data (a data set's own ``readme`` included).
- **Siblings**: files with the same name in folders that share a parent, whose lines
  are mostly the same (Jaccard similarity of their sets of non-blank lines).
"""

from __future__ import annotations

import threading
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from pathlib import PurePosixPath

#: Extensions of files that hold records, tables, archives or serialised objects.
DATA_SUFFIXES = frozenset(
    {
        ".json",
        ".jsonl",
        ".ndjson",
        ".csv",
        ".tsv",
        ".xml",
        ".gz",
        ".zip",
        ".tar",
        ".bz2",
        ".xz",
        ".pkl",
        ".pickle",
        ".npy",
        ".npz",
        ".parquet",
        ".arrow",
        ".h5",
        ".hdf5",
        ".feather",
        ".sqlite",
        ".db",
    }
)
_LICENCE_STEMS = ("license", "licence", "copying", "notice")
#: A folder is a data folder when at least this share of the files under it are data,
#: and it holds at least DATA_FOLDER_MIN_FILES files (two JSON files do not make one).
DATA_FOLDER_SHARE = 0.8
DATA_FOLDER_MIN_FILES = 4
#: Share of common non-blank lines from which two same-named files count as siblings.
SIBLING_SIMILARITY = 0.5


def _is_data_file(path: str) -> bool:
    p = PurePosixPath(path)
    name = p.name.lower()
    if name.startswith(_LICENCE_STEMS):
        return True
    return any(s in DATA_SUFFIXES for s in p.suffixes[-2:]) or p.suffix.lower() in DATA_SUFFIXES


def data_folders(files: Iterable[str]) -> set[str]:
    """Folders (with a trailing ``/``) whose files are overwhelmingly data."""
    total: Counter[str] = Counter()
    data: Counter[str] = Counter()
    for f in files:
        parts = f.split("/")[:-1]
        is_data = _is_data_file(f)
        for i in range(1, len(parts) + 1):
            folder = "/".join(parts[:i]) + "/"
            total[folder] += 1
            data[folder] += is_data
    return {
        d
        for d, n in total.items()
        if n >= DATA_FOLDER_MIN_FILES and data[d] / n >= DATA_FOLDER_SHARE
    }


class DataPaths:
    """``is_data(path)`` for one revision's file list (folders computed once)."""

    def __init__(self, files: Iterable[str]):
        self.folders = data_folders(files)

    def is_data(self, path: str) -> bool:
        if _is_data_file(path):
            return True
        parts = path.split("/")[:-1]
        return any("/".join(parts[:i]) + "/" in self.folders for i in range(1, len(parts) + 1))


def _line_set(text: str) -> frozenset[str]:
    return frozenset(s for line in text.splitlines() if (s := line.strip()))


def similarity(a: str, b: str) -> float:
    """Jaccard similarity of the two texts' sets of non-blank, stripped lines."""
    sa, sb = _line_set(a), _line_set(b)
    if not sa or not sb:
        return 0.0
    return len(sa & sb) / len(sa | sb)


class Siblings:
    """Near-copies of a file in sibling folders (``a/x/run.py`` and ``a/y/run.py``).

    Texts are read through ``read`` (the snapshot) only for files that share a name and
    a grandparent folder, and each pair is compared once per run.
    """

    def __init__(self, files: Iterable[str], read: Callable[[str], str | None]):
        self._read = read
        self._by_key: dict[tuple[str, str], list[str]] = defaultdict(list)
        for f in sorted(files):
            p = PurePosixPath(f)
            if len(p.parts) >= 2:
                self._by_key[(str(p.parent.parent), p.name)].append(f)
        self._texts: dict[str, str | None] = {}
        self._pairs: dict[tuple[str, str], bool] = {}
        self._lock = threading.Lock()

    def _text(self, path: str) -> str | None:
        if path not in self._texts:
            self._texts[path] = self._read(path)
        return self._texts[path]

    def _alike(self, a: str, b: str) -> bool:
        key = (a, b) if a < b else (b, a)
        got = self._pairs.get(key)
        if got is None:
            ta, tb = self._text(a), self._text(b)
            got = ta is not None and tb is not None and similarity(ta, tb) >= SIBLING_SIMILARITY
            self._pairs[key] = got
        return got

    def of(self, path: str) -> list[str]:
        """The siblings of ``path`` (itself excluded), in path order."""
        p = PurePosixPath(path)
        if len(p.parts) < 2:
            return []
        with self._lock:
            group = self._by_key.get((str(p.parent.parent), p.name), [])
            return [o for o in group if o != path and self._alike(path, o)]

    def related(self, a: str, b: str) -> bool:
        """Are ``a`` and ``b`` siblings?  Compares only this pair (a folder of hundreds
        of same-named files is never read whole for one question)."""
        pa, pb = PurePosixPath(a), PurePosixPath(b)
        if a == b or len(pa.parts) < 2 or pa.name != pb.name:
            return False
        if pa.parent.parent != pb.parent.parent:
            return False
        with self._lock:
            return self._alike(a, b)
