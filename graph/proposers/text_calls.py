"""A tool call written as JSON in the answer's text, recovered — strictly.

Why: Anthropic-compatible local servers may ignore ``tool_choice`` (Ollama documents
it as unsupported), and a local model then sometimes answers a turn that had to call
a tool with text — often the very call, as a JSON object in a code fence.  Throwing
that answer away costs a record; accepting any JSON would let prose that happens to
hold braces become a submission.  So an object is accepted only when it is

- a **named call** of an offered tool: ``{"name": "read_file", "input": {...}}`` (or
  ``"arguments"``/``"parameters"``, as an object or a JSON string) — the shapes local
  models print when their server did not parse the call; or
- the **terminal tool's input itself** (``submit_record``'s fields and nothing else):
  every key a property of the tool's schema, every required key present, at least one
  key, and the tool's pydantic model validates it.

A bare object is never taken as an investigation call: ``{"path": "a.py"}`` would fit
``read_file`` and ``survey`` alike.  When several objects qualify, the last one wins
(a model that thinks aloud ends with its answer).  Only fenced blocks and the first
:data:`MAX_OBJECTS` opening braces are tried, over at most :data:`MAX_TEXT` characters,
so a hostile or huge answer costs bounded time.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from graph.jsontypes import JsonDict

MAX_TEXT = 200_000
MAX_OBJECTS = 200
_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n(.*?)```", re.DOTALL)
_ARG_KEYS = ("input", "arguments", "parameters")


@dataclass(frozen=True)
class TextCall:
    """A recovered call, shaped like an SDK ``tool_use`` block where the loop reads it."""

    id: str
    name: str
    input: JsonDict = field(default_factory=dict)
    type: str = "tool_use"

    def block(self) -> JsonDict:
        return {"type": "tool_use", "id": self.id, "name": self.name, "input": self.input}


def json_objects(text: str) -> list[JsonDict]:
    """JSON objects in ``text``: fenced blocks first, then bare ones, in order of
    appearance within each kind (bounded; see the module docstring)."""
    text = text[:MAX_TEXT]
    found: list[JsonDict] = []
    decoder = json.JSONDecoder()
    for m in _FENCE.finditer(text):
        body = m.group(1).strip()
        try:
            value = json.loads(body)
        except ValueError:
            continue
        if isinstance(value, dict):
            found.append(value)
    bare = _FENCE.sub(" ", text)
    tried = 0
    i = bare.find("{")
    while i != -1 and tried < MAX_OBJECTS:
        tried += 1
        try:
            value, end = decoder.raw_decode(bare, i)
        except ValueError:
            i = bare.find("{", i + 1)
            continue
        if isinstance(value, dict):
            found.append(value)
        i = bare.find("{", end)
    return found


def _named(obj: JsonDict, offered: set[str]) -> tuple[str, JsonDict] | None:
    name = obj.get("name") if isinstance(obj.get("name"), str) else obj.get("tool")
    if not isinstance(name, str) or name not in offered:
        return None
    if set(obj) - {"name", "tool", "type", "id", *_ARG_KEYS}:
        return None
    args: Any = next((obj[k] for k in _ARG_KEYS if k in obj), {})
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            return None
    return (name, args) if isinstance(args, dict) else None


def matches_schema(obj: JsonDict, tool_def: JsonDict, model: type[BaseModel]) -> bool:
    """True when ``obj`` is exactly an input of this tool (see the module docstring)."""
    schema = tool_def.get("input_schema") or {}
    props = set(schema.get("properties") or {})
    if not obj or set(obj) - props or set(schema.get("required") or []) - set(obj):
        return False
    try:
        model.model_validate(obj)
    except ValidationError:
        return False
    return True


def recover_call(
    content: list[Any],
    offered: list[JsonDict],
    terminal: JsonDict,
    terminal_model: type[BaseModel],
    call_id: str,
) -> TextCall | None:
    """The tool call a text-only answer holds, if one qualifies; else None.

    ``content`` is the answer's blocks (SDK objects or dicts), ``offered`` the tool
    definitions of the request, ``terminal`` the one that ends the conversation."""
    texts = []
    for b in content:
        kind = b.get("type") if isinstance(b, dict) else getattr(b, "type", None)
        text = b.get("text") if isinstance(b, dict) else getattr(b, "text", None)
        if kind == "text" and isinstance(text, str):
            texts.append(text)
    names = {str(t["name"]) for t in offered} | {str(terminal["name"])}
    best: TextCall | None = None
    for obj in json_objects("\n".join(texts)):
        named = _named(obj, names)
        if named is not None:  # labelled by the model: the loop validates its input
            best = TextCall(call_id, *named)
        elif matches_schema(obj, terminal, terminal_model):
            best = TextCall(call_id, str(terminal["name"]), obj)
    return best
