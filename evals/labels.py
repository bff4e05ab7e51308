"""Hand-labelled alignments: which draft record answers which gold record, and how well
the automatic alignment agrees.

Why: the record scores of ``drafter eval`` are only as good as its pairing of draft
records with gold records, and nobody can tell a good pairing from a bad one without
an analyst's answer to compare with.  A label file is that answer for one saved draft
and one gold report; :func:`check_alignment` scores an alignment against it.

Label file (JSON)::

    {
      "name": "auto-harness-bf052bc-offline",
      "gold": "auto-harness.runtime.txt",            # a gold file name, or "sample"
      "draft": "auto-harness-bf052bc.offline.json",  # beside the label file
      "repository": "github:neosigmaai/auto-harness", "revision": "<40 hex>",
      "draft_records": {
        "RT-RTE-y": {"gold": ["RT-RTE-x"], "why": "..."},   # first = best answer
        "RT-OBJ-w": {"gold": [], "why": "no gold record says this"}
      }
    }

Every draft record is labelled with the gold records it answers, best first, or with
none; a label file that forgets a draft record is refused, so a silent gap cannot
flatter a score.  Several draft records may answer one gold record (the draft split
it), a draft record may answer a gold record of another kind, and a draft record that
lumps several gold records together lists them all: a link to any of them is right.

The analysts' shared labels (``../shared/labels/``) are written the other way round,
one entry per **gold** record, and that form is read too::

      "gold_records": [
        {"gold": "RT-RTE-x", "best": "RT-RTE-y", "also": ["RT-OBJ-w"]},   # covered
        {"gold": "RT-CLM-z", "best": null, "also": []}                    # not covered
      ]

There every gold record must be labelled (a forgotten one is refused) and a draft
record no entry names covers nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from drafter.errors import BadInput
from drafter.model import Report
from evals.alignment import KindAlignment


@dataclass(frozen=True, slots=True)
class LabelSet:
    """One labelled draft/gold pair."""

    name: str
    path: Path
    gold: str
    draft: str
    repository: str
    revision: str
    answers: dict[str, tuple[str, ...]]  # draft ID -> acceptable gold IDs (empty: none)
    #: Gold records labelled one by one (the gold-record form); None in the draft form.
    gold_labelled: frozenset[str] | None = None

    @property
    def links(self) -> set[tuple[str, str]]:
        """Every (gold ID, draft ID) the labels accept: the draft record covers (part
        of) the gold record."""
        return {(g, d) for d, gs in self.answers.items() for g in gs}

    @property
    def draft_path(self) -> Path:
        return self.path.parent / self.draft

    @property
    def gold_answered(self) -> set[str]:
        """Gold records some draft record answers."""
        return {g for gs in self.answers.values() for g in gs}

    def gold_path(self, gold_dir: Path) -> Path:
        """The gold report: the packaged sample gold, or a file in ``gold_dir``."""
        if self.gold == "sample":
            from evals.gold import sample_gold_path

            return sample_gold_path()
        return gold_dir / self.gold


def load_labels(path: Path) -> LabelSet:
    """Read a label file; structural problems are one-line BadInput errors."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise BadInput(f"{path}: cannot read labels: {exc.strerror or exc}") from None
    except (ValueError, RecursionError) as exc:  # a 5,000-digit number is a ValueError too
        from drafter.reportio import json_problem

        raise BadInput(f"{path}: cannot read labels: {json_problem(exc)}") from None
    if not isinstance(data, dict):
        raise BadInput(f"{path}: labels must be a JSON object")
    if "labels" in data and "gold_records" not in data:
        # the analysts' shared form: "labels" for "gold_records", named by its file
        data = {**data, "gold_records": data["labels"]}
        data.setdefault("name", path.name.removesuffix(".labels.json"))
        data.setdefault("revision", "")
    for key in ("name", "gold", "draft", "revision"):
        if not isinstance(data.get(key), str):
            raise BadInput(f"{path}: missing string '{key}'")
    if "gold_records" in data:
        return _load_gold_form(path, data)
    records = data.get("draft_records")
    if not isinstance(records, dict) or not records:
        raise BadInput(f"{path}: 'draft_records' must be a non-empty object")
    answers: dict[str, tuple[str, ...]] = {}
    for rid, entry in records.items():
        gold = entry.get("gold") if isinstance(entry, dict) else None
        if not isinstance(gold, list) or not all(isinstance(g, str) for g in gold):
            raise BadInput(f"{path}: {rid}: 'gold' must be a list of record IDs")
        answers[rid] = tuple(gold)
    return LabelSet(
        name=data["name"],
        path=path,
        gold=data["gold"],
        draft=data["draft"],
        repository=str(data.get("repository", "")),
        revision=data["revision"],
        answers=answers,
    )


def _load_gold_form(path: Path, data: dict[str, Any]) -> LabelSet:
    """The gold-record form: one entry per gold record (best, also)."""
    entries = data["gold_records"]
    if not isinstance(entries, list) or not entries:
        raise BadInput(f"{path}: 'gold_records' must be a non-empty list")
    answers: dict[str, list[str]] = {}
    labelled: set[str] = set()
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("gold"), str):
            raise BadInput(f"{path}: each gold_records entry needs a string 'gold'")
        best, also = entry.get("best"), entry.get("also", [])
        if best is not None and not isinstance(best, str):
            raise BadInput(f"{path}: {entry['gold']}: 'best' must be a record ID or null")
        if not isinstance(also, list) or not all(isinstance(a, str) for a in also):
            raise BadInput(f"{path}: {entry['gold']}: 'also' must be a list of record IDs")
        if entry["gold"] in labelled:
            raise BadInput(f"{path}: {entry['gold']} is labelled twice")
        labelled.add(entry["gold"])
        for d in ([best] if best else []) + also:
            answers.setdefault(d, []).append(entry["gold"])
    return LabelSet(
        name=data["name"],
        path=path,
        gold=data["gold"],
        draft=data["draft"],
        repository=str(data.get("repository", "")),
        revision=data["revision"],
        answers={d: tuple(gs) for d, gs in answers.items()},
        gold_labelled=frozenset(labelled),
    )


def check_complete(labels: LabelSet, gold: Report, draft: Report) -> None:
    """Every draft record (draft form) or every gold record (gold form) is labelled,
    and every labelled ID exists on its side."""
    draft_ids = [r.id for r in draft.records]
    gold_ids = {r.id for r in gold.records}
    if len(set(draft_ids)) != len(draft_ids):
        raise BadInput(f"{labels.path}: the draft repeats record IDs")
    if labels.gold_labelled is not None:
        forgotten: set[str] = gold_ids - labels.gold_labelled
        if forgotten:
            raise BadInput(f"{labels.path}: unlabelled gold ID(s) {', '.join(sorted(forgotten))}")
        strange = labels.gold_labelled - gold_ids
        if strange:
            raise BadInput(f"{labels.path}: unknown gold ID(s) {', '.join(sorted(strange))}")
        unknown = set(labels.answers) - set(draft_ids)
        if unknown:
            raise BadInput(f"{labels.path}: unknown draft ID(s) {', '.join(sorted(unknown))}")
        return
    missing = set(draft_ids) - set(labels.answers)
    if missing:
        raise BadInput(f"{labels.path}: unlabelled draft ID(s) {', '.join(sorted(missing))}")
    unknown = set(labels.answers) - set(draft_ids)
    if unknown:
        raise BadInput(f"{labels.path}: unknown draft ID(s) {', '.join(sorted(unknown))}")
    bad_gold = labels.gold_answered - gold_ids
    if bad_gold:
        raise BadInput(f"{labels.path}: unknown gold ID(s) {', '.join(sorted(bad_gold))}")


def predicted_links(alignment: dict[str, KindAlignment]) -> set[tuple[str, str]]:
    """(gold ID, draft ID) of every pair an alignment made."""
    return {(p.gold.id, p.draft.id) for ka in alignment.values() for p in ka.pairs}


@dataclass(frozen=True, slots=True)
class AlignmentCheck:
    """An alignment scored against labels.

    precision   = links made that the labels accept / links made
    link recall = links the labels accept that were made / links the labels accept
                  (the leave-one-system-out figure: with coverage a draft record
                  covering two gold records must be linked to both)
    recall      = draft records with an answer whose link is accepted / draft records
                  with an answer
    gold recall = gold records reached by an accepted link / gold records some draft
                  record answers
    """

    name: str
    made: int
    correct: int
    answering: int
    answering_found: int
    gold_answered: int
    gold_found: int
    wrong: tuple[tuple[str, str], ...]
    missed: tuple[str, ...]
    labelled: int = 0  # links the labels accept

    @property
    def link_recall(self) -> float | None:
        return self.correct / self.labelled if self.labelled else None

    @property
    def precision(self) -> float | None:
        return self.correct / self.made if self.made else None

    @property
    def recall(self) -> float | None:
        return self.answering_found / self.answering if self.answering else None

    @property
    def gold_recall(self) -> float | None:
        return self.gold_found / self.gold_answered if self.gold_answered else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "links_made": self.made,
            "links_correct": self.correct,
            "precision": self.precision,
            "recall": self.recall,
            "links_labelled": self.labelled,
            "link_recall": self.link_recall,
            "gold_recall": self.gold_recall,
            "wrong": [list(x) for x in self.wrong],
            "missed": list(self.missed),
        }


def check_alignment(labels: LabelSet, made: set[tuple[str, str]]) -> AlignmentCheck:
    """Score links (gold ID, draft ID) against the labels."""
    right = {(g, d) for g, d in made if g in labels.answers.get(d, ())}
    answering = {d for d, gs in labels.answers.items() if gs}
    found = {d for _, d in right}
    return AlignmentCheck(
        name=labels.name,
        made=len(made),
        correct=len(right),
        answering=len(answering),
        answering_found=len(found & answering),
        gold_answered=len(labels.gold_answered),
        gold_found=len({g for g, _ in right}),
        wrong=tuple(sorted(made - right)),
        missed=tuple(sorted(answering - found)),
        labelled=len(labels.links),
    )
