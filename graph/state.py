"""The workflow's checkpointed state.

Everything here is plain JSON-able data (dicts, lists, strings) so that a SqliteSaver
checkpoint can be read back by a fresh process on ``--resume`` without depending on
pickled classes.  Records travel as ``Record.model_dump(mode="json")`` dicts and are
re-validated by whichever node reads them.

Fields written by parallel record nodes use merging reducers: ``drafts`` and
``outcomes`` are keyed by plan-item ID, ``usage`` and ``missing`` are appended.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict


def merge_dicts(left: dict[str, Any] | None, right: dict[str, Any] | None) -> dict[str, Any]:
    """Right wins per key: a repair replaces the record it repaired."""
    out = dict(left or {})
    out.update(right or {})
    return out


class DraftState(TypedDict, total=False):
    # inputs
    repo: str
    rev: str
    system: str | None
    settings: dict[str, Any]  # graph.configuration.Configuration.to_dict()
    thread_id: str
    out: str | None  # where the CLI writes the draft; lets --resume omit --out
    # resolve_snapshot
    sha: str
    identity: str
    files: list[str]
    # ensure_index / survey: short summaries only; the objects live in Resources
    index_info: dict[str, Any]
    survey_info: dict[str, Any]
    # plan
    plan: dict[str, Any]
    # draft_record / repair (parallel writers)
    drafts: Annotated[dict[str, dict[str, Any] | None], merge_dicts]
    outcomes: Annotated[dict[str, dict[str, Any]], merge_dicts]
    # verify: misses awaiting repair, by item ID; replaced by each verify pass
    pending: dict[str, list[dict[str, Any]]]
    round: int
    # account
    account: list[dict[str, Any]]
    account_dropped: int  # witnesses the account verifier dropped (DraftCounts)
    # everyone
    usage: Annotated[list[dict[str, Any]], operator.add]
    missing: Annotated[list[str], operator.add]
    notes: Annotated[list[str], operator.add]
    # assemble
    report: dict[str, Any]


class RecordTask(TypedDict, total=False):
    """What a Send hands to one draft_record or repair invocation."""

    item: dict[str, Any]
    plan: dict[str, Any]
    record: dict[str, Any] | None
    misses: list[dict[str, Any]]
    round: int
