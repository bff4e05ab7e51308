"""Decisions made while the review's database is unreachable, kept on this machine.

Why a file and not a list in memory: the analyst may quit (or the terminal may die)
before the server is back; the decisions are theirs and must not be lost.  Each entry
is one JSON line written and fsynced before the screen shows the decision.  Entries
carry the decision's uid, and the log stores a uid once, so sending the outbox again
after a failure half-way stores nothing twice.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from drafter.review_fold import Action, DecisionRow, DecisionSource


def outbox_path(locator: str, root: Path) -> Path:
    """``<data dir>/outbox/<hash of the locator>.jsonl`` (the name shows no password)."""
    return root / "outbox" / f"{hashlib.sha256(locator.encode()).hexdigest()[:16]}.jsonl"


def _row_dict(row: DecisionRow) -> dict[str, Any]:
    d = dataclasses.asdict(row)
    d["action"], d["source"] = row.action.value, row.source.value
    return d


def _row_of(d: dict[str, Any]) -> DecisionRow:
    d = dict(d)
    d["action"], d["source"] = Action(d["action"]), DecisionSource(d["source"])
    return DecisionRow(**d)


def _entry(op: str, item: DecisionRow | str) -> dict[str, Any]:
    if isinstance(item, DecisionRow):
        return {"op": op, "row": _row_dict(item)}
    return {"op": op, "uid": item}


class Outbox:
    """Pending operations, oldest first: ("append", row) or ("undo", uid)."""

    def __init__(self, path: Path):
        self.path = path
        self.ops: list[tuple[str, DecisionRow | str]] = []
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    obj = json.loads(line)
                    if obj["op"] == "append":
                        self.ops.append(("append", _row_of(obj["row"])))
                    elif obj["op"] == "undo":
                        self.ops.append(("undo", str(obj["uid"])))
                except (ValueError, KeyError, TypeError):
                    continue  # a line cut by a crash mid-write: it was never shown as kept

    def __len__(self) -> int:
        return len(self.ops)

    def add(self, op: str, item: DecisionRow | str) -> None:
        obj = _entry(op, item)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(obj, ensure_ascii=False) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        self.ops.append((op, item))

    def drop_append(self, uid: str) -> bool:
        """Forget a queued decision not yet sent (undone before it left); True if found."""
        kept = [(o, i) for o, i in self.ops if not (isinstance(i, DecisionRow) and i.uid == uid)]
        if len(kept) == len(self.ops):
            return False
        self.ops = kept
        self._rewrite()
        return True

    def clear(self) -> None:
        self.ops = []
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass

    def _rewrite(self) -> None:
        if not self.ops:
            self.clear()
            return
        tmp = self.path.with_suffix(".tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            for op, item in self.ops:
                fh.write(json.dumps(_entry(op, item), ensure_ascii=False) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.path)
