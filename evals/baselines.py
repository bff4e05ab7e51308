"""Trivial drafts scored on the same gold, so every figure has something to beat.

Why: a status agreement of 0.9 means nothing if answering "wired / uninspected"
everywhere also gets 0.9, and a file recall of 0.95 means little if quoting one line
of every entry point gets 0.9.  Three baselines, each evaluated exactly like a draft:

* ``constant status`` -- the draft's own pairs, but every paired draft record answers
  the constant (implementation ``wired``, operation ``uninspected``) and says nothing
  else.  Only status, route and lead agreement apply (record and witness figures
  would be the draft's own).
* ``entry points``    -- one route per entry point the static survey finds, quoting
  its line, with the constant statuses.
* ``random witnesses``-- as many records of each kind as the draft, each with as many
  witnesses, every witness a random non-blank line of a random text file at the
  revision (seeded, so the figure is reproducible), text taken from the quote.
"""

from __future__ import annotations

import random

from drafter.model import (
    KIND_SECTION,
    Block,
    Bullet,
    LineRange,
    Paragraph,
    Record,
    RecordSection,
    Report,
    ReportType,
    Source,
    Witness,
    WitnessBlock,
)
from drafter.snapshot import Snapshot
from retrieval.survey.model import Category

CONSTANT = {
    "implementation conclusion status": "wired",
    "operation conclusion status": "uninspected",
}
SEED = 14
#: Files larger than this are not drawn from (generated data, vendored bundles).
MAX_FILE_BYTES = 200_000
CONSTANT_STATUS = "constant status"
ENTRY_POINTS = "entry points"
RANDOM_WITNESSES = "random witnesses"
NAMES = (CONSTANT_STATUS, ENTRY_POINTS, RANDOM_WITNESSES)
#: Scores a pair-substitution baseline can speak for; the rest are left empty.
CONSTANT_SCORES = frozenset({"status_agreement", "route_agreement", "lead_agreement"})


def constant_record(rec: Record) -> Record:
    """``rec`` answering only the constant statuses (label and witnesses kept)."""
    blocks: list[Block] = [Bullet(name=k, value=v) for k, v in CONSTANT.items()]
    blocks += [b for b in rec.blocks if isinstance(b, WitnessBlock)]
    return Record(id=rec.id, label=rec.label, blocks=blocks)


def _report(system: str, records: list[Record], sha: str, identity: str) -> Report:
    sections: dict[str, RecordSection] = {}
    for r in records:
        title = KIND_SECTION[r.kind]
        sections.setdefault(title, RecordSection(title=title)).records.append(r)
    return Report(
        system=system,
        type=ReportType.runtime,
        source=Source(repository=identity, revision=sha),
        sections=list(sections.values()),
    )


def _statuses() -> list[Bullet]:
    return [Bullet(name=k, value=v) for k, v in CONSTANT.items()]


def entry_point_draft(snapshot: Snapshot) -> Report:
    """One route record per surveyed entry point, quoting its first line."""
    from retrieval.survey import run_survey

    survey = run_survey(snapshot)
    records: list[Record] = []
    for n, f in enumerate(survey.index().category(Category.ENTRY_POINT), 1):
        line = f.snippet.splitlines()[0].strip() if f.snippet.strip() else ""
        if not line:
            continue
        records.append(
            Record(
                id=f"RT-RTE-entry-{n}",
                label=f"Entry point {f.symbol} in {f.path}",
                blocks=[
                    Paragraph(text=f"Endpoints/progression: caller → {f.path} ({f.kind})."),
                    *_statuses(),
                    WitnessBlock(
                        witness=Witness(
                            quote=line,
                            path=f.path,
                            lines=LineRange(start=f.start_line, end=f.start_line),
                        )
                    ),
                ],
            )
        )
    return _report("entry-point baseline", records, snapshot.sha, snapshot.name)


def _text_files(snapshot: Snapshot) -> list[str]:
    return sorted(
        e.path for e in snapshot.entries() if e.is_regular and 0 < e.size <= MAX_FILE_BYTES
    )


def _random_line(snapshot: Snapshot, files: list[str], rng: random.Random) -> Witness | None:
    """A random non-blank line (8+ characters) of a random text file; None if none found."""
    for _ in range(50):
        path = rng.choice(files)
        tf = snapshot.read_text(path)
        if tf.binary or tf.lossy:
            continue
        lines = [
            (i, s.strip()) for i, s in enumerate(tf.text.splitlines(), 1) if len(s.strip()) >= 8
        ]
        if lines:
            i, text = rng.choice(lines)
            return Witness(quote=text, path=path, lines=LineRange(start=i, end=i))
    return None


def random_witness_draft(draft: Report, snapshot: Snapshot, seed: int = SEED) -> Report:
    """Same kinds and witness counts as ``draft``; every quote a random line."""
    rng = random.Random(seed)
    files = _text_files(snapshot)
    records: list[Record] = []
    for n, rec in enumerate(draft.records, 1):
        witnesses = [_random_line(snapshot, files, rng) for _ in rec.witnesses] if files else []
        found = [w for w in witnesses if w is not None]
        head = found[0].quote if found else "nothing"
        records.append(
            Record(
                id=f"{rec.prefix}-{rec.kind}-random-{n}",
                label=f"Random line: {head[:60]}",
                blocks=[
                    Paragraph(text=" ".join(w.quote for w in found) or "nothing"),
                    *_statuses(),
                    *(WitnessBlock(witness=w) for w in found),
                ],
            )
        )
    return _report("random-witness baseline", records, snapshot.sha, snapshot.name)
