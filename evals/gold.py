"""Load gold and draft reports for evaluation, and the shipped sample gold set.

GOLD and DRAFT may each be report text or draft JSON, of either report type; the
foundation's reader (``drafter.reportio.load_report``) decides which and raises a
one-line BadInput on anything it cannot read.  The sample gold set is the hand-written
gold report about the shipped sample system, packaged with drafter itself.
"""

from __future__ import annotations

from pathlib import Path

from drafter.errors import BadInput
from drafter.model import Report


def load(path: str | Path, role: str) -> Report:
    """Read a report (text or JSON); ``role`` ("gold"/"draft") names it in errors."""
    p = Path(path)
    if not p.is_file():
        raise BadInput(f"{role} report {p} does not exist or is not a file")
    from drafter.reportio import load_report

    return load_report(p)


def sample_gold_path() -> Path:
    """Path of the sample gold report shipped in ``drafter/sample``."""
    from drafter.sample import gold_path

    path = gold_path()
    if not path.is_file():
        raise BadInput(f"the sample gold report is missing at {path}")
    return path


def sample_gold() -> Report:
    """The sample gold set: one runtime gold report about the shipped sample system."""
    return load(sample_gold_path(), "gold")


def source_of(draft: Report, repo: str | None, rev: str | None, where: str) -> tuple[str, str]:
    """The repository and revision to evaluate at: the options if given, else what the
    draft records (as ``review`` and ``verify`` do).  A recorded repository is used
    only when it is a folder on this machine; otherwise --repo is required."""
    src = draft.source
    if rev is None:
        if src is None or not src.revision:
            raise BadInput("no --rev given and the draft names no revision", where=where)
        rev = src.revision
    from drafter.repository import repository_of

    return repository_of(draft, repo, where), rev
