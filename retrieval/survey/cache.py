"""The survey of a revision, computed once and kept on disk.

Why: the survey is deterministic for a revision and the survey code that made it,
and it is the slowest step of a warm offline draft (seconds on a mid-size
repository).  A second draft of the same revision loads it instead.  The key holds
the revision SHA, the repository identity and a fingerprint of the survey package's
own source files, so a changed rule (a new category, a fixed pattern) never serves a
stale survey.  A cache file that cannot be read is ignored and rewritten.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from functools import cache
from pathlib import Path

from drafter.snapshot import Snapshot
from retrieval.survey.model import Survey
from retrieval.survey.runner import run_survey


@cache
def code_fingerprint() -> str:
    """A hash of every file of the survey package (its rules), of the language table
    (each language's grammar binding, queries, extractor and rules) and of the file-role
    rules the survey filters by."""
    root = Path(__file__).parent
    h = hashlib.sha256()
    for folder in (root, root.parent / "languages"):
        for p in sorted(folder.rglob("*")):
            if p.is_file() and p.suffix in (".py", ".scm", ".toml", ".json", ".txt"):
                h.update(p.relative_to(root.parent).as_posix().encode())
                h.update(p.read_bytes())
    roles = root.parent / "roles.py"  # the survey skips files by role
    h.update(roles.read_bytes())
    return h.hexdigest()[:16]


def cache_path(snapshot: Snapshot, cache_dir: Path) -> Path:
    ident = hashlib.sha256(snapshot.identity.encode()).hexdigest()[:12]
    return cache_dir / f"{snapshot.sha}-{ident}-{code_fingerprint()}.json"


def cached_survey(snapshot: Snapshot, cache_dir: Path | None, progress: bool = False) -> Survey:
    """The survey of ``snapshot``, from ``cache_dir`` when a matching one is there
    (``progress``: a bar on stderr while a survey is made)."""
    if cache_dir is None:
        return run_survey(snapshot, progress=progress)
    path = cache_path(snapshot, cache_dir)
    try:
        cached = Survey.model_validate_json(path.read_bytes())
    except (OSError, ValueError):
        pass
    else:
        # keyed on the identity, which a moved mirror keeps: the shown name follows the folder
        cached.repository = snapshot.name
        return cached
    survey = run_survey(snapshot, progress=progress)
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache_dir, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(survey.model_dump_json().encode())
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only data dir only costs the next run the survey again
    return survey
