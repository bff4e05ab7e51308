"""The defaults several commands share, each named once.

Why one module: ``drafter draft``, ``drafter demo``, the offline runner, the redraft
command, the run configuration and the offline proposer's limits all need the same
numbers, and the CLI help states them.  A number written in five places drifts (the
record cap once had three values); read from here, the help cannot disagree with
what a run does.
"""

from __future__ import annotations

#: Records a Claude draft plans at most.
MODEL_MAX_RECORDS = 40
#: Records an offline draft plans at most: sized for one analyst's review.
OFFLINE_MAX_RECORDS = 25
#: Records an offline ``--thorough`` draft (the long form) plans at most.
THOROUGH_MAX_RECORDS = 150

#: Witnesses an offline record quotes at most, in the short and the long form.
OFFLINE_WITNESSES = 3
THOROUGH_WITNESSES = 8

#: Rounds of repair a record gets after a failed verification.
REPAIR_ROUNDS = 2
#: Records drafted at once.
CONCURRENCY = 4

#: Tool calls each Claude conversation may make before it must submit.
PLAN_TOOL_CALLS = 15
RECORD_TOOL_CALLS = 12
REPAIR_TOOL_CALLS = 6
ACCOUNT_TOOL_CALLS = 10

#: A current Claude model that the installed anthropic SDK lists and does not mark
#: deprecated (anthropic._data.DEPRECATED_MODELS); a mid-tier model because a draft
#: makes dozens of calls and a judged eval one per reference record.  ``--model`` or
#: $DRAFTER_MODEL override it.
MODEL = "claude-sonnet-5-5"

#: USD a Claude draft may spend when ``--max-cost`` is not given (the README's design
#: notes say how it was chosen); at the cap the run stops cleanly with a partial draft
#: that lists what is missing.
MAX_COST_USD = 15.0


def max_records(generator: str, thorough: bool = False) -> int:
    """The record cap of a run with ``generator`` when the user names none."""
    if generator != "offline":
        return MODEL_MAX_RECORDS
    return THOROUGH_MAX_RECORDS if thorough else OFFLINE_MAX_RECORDS


#: Bytes of per-record text a Claude record's first request may carry (the run setting
#: ``record_context_bytes``): an unbudgeted context grows with the findings repeated
#: across near-identical sibling folders, not with what the record needs.
DEFAULT_RECORD_CONTEXT_BYTES = 16_384
