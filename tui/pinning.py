"""Which repository and revision a review shows, and whether they are the draft's.

Why a check of its own: a draft carries the verifier's verdicts from the revision it
was drafted at.  Opened against another repository (a draft of another system) or at
another ``--rev``, the review once showed those saved verdicts — every witness ✓ —
above a source view saying the file does not exist there.  So the review refuses a
repository that does not hold the draft's revision, and a ``--rev`` that is not the
draft's, unless the analyst asks for it (``--allow-mismatch``); then the app says so
in a banner that stays, and every witness is checked again at what is shown
(:func:`verify_at`), never taken from the file.
"""

from __future__ import annotations

import os

from drafter.errors import BadInput, UnknownRevision
from drafter.model import Report, Verification
from drafter.snapshot import Snapshot
from drafter.text import collapse

#: The review option that opens a mismatched review anyway.
ALLOW_FLAG = "--allow-mismatch"


def open_pinned(
    repo: str | os.PathLike[str],
    report: Report,
    rev: str | None,
    *,
    where: str,
    allow_mismatch: bool = False,
) -> tuple[Snapshot, str | None]:
    """The snapshot to review at, and why it is not the draft's (None when it is).

    Raises BadInput for a mismatch unless ``allow_mismatch``; ``where`` names the
    draft file in messages.
    """
    draft_rev = report.source.revision if report.source else None
    wanted = rev or draft_rev
    if not wanted:
        raise BadInput("the draft names no pinned revision; pass --rev", where=where)
    pinned_sha = _resolve(repo, draft_rev) if draft_rev else None
    mismatch: str | None = None
    if draft_rev and pinned_sha is None:
        mismatch = (
            f"{collapse(str(repo))} does not hold the draft's revision {collapse(draft_rev)[:12]} "
            f"(the draft is about '{collapse(report.system)}'): not the draft's repository"
        )
        if rev is None:
            # nothing of this repository to show the draft at: refuse even when allowed
            raise BadInput(
                mismatch + f"; pass the draft's repository as --repo (or --rev with "
                f"{ALLOW_FLAG} to look at this one anyway)",
                where=where,
            )
    shown = Snapshot(repo, wanted)
    if mismatch is None and pinned_sha is not None and shown.sha != pinned_sha:
        mismatch = (
            f"the draft is pinned at {pinned_sha[:12]}, not at --rev {collapse(rev or '')} "
            f"({shown.sha[:12]}): its verdicts and line numbers are for {pinned_sha[:12]}"
        )
    if mismatch is not None and not allow_mismatch:
        shown.close()
        hint = (
            f"; carry it there with: drafter reverify {collapse(where)} --rev {collapse(rev or '')}"
            if pinned_sha is not None
            else ""
        )
        raise BadInput(f"{mismatch}{hint} (or {ALLOW_FLAG} to review anyway)", where=where)
    return shown, mismatch


def _resolve(repo: str | os.PathLike[str], rev: str) -> str | None:
    """The full commit ``rev`` names in ``repo``, or None when the repository lacks it."""
    try:
        with Snapshot(repo, rev) as snap:
            return snap.sha
    except UnknownRevision:
        return None


def verify_at(report: Report, snapshot: Snapshot, *, mismatch: bool = False) -> None:
    """Every witness of ``report`` checked again at ``snapshot``, in place.

    Saved verdicts are never shown as they are: a draft file may carry verdicts from
    another revision, or verdicts nobody computed.  The verifier is cheap (a draft's
    few dozen witnesses take well under a second).  The moved/stale anchor (and its
    message) that ``drafter reverify`` wrote is kept when the new verdict agrees with
    the old one.
    With ``mismatch`` (another system's repository: every path may be missing) a
    quote is not looked for in every other file, which reads the whole revision.
    """
    from drafter.verify import Verifier

    witnesses = report.witnesses
    verifier = Verifier(snapshot, elsewhere=not mismatch)
    for w, new in zip(witnesses, verifier.verify_many(witnesses), strict=True):
        w.verification = _keep_anchor_tag(w.verification, new)


def _keep_anchor_tag(old: Verification | None, new: Verification) -> Verification:
    if (
        old is not None
        and old.anchor is not None
        and old.revision == new.revision
        and old.status == new.status
        and old.lines == new.lines
    ):
        return new.model_copy(update={"message": old.message, "anchor": old.anchor})
    return new
