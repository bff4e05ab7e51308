"""Whether two reports are about the same system at the same revision, from what they
record.

Why the revision decides: a system's name is not a reliable key (a gold report may
call it by its full name, a draft by its repository's short name), and neither is the
repository's path (a mirror here, a clone there).  The pinned revision is: a report
records it in ``source.revision``, and a hand-written one states it in its account
("SRC-1, the repository … at revision d88fdd6…").  Two reports whose revisions are
both known and disagree (neither is a prefix of the other) are about different code,
and comparing them (scoring a draft against a gold, an epistemic draft built on a
runtime draft) yields silent nonsense.  When either revision is unknown nothing is
decided: a report that states none cannot be refused on a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import click

from drafter.errors import BadInput
from drafter.model import Heading, Paragraph, Report
from drafter.sanitize import visible

_SHA = re.compile(r"(?<![0-9a-fA-F])[0-9a-f]{40}(?![0-9a-fA-F])")


def revisions(report: Report) -> set[str]:
    """The full revisions a report records (its source), else those its account states."""
    if report.source is not None and report.source.revision:
        return {report.source.revision.lower()}
    text = " ".join(
        b.text for a in report.account for b in a.blocks if isinstance(b, Paragraph | Heading)
    )
    return set(_SHA.findall(text))


def _same(a: str, b: str) -> bool:
    return a.startswith(b) or b.startswith(a)


@dataclass(frozen=True)
class Mismatch:
    """Two reports (or a report and a pinned revision) of different code."""

    first: str  # "gold 'Darwin Gödel Machine' at d88fdd65047e"
    second: str

    def line(self, hint: str = "--allow-mismatch") -> str:
        return f"{self.first} and {self.second} are not the same system and revision ({hint})"


def described(role: str, system: str | None, revs: set[str]) -> str:
    name = f" {system!r}" if system else ""
    at = " or ".join(sorted(r[:12] for r in revs)) if revs else "an unstated revision"
    return f"{role}{name} at {at}"


def mismatch(
    first: tuple[str, Report], second: tuple[str, Report | None], pinned: str | None = None
) -> Mismatch | None:
    """The mismatch between two reports (roles and reports), or None when they agree or
    cannot be told apart.  ``pinned`` stands in for the second report's revision (an
    epistemic run pins its revision before it has a report)."""
    role_a, a = first
    role_b, b = second
    revs_a = revisions(a)
    revs_b = {pinned.lower()} if pinned else (revisions(b) if b is not None else set())
    if not revs_a or not revs_b:
        return None
    if any(_same(x, y) for x in revs_a for y in revs_b):
        return None
    return Mismatch(
        described(role_a, a.system, revs_a),
        described(role_b, b.system if b is not None else None, revs_b),
    )


def enforce(found: Mismatch | None, allow: bool) -> None:
    """Refuse a mismatch (bad input, one line, exit 2), or with ``--allow-mismatch`` say
    it on stderr and go on."""
    if found is None:
        return
    if not allow:
        raise BadInput(found.line("give --allow-mismatch to go on anyway"))
    said = visible(found.line("going on: --allow-mismatch"), keep_newlines=False)
    click.echo(f"drafter: warning: {said}", err=True)
