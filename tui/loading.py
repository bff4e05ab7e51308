"""Loading a draft for review and making sure its witnesses carry verdicts.

Why here: the review shows a verified badge only when the verifier said so at the
pinned revision.  A draft written without verdicts (a hand-written report, an older
draft) is verified on load rather than shown as trustworthy.
"""

from __future__ import annotations

from pathlib import Path

from drafter.errors import BadInput
from drafter.model import Report, VerifyStatus
from drafter.snapshot import Snapshot


def load_draft(path: Path) -> Report:
    """A draft JSON or report text, through the core's reader."""
    if not path.is_file():
        raise BadInput("draft file does not exist", where=str(path))
    from drafter.reportio import load_report

    return load_report(path)


def needs_verification(report: Report) -> bool:
    return any(
        w.verification is None or w.verification.status == VerifyStatus.unchecked
        for r in report.records
        for w in r.witnesses
    )


def ensure_verified(report: Report, snapshot: Snapshot) -> None:
    """Fill in missing witness verdicts in place, against ``snapshot``'s revision."""
    if not needs_verification(report):
        return
    from drafter.verify import verify_report

    verify_report(report, snapshot, in_place=True)
