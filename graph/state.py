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
from typing import Annotated, TypedDict

from graph.jsontypes import JsonDict


def merge_dicts(left: JsonDict | None, right: JsonDict | None) -> JsonDict:
    """Right wins per key: a repair replaces the record it repaired."""
    out = dict(left or {})
    out.update(right or {})
    return out


class DraftState(TypedDict, total=False):
    # inputs
    repo: str
    rev: str
    system: str | None
    settings: JsonDict  # graph.configuration.Configuration.to_dict()
    thread_id: str
    out: str | None  # where the CLI writes the draft; lets --resume omit --out
    # resolve_snapshot
    sha: str
    identity: str  # the repository as the report names it (Snapshot.name), not a key
    files: list[str]
    # ensure_index / survey: short summaries only; the objects live in Resources
    index_info: JsonDict
    survey_info: JsonDict
    # plan
    plan: JsonDict
    # draft_record / repair (parallel writers)
    drafts: Annotated[dict[str, JsonDict | None], merge_dicts]
    outcomes: Annotated[dict[str, JsonDict], merge_dicts]
    # verify: misses awaiting repair, by item ID; replaced by each verify pass
    pending: dict[str, list[JsonDict]]
    round: int
    # account
    account: list[JsonDict]
    account_dropped: int  # witnesses the account verifier dropped (DraftCounts)
    plan_failed: bool  # the proposer gave no plan (DraftCounts)
    # everyone
    usage: Annotated[list[JsonDict], operator.add]
    missing: Annotated[list[str], operator.add]
    notes: Annotated[list[str], operator.add]
    # assemble
    report: JsonDict


class RecordTask(TypedDict, total=False):
    """What a Send hands to one draft_record or repair invocation."""

    item: JsonDict
    plan: JsonDict
    record: JsonDict | None
    misses: list[JsonDict]
    round: int
