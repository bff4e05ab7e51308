"""Loading a draft for review.

The witnesses' verdicts are not taken from the file: :func:`tui.pinning.verify_at`
checks every one again at the revision the review shows.
"""

from __future__ import annotations

from pathlib import Path

from drafter.errors import BadInput
from drafter.model import Report


def load_draft(path: Path) -> Report:
    """A draft JSON or report text, through the core's reader."""
    if not path.is_file():
        raise BadInput("draft file does not exist", where=str(path))
    from drafter.reportio import load_report

    return load_report(path)
