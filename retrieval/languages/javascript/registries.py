"""Tool registries in ES code: what is registered where, and where a handler is looked up.

Why: an agent loop rarely calls its tools by name.  It looks a tool up in a collection
(``tools.get(name)``, ``toolsByName[call.name]``, ``this.tools.find(t => t.name ===
name)``) and calls ``execute``/``invoke``/``run`` on what it finds, while the tools are
put into that collection elsewhere (``new Map([...])``, ``tools.set(...)``, an object
literal of handlers, an array of ``tool({...})`` declarations).  No call edge joins
the two, so a route from the loop stopped at the lookup.  The extractor records the
three halves as facts (:class:`~retrieval.languages.facts.SourceFile` ``handlers``,
``registrations`` and ``dispatches``); :mod:`retrieval.survey.dispatch` joins them
into call-graph edges through a node named as the dispatch.

Shapes, each an ordinary one of the language:
- a handler: a function under a handler key (``execute``, ``invoke``, ``run``...) of
  an object that declares a tool (it has a ``name`` and a description or schema, or is
  handed to a call), and every function value of an object literal bound to a registry
  name (``const handlers = { read_file: async () => ... }``);
- a registration: a value put into a collection whose name says it holds tools or
  handlers: ``R.set(k, v)``, ``R.push(v)``, ``R[k] = v``, ``R = new Map([[k, v]])``,
  ``R = [a, b]``, ``R = { k: v }``;
- a dispatch: ``R.get(k)``, ``R[k]`` or ``R.find(...)`` called or followed by a
  handler verb, directly or through a local variable bound to that lookup; and, when no
  lookup is in sight, a handler verb called on a value named as a tool or handler
  (``tool.invoke(...)``, ``prepared.tool.execute(...)``).
"""

from __future__ import annotations

import re

from tree_sitter import Node

from retrieval.languages.facts import Span
from retrieval.languages.facts import node_end_line as _end
from retrieval.languages.facts import node_line as _line
from retrieval.languages.facts import node_text as _text

#: Keys under which a tool declaration holds the function that runs it.
HANDLER_KEYS = frozenset({"execute", "invoke", "run", "handler", "handle", "call", "fn", "func"})
#: Methods a dispatcher calls on the handler it looked up.
DISPATCH_VERBS = frozenset({"execute", "invoke", "run", "handler", "handle", "call"})
#: Last names of a collection of tools or handlers: a plural (``tools``,
#: ``this.handlers``, ``extraTools``), a registry, or a one-word name with a collection
#: suffix (``toolsByName``, ``toolMap``, ``TOOL_HANDLERS``); ``shellTool`` is one tool.
REGISTRY_NAME = re.compile(
    r"(tools?|handlers?|executors?|commands?|actions?)_?(by_?[a-z]\w*|map|table|index)$"
    r"|(tools|handlers|executors|commands|actions|registry)$",
    re.I,
)
#: A value named as one tool or handler: ``tool``, ``prepared.tool``, ``fnTool``, ``handler``.
_HANDLER_VALUE = re.compile(r"(^|\.)(tool|handler|executor|[a-z]\w*(Tool|Handler|Executor))$")
#: Keys that make an object a tool declaration beside its ``name``.
_DECLARES = frozenset(
    {"description", "parameters", "inputSchema", "input_schema", "schema", "parametersJsonSchema"}
)
_ADDS = frozenset({"set", "push", "unshift", "add", "register"})
_LOOKUP = re.compile(
    r"^(?P<reg>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)"
    r"(?:\.(?:get|find)\(.*\)|\[[^\]]+\])(?:\.(?P<verb>\w+))?$",
    re.S,
)
_WRAPPERS = frozenset(
    {"await_expression", "non_null_expression", "as_expression", "parenthesized_expression"}
)
_WS = re.compile(r"\s+")


def flat(node: Node) -> str:
    """An expression's text on one line, optional chaining read as plain member access."""
    return _WS.sub("", _text(node)).replace("?.", ".").replace("!.", ".")


def is_registry(name: str) -> bool:
    """Does a collection's name (its last part) say it holds tools or handlers?"""
    return REGISTRY_NAME.search(name.rsplit(".", 1)[-1]) is not None


def unwrap(value: Node) -> Node:
    """The expression under ``await``, ``!``, ``as T`` and parentheses."""
    v = value
    while v.type in _WRAPPERS and v.named_children:
        v = v.named_children[0]
    if v.type == "binary_expression" and v.child_by_field_name("operator") is not None:
        op = _text(v.child_by_field_name("operator"))
        left = v.child_by_field_name("left")
        if op in ("??", "||") and left is not None:
            return unwrap(left)
    return v


def lookup_of(value: Node) -> str | None:
    """The registry a value is looked up in (``this.tools.get(name)`` -> ``this.tools``)."""
    m = _LOOKUP.match(flat(unwrap(value)))
    if m is None or m.group("verb") or not is_registry(m.group("reg")):
        return None
    return m.group("reg")


def dispatch_of(callee: str, lookups: dict[str, str]) -> tuple[str, str] | None:
    """(registry, verb) of a call that runs a handler picked from a registry; the
    registry is ``""`` when the handler is a value named as a tool with no lookup in sight.

    ``lookups``: local names bound to a lookup in the calling function, by name."""
    m = _LOOKUP.match(callee)
    if m is not None and is_registry(m.group("reg")):
        verb = m.group("verb") or ""
        if not verb or verb in DISPATCH_VERBS:
            return m.group("reg"), verb
        return None
    head, _, verb = callee.rpartition(".")
    if callee in lookups:
        return lookups[callee], ""
    if head in lookups and verb in DISPATCH_VERBS:
        return lookups[head], verb
    if head and verb in DISPATCH_VERBS and _HANDLER_VALUE.search(head):
        return "", verb
    return None


def registration(reg: str, value: Node, symbol: str) -> Span:
    """One value put into registry ``reg``: its span, and the name it refers to (an
    identifier, the class a ``new`` builds, the function a call makes it with)."""
    v = unwrap(value)
    ref = ""
    if v.type in ("identifier", "member_expression"):
        ref = flat(v)
    elif v.type == "spread_element" and v.named_children:
        ref = flat(v.named_children[0])
    elif v.type == "new_expression":
        ref = flat(v.child_by_field_name("constructor") or v)
    elif v.type == "call_expression":
        fn = v.child_by_field_name("function")
        ref = flat(fn) if fn is not None and fn.type in ("identifier", "member_expression") else ""
    extra = {"registry": reg, "value_type": v.type, "ref": ref}
    return Span(_text(v)[:200], _line(v), _end(v), symbol, extra)


def collection_values(value: Node) -> list[Node]:
    """The values a collection literal holds: a ``new Map([[k, v], ...])``'s values, an
    array's elements, an object's property values and methods."""
    v = unwrap(value)
    if v.type == "new_expression" and flat(v.child_by_field_name("constructor") or v) == "Map":
        args = v.child_by_field_name("arguments")
        first = args.named_children[0] if args is not None and args.named_children else None
        if first is None or first.type != "array":
            return []
        return [
            e.named_children[-1]
            for e in first.named_children
            if e.type == "array" and e.named_children
        ]
    if v.type == "array":
        return [e for e in v.named_children if e.type != "comment"]
    if v.type == "object":
        out: list[Node] = []
        for pair in v.named_children:
            if pair.type == "pair":
                val = pair.child_by_field_name("value")
                if val is not None:
                    out.append(val)
            elif pair.type in ("method_definition", "shorthand_property_identifier"):
                out.append(pair)
        return out
    return []


def added_values(callee: str, args: Node | None) -> tuple[str, list[Node]] | None:
    """(registry, values) of ``R.set(k, v)``, ``R.push(a, b)``, ``R.register(v)``."""
    reg, _, verb = callee.rpartition(".")
    if verb not in _ADDS or not reg or not is_registry(reg) or args is None:
        return None
    vals = [a for a in args.named_children if a.type != "comment"]
    if verb == "set":
        vals = vals[1:2]
    return reg, vals


def bound_registry(node: Node) -> str | None:
    """The registry name an object literal is bound to (``const handlers = {...}``)."""
    up = node.parent
    while up is not None and up.type in _WRAPPERS | {"satisfies_expression"}:
        up = up.parent
    if up is None:
        return None
    if up.type == "variable_declarator":
        name = up.child_by_field_name("name")
    elif up.type == "assignment_expression":
        name = up.child_by_field_name("left")
    elif up.type == "public_field_definition":
        name = up.child_by_field_name("name")
    else:
        return None
    text = flat(name) if name is not None else ""
    return text if text and is_registry(text) else None


def declares_tool(node: Node, keys: set[str]) -> bool:
    """Is an object a tool declaration: a ``name`` beside a description or schema, or an
    object handed to a call (``tool({...})``, ``registerTool({...})``)?"""
    if "name" in keys and keys & _DECLARES:
        return True
    return node.parent is not None and node.parent.type == "arguments" and "name" in keys


def name_literal(node: Node) -> str:
    """The string an object's ``name`` key holds, if it is a literal."""
    for pair in node.named_children:
        if pair.type != "pair":
            continue
        key = pair.child_by_field_name("key")
        val = pair.child_by_field_name("value")
        if key is not None and _text(key).strip("'\"") == "name" and val is not None:
            if val.type == "string":
                return "".join(_text(c) for c in val.named_children)
    return ""
