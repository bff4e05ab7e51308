"""Which repository a command reads when the user gives no ``--repo``.

Why: a repository's identity (its origin URL, or a bare mirror's folder name such as
``repo``) does not say where it is on this machine, so ``reverify``, ``redraft`` and
``eval`` could not find it.  A draft records the absolute path it was drafted from
(``source.location``); ``--repo`` stays the override.  Older drafts, which carry only
``source.repository``, still work when that names a folder here.
"""

from __future__ import annotations

import os
from pathlib import Path

from drafter.errors import BadInput
from drafter.model import Report


def location_of(repo: str | os.PathLike[str]) -> str:
    """The absolute path to record for ``repo`` (symlinks resolved)."""
    return str(Path(repo).expanduser().resolve())


def repository_of(report: Report, given: str | os.PathLike[str] | None, where: str) -> str:
    """``given`` if any, else the folder the report records, else a BadInput asking for
    ``--repo`` that says what the report does record."""
    if given is not None:
        return str(given)
    src = report.source
    for named in (src.location, src.repository) if src else ():
        if named and Path(named).expanduser().is_dir():
            return str(Path(named).expanduser())
    recorded = [n for n in ((src.location, src.repository) if src else ()) if n]
    what = (
        f"it records {' and '.join(repr(n) for n in dict.fromkeys(recorded))}, not a folder here"
        if recorded
        else "it records no repository"
    )
    raise BadInput(
        f"no --repo given and the report's repository cannot be found ({what})", where=where
    )
