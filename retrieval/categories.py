"""The survey's categories, in a module that imports nothing heavy.

Why apart from :mod:`retrieval.survey.model`: ``drafter survey --help`` lists the
categories as the choices of ``--category``, and ``drafter --help`` loads every command
module; importing the survey model for that would load pydantic and tree-sitter.
:mod:`retrieval.survey.model` re-exports both names, so callers are unchanged.
"""

from __future__ import annotations

from enum import StrEnum


class Category(StrEnum):
    """What a finding is about, in the order the survey table shows them.

    A ``StrEnum``: a member *is* its string, so comparisons with plain strings, JSON
    output and cached surveys read back from JSON are unchanged, while code that
    names a category gets a checked name instead of a free string.
    """

    ENTRY_POINT = "entry_point"
    MODEL_CALL = "model_call"
    TOOL_DISPATCH = "tool_dispatch"
    EXEC_EFFECT = "exec_effect"
    PERSISTENCE = "persistence"
    READ_BACK = "read_back"
    #: In-memory state an agent loop carries between turns (a class's Map of approvals,
    #: its message list, a state class that serializes itself): no file, but the
    #: operative object of a run all the same.
    STATE = "state"
    PROMPT = "prompt"
    MODEL_LOOP = "model_loop"
    GATING = "gating"
    CONFIG_READ = "config_read"
    CLAIM = "claim"


#: Categories in the order the survey table shows them (their string values).
CATEGORIES: tuple[str, ...] = tuple(c.value for c in Category)
