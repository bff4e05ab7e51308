"""Locate every witness of a report at the pinned revision, once, with the real verifier.

Why a separate step: alignment (witness overlap between two records) and the witness
metrics (recall, precision, validity) all need the same answer to "where in the
revision is this quote?".  Asking the verifier once per witness and keeping the answer
beside the record it came from keeps both consistent and the run cheap.

The verifier is the project's one authority on whether a quote is there; evals never
second-guesses it with a looser match of its own.
"""

from __future__ import annotations

import hashlib
import posixpath
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal

from drafter.model import LineRange, Report, Verification, VerifyStatus, Witness

#: Statuses that mean "this quote exists at the revision".  ``ambiguous`` quotes occur
#: more than once: they exist (so a gold one counts towards recall) but are not
#: verified (so a draft one does not count as valid).
PRESENT_STATUSES = frozenset({VerifyStatus.verified, VerifyStatus.ambiguous})

#: Pseudo-kind for witnesses quoted in the account rather than in a record.
ACCOUNT = "account"

Locate = Callable[[Witness], Verification]

#: A quote's text as a set of hashed lines (see :func:`fingerprint`).
Fingerprint = Callable[[Witness], frozenset[str]]

#: Quote lines shorter than this (after whitespace is collapsed) are too common --
#: ``return x``, ``)``, ``else:`` -- to say that two quotes are the same text.
MIN_TEXT_LINE = 16


def fingerprint(quote: str) -> frozenset[str]:
    """Hashes of the quote's lines with whitespace collapsed, long lines only.

    Why hashes: labelled pairs keep this beside a redacted draft (evals.located), so
    it must say "same text" without carrying the text.
    """
    out: set[str] = set()
    for line in quote.splitlines():
        norm = " ".join(line.split())
        if len(norm) >= MIN_TEXT_LINE:
            out.add(hashlib.sha256(norm.encode()).hexdigest()[:16])
    return frozenset(out)


def quote_fingerprint(w: Witness) -> frozenset[str]:
    """The default :data:`Fingerprint`: computed from the witness's own quote."""
    return fingerprint(w.quote)


#: How near a witness lands on others: on overlapping lines, only in the same file,
#: or neither.  Alignment weighs it as a number, the metrics report it as a word.
Landing = Literal["line", "file"] | None


@dataclass(slots=True)
class LocatedWitness:
    """A witness, who quoted it, and where the verifier found it (if anywhere)."""

    witness: Witness
    owner: str  # record ID, or ACCOUNT
    kind: str  # record kind key ("RT-RTE", "EPI-OBJ") or ACCOUNT
    verification: Verification
    record_index: int | None = None  # position in Report.records; None for the account
    #: Hashed quote lines (:func:`fingerprint`); empty when unknown.
    text: frozenset[str] = frozenset()

    @property
    def anchor(self) -> str:
        """``path:start-end`` where located, else the path as cited."""
        span = self.span
        return f"{self.path}:{span}" if span else self.witness.anchor

    @property
    def status(self) -> VerifyStatus:
        return self.verification.status

    @property
    def present(self) -> bool:
        """The quote exists in the revision (possibly more than once)."""
        return self.verification.status in PRESENT_STATUSES

    @property
    def verified(self) -> bool:
        return self.verification.status == VerifyStatus.verified

    @property
    def path(self) -> str:
        return self.witness.path

    @property
    def span(self) -> LineRange | None:
        """Lines the quote occupies at the revision; None when unknown or absent."""
        if not self.present:
            return None
        return self.verification.lines or self.witness.lines

    def same_file(self, other: LocatedWitness) -> bool:
        return self.present and other.present and self.path == other.path

    def overlaps(self, other: LocatedWitness) -> bool:
        """Same file and overlapping line spans, both located."""
        a, b = self.span, other.span
        return self.same_file(other) and a is not None and b is not None and a.overlaps(b)

    def equivalent(self, other: LocatedWitness) -> bool:
        """The same quoted text in a sibling copy: another path with the same file name
        (``_arc/search.py`` for ``_mgsm/search.py``), both located, sharing at least one
        long quote line.

        Why: a system that repeats one pattern in near-identical folders can be
        witnessed from any copy; an analyst accepts the draft's copy, an exact line
        match does not.  Equivalent hits are counted apart from exact ones.
        """
        return (
            self.present
            and other.present
            and self.path != other.path
            and posixpath.basename(self.path) == posixpath.basename(other.path)
            and not self.text.isdisjoint(other.text)
        )

    def landing(self, others: Iterable[LocatedWitness]) -> Landing:
        """The nearest this witness comes to any of ``others``: ``"line"`` as soon as one
        overlaps it, else ``"file"`` when one is in the same file, else None."""
        best: Landing = None
        for o in others:
            if self.overlaps(o):
                return "line"
            if self.same_file(o):
                best = "file"
        return best


@dataclass(slots=True)
class ReportWitnesses:
    """Located witnesses of one report: the account's and each record's, in order."""

    account: list[LocatedWitness] = field(default_factory=list)
    by_record: list[list[LocatedWitness]] = field(default_factory=list)

    def all(self) -> list[LocatedWitness]:
        out = list(self.account)
        for ws in self.by_record:
            out.extend(ws)
        return out


def kind_key(record_id: str) -> str:
    """``RT-RTE-x`` -> ``RT-RTE``: records align only within the same prefix and kind."""
    prefix, kind, _ = record_id.split("-", 2)
    return f"{prefix}-{kind}"


def locate_report(
    report: Report,
    locate: Locate,
    progress: Callable[[], None] | None = None,
    text: Fingerprint = quote_fingerprint,
) -> ReportWitnesses:
    """Verify every witness of ``report`` and keep the verdict beside its owner
    (``text`` gives each quote's fingerprint; saved pairs read it from a file)."""
    out = ReportWitnesses()
    for section in report.account:
        for w in section.witnesses:
            out.account.append(LocatedWitness(w, ACCOUNT, ACCOUNT, locate(w), text=text(w)))
            if progress:
                progress()
    for index, rec in enumerate(report.records):
        located: list[LocatedWitness] = []
        for w in rec.witnesses:
            located.append(
                LocatedWitness(w, rec.id, kind_key(rec.id), locate(w), index, text=text(w))
            )
            if progress:
                progress()
        out.by_record.append(located)
    return out


def witness_count(report: Report) -> int:
    return len(report.witnesses)
