"""What the record tool's schema tells the model: the field names it must use, what
part_of means and when a line range is needed (a relay run with a reasoner found each
of these unsaid or contradicted by the system text)."""

from __future__ import annotations

import json

from drafter.model import ROUTE_FIELDS
from graph.proposers.agent.schema import RecordDraft


def _descriptions() -> dict[str, str]:
    props = RecordDraft.model_json_schema()["properties"]
    wit = RecordDraft.model_json_schema()["$defs"]["WitnessDraft"]["properties"]
    return {
        "fields": props["fields"]["description"],
        "part_of": props["part_of"]["description"],
        "start_line": wit["start_line"]["description"],
    }


def test_the_schema_names_every_route_field_and_says_nine_with_the_statuses() -> None:
    text = _descriptions()["fields"]
    for name in ROUTE_FIELDS:
        assert name in text
    assert "nine" in text  # agrees with the system text's "nine named fields"


def test_part_of_says_what_it_points_at() -> None:
    assert "route" in _descriptions()["part_of"]


def test_the_line_range_is_said_to_matter_for_a_repeated_quote() -> None:
    text = _descriptions()["start_line"]
    assert "more than once" in text and "ambiguous" in text
    json.dumps(text)  # plain text, no markup needed
