"""The one name for JSON-shaped values in graph/: checkpointed state, Messages API
requests and answers, usage entries, search hits.

Their values are whatever JSON holds, so they stay untyped, but in one place: every
other ``Any`` in graph/ is a question for review, and this alias is the answer for
the JSON ones (pydantic models and dataclasses type the rest).
"""

from __future__ import annotations

from typing import Any, TypeAlias

#: A JSON object: keys known per use, values as JSON (and the SDK) give them.
JsonDict: TypeAlias = dict[str, Any]
