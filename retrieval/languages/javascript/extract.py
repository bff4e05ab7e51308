"""Parse one JavaScript or TypeScript file once and fill the shared fact records.

Module imports come from ``queries/imports.scm``: they sit at a module's top level and
need no enclosing symbol.  The rest is one walk, because the ES grammars nest what the
records need (exports, classes, methods, arrow functions bound to names, calls, strings,
conditions, ``process.env`` reads) under one another and each fact needs its enclosing
symbol and statement.  Carrying both down a single walk gives them in one pass, with no
parent lookups (tree-sitter finds a parent by walking from the root), where a query per
shape would look each match's parents up.  TypeScript and TSX use the same query and
walk (their grammars extend the JavaScript one); the caller picks the grammar by suffix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tree_sitter import Language as Grammar
from tree_sitter import Node

from retrieval.languages.facts import (
    FILE_BUDGET_SECONDS,
    Budget,
    Call,
    Def,
    SourceFile,
    Span,
    StringLit,
    parse_source,
)
from retrieval.languages.facts import node_end_line as _end
from retrieval.languages.facts import node_line as _line
from retrieval.languages.facts import node_text as _text
from retrieval.languages.javascript import registries
from retrieval.languages.scm import Matches, matches

#: Longest span a snippet may cover; longer statements fall back to the call itself.
MAX_SNIPPET_LINES = 12
#: Suffixes stripped from a path to name its module (longest first).
MODULE_SUFFIXES = (".d.ts", ".tsx", ".ts", ".mts", ".cts", ".jsx", ".js", ".mjs", ".cjs")

_FUNCTION_DECLS = frozenset({"function_declaration", "generator_function_declaration"})
_CLASS_DECLS = frozenset({"class_declaration", "abstract_class_declaration", "class"})
_FUNCTION_VALUES = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function"}
)
_COMPOUND = frozenset(
    {
        "if_statement",
        "for_statement",
        "for_in_statement",
        "while_statement",
        "do_statement",
        "try_statement",
        "switch_statement",
        "class_declaration",
        "function_declaration",
        "export_statement",
    }
)
_SIMPLE = frozenset(
    {
        "lexical_declaration",
        "variable_declaration",
        "public_field_definition",
        "expression_statement",
        "return_statement",
        "throw_statement",
    }
)
_LOOPS = {
    "for_statement": "for",
    "for_in_statement": "for",
    "while_statement": "while",
    "do_statement": "while",
}
_WS = re.compile(r"\s+")
#: A property key usable as a definition's name.
_KEY_NAME = re.compile(r"[A-Za-z_$][\w$]*")
#: Nodes with nothing inside that a record needs: never pushed on the walk's stack.
_LEAVES = frozenset(
    {
        "identifier",
        "property_identifier",
        "type_identifier",
        "shorthand_property_identifier_pattern",
        "private_property_identifier",
        "statement_identifier",
        "number",
        "comment",
        "string_fragment",
        "escape_sequence",
        "this",
        "super",
        "true",
        "false",
        "null",
        "undefined",
        "predefined_type",
        "regex",
        "html_comment",
        "jsx_text",
    }
)
#: Node types :meth:`_Walk.visit` has a branch for, opens a frame for, or binds a name
#: to (a function or class value); any other node is walked through without the call.
#: ``tests/test_es_walk_skip.py`` checks that the skip changes no fact.
_VISITED = frozenset(
    {
        *_SIMPLE,
        *_COMPOUND,
        *_FUNCTION_DECLS,
        *_CLASS_DECLS,
        *_FUNCTION_VALUES,
        *_LOOPS,
        "method_definition",
        "variable_declarator",
        "public_field_definition",
        "assignment_expression",
        "call_expression",
        "new_expression",
        "string",
        "template_string",
        "if_statement",
        "switch_statement",
        "object",
        "member_expression",
        "subscript_expression",
        "hash_bang_line",
        "required_parameter",
        "optional_parameter",
        "interface_declaration",
        "type_alias_declaration",
        "export_statement",
    }
)
#: Subtrees of types and of literals already read whole: their children are not walked.
_OPAQUE = frozenset(
    {
        "type_annotation",
        "type_arguments",
        "type_parameters",
        "interface_declaration",
        "type_alias_declaration",
        "import_statement",
        "string",
        "abstract_method_signature",
        "index_signature",
        "property_signature",
        "method_signature",
        "ambient_declaration",
    }
)


def module_name(path: str) -> str:
    """Dotted module name of a path (``src/a/index.ts`` -> ``src.a``); dots inside a file
    name become ``_`` so they never read as package separators."""
    p = path
    for suffix in MODULE_SUFFIXES:
        if p.endswith(suffix):
            p = p[: -len(suffix)]
            break
    parts = [x.replace(".", "_") for x in p.split("/")]
    if parts and parts[-1] == "index" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def resolve_spec(path: str, spec: str) -> str:
    """The module an import specifier names: a repository module name for a relative
    one (``./run.js`` from ``src/a/b.ts`` -> ``src.a.run``), else the package as written
    (``node:fs`` -> ``fs``)."""
    if not spec.startswith("."):
        return spec.removeprefix("node:")
    parts = path.split("/")[:-1]
    for piece in spec.split("/"):
        if piece in ("", "."):
            continue
        if piece == "..":
            parts = parts[:-1]
        else:
            parts.append(piece)
    return module_name("/".join(parts))


def package_modules(spec: str) -> tuple[str, ...]:
    """Repository modules a scoped package specifier may name in a monorepo: the
    workspace folder named as the package, its sources under ``src/`` or at its top
    (``@scope/core/storage`` -> ``core.src.storage``, ``core.storage``).  Unscoped
    names are left to the registry: ``openai`` is a dependency, not a folder."""
    if not spec.startswith("@") or "/" not in spec:
        return ()
    name, _, sub = spec.split("/", 1)[1].partition("/")
    rest = "." + sub.replace("/", ".") if sub else ""
    return (f"{name}.src{rest}", f"{name}{rest}")


def _string_value(node: Node) -> str:
    """A string or template literal's content, quotes dropped, substitutions kept."""
    raw = _text(node)
    if node.type == "template_string":
        return raw[1:-1] if len(raw) >= 2 else raw
    return "".join(
        _text(c) for c in node.children if c.type in ("string_fragment", "escape_sequence")
    )


def _callee_text(fn: Node) -> str:
    return _WS.sub("", _text(fn)).replace("?.", ".").replace("!.", ".")


@dataclass(slots=True)
class _Frame:
    """Where the walk is: the names of the enclosing definitions and statement."""

    scope: tuple[str, ...]
    stmt: Node | None
    in_main: bool


class _Walk:
    """One walk of a file's tree, filling a :class:`SourceFile`."""

    def __init__(self, sf: SourceFile, budget: Budget):
        self.sf = sf
        self.budget = budget
        self.steps = 0
        #: Function and class values bound to a name, by node id: the scope their body opens.
        self.named: dict[int, str] = {}
        #: Local names bound to a registry lookup (``const t = tools.get(n)``), by scope.
        self.lookups: dict[str, dict[str, str]] = {}

    # -- helpers ------------------------------------------------------------------

    def symbol(self, f: _Frame) -> str:
        if f.scope:
            return ".".join(f.scope)
        return "<main>" if f.in_main else "<module>"

    def stmt_span(self, node: Node, f: _Frame) -> tuple[int, int]:
        start, end = _line(node), _end(node)
        own = (start, end)
        st = f.stmt
        if st is not None:
            if st.type in _COMPOUND:
                if _line(st) >= start - 2:
                    start = _line(st)
            else:
                start, end = min(start, _line(st)), max(end, _end(st))
        if (end - start + 1 > 3 and own[0] > start) or end - start + 1 > MAX_SNIPPET_LINES:
            start, end = own[0], min(own[1], own[0] + MAX_SNIPPET_LINES - 1)
        return start, end

    def span(self, node: Node, f: _Frame, extra: dict[str, str]) -> Span:
        return Span(_text(node), _line(node), _end(node), self.symbol(f), extra)

    # -- the walk -----------------------------------------------------------------

    def run(self, root: Node) -> None:
        stack: list[tuple[Node, _Frame]] = [(root, _Frame((), None, False))]
        while stack:
            node, f = stack.pop()
            self.steps += 1
            if self.steps % 2000 == 0:
                self.budget.check()
            t = node.type
            if t in _VISITED:
                f = self.visit(node, f)
            if t in _OPAQUE:
                continue
            kids = node.named_children
            for child in reversed(kids):
                if child.type not in _LEAVES:
                    stack.append((child, f))

    def visit(self, node: Node, f: _Frame) -> _Frame:
        """Record what ``node`` is; return the frame its children see."""
        t = node.type
        bound = self.named.pop(node.id, None)
        if bound is not None:
            return _Frame((*f.scope, bound), None, f.in_main)
        if t in _SIMPLE or t in _COMPOUND:
            f = _Frame(f.scope, node, f.in_main)
        if t == "export_statement":
            self.export_statement(node)
        elif t in _FUNCTION_DECLS or t in _CLASS_DECLS or t == "method_definition":
            return self.definition(node, f)
        elif t == "variable_declarator":
            return self.declarator(node, f)
        elif t == "public_field_definition":
            return self.field(node, f)
        elif t == "assignment_expression":
            self.assignment(node, f)
        elif t in ("call_expression", "new_expression"):
            self.call(node, f)
        elif t in ("string", "template_string"):
            self.string(node, f)
        elif t == "if_statement":
            return self.if_statement(node, f)
        elif t == "switch_statement":
            cond = node.child_by_field_name("value")
            self.sf.compares.append(self.span(node, f, {"kind": "switch", "on": _text(cond)}))
        elif t in _LOOPS:
            body = node.child_by_field_name("body")
            header = _line(body) if body is not None else _line(node)
            extra = {"type": _LOOPS[t], "header_end": str(header)}
            self.sf.loops.append(self.span(node, f, extra))
        elif t == "object":
            self.object(node, f)
        elif t in ("member_expression", "subscript_expression"):
            self.env_read(node, f)
        elif t == "hash_bang_line":
            self.sf.shebang = _text(node)
        elif t in ("required_parameter", "optional_parameter"):
            self.parameter(node, f)
        elif t == "interface_declaration":
            self.interface(node, f)
        elif t == "type_alias_declaration" and not f.scope:
            value = node.child_by_field_name("value")
            names = _type_names(value) if value is not None else []
            if names:
                self.sf.aliases[_text(node.child_by_field_name("name"))] = names
        return f

    # -- modules ------------------------------------------------------------------

    def export_statement(self, node: Node) -> None:
        src = node.child_by_field_name("source")
        mod = resolve_spec(self.sf.path, _string_value(src)) if src is not None else None
        if mod is not None:
            self.sf.imported_modules.add(mod)
        decl = node.child_by_field_name("declaration")
        is_default = any(c.type == "default" for c in node.children)
        if decl is not None:
            name_node = decl.child_by_field_name("name")
            names = [_text(name_node)] if name_node is not None else []
            if decl.type in ("lexical_declaration", "variable_declaration"):
                names = [
                    _text(d.child_by_field_name("name"))
                    for d in decl.named_children
                    if d.type == "variable_declarator"
                ]
            for n in names:
                self.sf.exports["default" if is_default else n] = n
            return
        if is_default:
            value = node.child_by_field_name("value")
            if value is not None and value.type == "identifier":
                self.sf.exports["default"] = _text(value)
            return
        clause = next((c for c in node.named_children if c.type == "export_clause"), None)
        if clause is None:
            if mod is not None:  # export * from "./a"
                self.sf.star_exports.append(mod)
            return
        for spec in clause.named_children:
            if spec.type != "export_specifier":
                continue
            name = _text(spec.child_by_field_name("name"))
            alias_node = spec.child_by_field_name("alias")
            exported = _text(alias_node) if alias_node is not None else name
            if mod is not None:
                self.sf.imports.setdefault(exported, f"{mod}.{name}")
                self.sf.exports[exported] = exported
            else:
                self.sf.exports[exported] = name

    def require(self, name_node: Node, value: Node) -> bool:
        """``const x = require("m")`` / ``const {a, b: c} = require("m")`` as imports, and
        a module loaded when needed, ``const { run } = await import("./main")``."""
        if value.type == "await_expression" and value.named_children:
            value = value.named_children[0]
        if value.type != "call_expression":
            return False
        fn = value.child_by_field_name("function")
        args = value.child_by_field_name("arguments")
        if fn is None or _text(fn) not in ("require", "import") or args is None:
            return False
        lits = [a for a in args.named_children if a.type == "string"]
        if not lits:
            return False
        mod = resolve_spec(self.sf.path, _string_value(lits[0]))
        self.sf.imported_modules.add(mod)
        if name_node.type == "identifier":
            self.sf.imports[_text(name_node)] = mod
        elif name_node.type == "object_pattern":
            for p in name_node.named_children:
                if p.type == "shorthand_property_identifier_pattern":
                    self.sf.imports[_text(p)] = f"{mod}.{_text(p)}"
                elif p.type == "pair_pattern":
                    key, val = p.child_by_field_name("key"), p.child_by_field_name("value")
                    if key is not None and val is not None and val.type == "identifier":
                        self.sf.imports[_text(val)] = f"{mod}.{_text(key)}"
        return True

    # -- definitions --------------------------------------------------------------

    def add_def(self, node: Node, name: str, kind: str, f: _Frame, params: Node | None) -> _Frame:
        outer = node.parent if node.parent is not None else None
        start_node = outer if outer is not None and outer.type == "export_statement" else node
        if node.parent is not None and node.parent.type == "variable_declarator":
            decl = node.parent.parent
            if decl is not None:
                start_node = decl
                if decl.parent is not None and decl.parent.type == "export_statement":
                    start_node = decl.parent
        decorators = [_text(c)[1:].strip() for c in node.children if c.type == "decorator"]
        symbol = ".".join((*f.scope, name))
        returned = node.child_by_field_name("return_type")
        if returned is not None:
            types = [n for c in returned.named_children for n in _type_names(c, awaited=True)]
            if types:
                self.sf.returns[symbol] = types
        self.sf.defs.append(
            Def(
                symbol=symbol,
                name=name,
                kind=kind,
                start_line=_line(start_node),
                end_line=_end(node),
                def_line=_line(node),
                decorators=decorators,
                params=[_text(p).split(":")[0].split("=")[0].strip() for p in params.named_children]
                if params is not None
                else [],
            )
        )
        return _Frame((*f.scope, name), None, f.in_main)

    def definition(self, node: Node, f: _Frame) -> _Frame:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return _Frame(f.scope, f.stmt, f.in_main)
        kind = "class" if node.type in _CLASS_DECLS else "function"
        if kind == "class":
            self.heritage(node, ".".join((*f.scope, _text(name_node))))
        return self.add_def(node, _text(name_node), kind, f, node.child_by_field_name("parameters"))

    def heritage(self, node: Node, symbol: str) -> None:
        """The types a class extends and implements, as written (generics dropped)."""
        names: list[str] = []
        for part in node.named_children:
            if part.type != "class_heritage":
                continue
            for clause in part.named_children:
                if clause.type in ("extends_clause", "implements_clause"):
                    for t in clause.named_children:
                        names += _type_names(t)
                else:  # JavaScript: ``class_heritage`` holds the extended expression
                    names += _type_names(clause)
        if names:
            self.sf.bases[symbol] = names

    def interface(self, node: Node, f: _Frame) -> None:
        """A top-level interface: a type classes implement, and the interfaces it extends."""
        name = _text(node.child_by_field_name("name"))
        if not name or f.scope:
            return
        self.sf.interfaces.append(name)
        names = [
            n
            for c in node.named_children
            if c.type == "extends_type_clause"
            for t in c.named_children
            for n in _type_names(t)
        ]
        if names:
            self.sf.bases[name] = names

    def typed_name(self, node: Node, lhs: str, annotation: Node | None, f: _Frame) -> None:
        """Record ``lhs`` declared with the type of ``annotation`` (when it names one)."""
        if annotation is None:
            return
        types = [n for c in annotation.named_children for n in _type_names(c)]
        if types:
            extra = {"lhs": lhs, "types": ",".join(types)}
            self.sf.typed.append(self.span(node, f, extra))

    def parameter(self, node: Node, f: _Frame) -> None:
        """``model: Model`` as a parameter; with an access modifier (``private model:
        Model`` in a constructor) it also declares the field ``this.model``."""
        pattern = node.child_by_field_name("pattern")
        if pattern is None or pattern.type != "identifier":
            return
        annotation = node.child_by_field_name("type")
        own = any(c.type in ("accessibility_modifier", "readonly") for c in node.children)
        name = _text(pattern)
        self.typed_name(node, name, annotation, f)
        if own:
            self.typed_name(node, f"this.{name}", annotation, f)

    def declarator(self, node: Node, f: _Frame) -> _Frame:
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if name is not None and name.type == "identifier":
            self.typed_name(node, _text(name), node.child_by_field_name("type"), f)
        if name is None or value is None:
            return f
        if self.require(name, value):
            return f
        if name.type == "identifier":
            self.registry_binding(_text(name), value, f)
        if name.type == "identifier" and value.type in _FUNCTION_VALUES | _CLASS_DECLS:
            kind = "class" if value.type in _CLASS_DECLS else "function"
            self.add_def(value, _text(name), kind, f, value.child_by_field_name("parameters"))
            # the function's own frame is opened when the walk reaches the value
            self.named[value.id] = _text(name)
            return f
        self.sf.assigns.append(
            self.span(
                f.stmt if f.stmt is not None else node,
                f,
                {"lhs": _text(name), "rhs_type": _rhs_type(value), "rhs": _text(value)},
            )
        )
        return f

    def field(self, node: Node, f: _Frame) -> _Frame:
        """A class field: an arrow function is a method; a value binds ``this.name``."""
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if name is not None and name.type == "property_identifier":
            self.typed_name(node, f"this.{_text(name)}", node.child_by_field_name("type"), f)
        if name is None or value is None:
            return f
        if value.type in _FUNCTION_VALUES:
            self.add_def(value, _text(name), "function", f, value.child_by_field_name("parameters"))
            self.named[value.id] = _text(name)
            return f
        lhs = f"this.{_text(name)}"
        self.registry_binding(lhs, value, f)
        extra = {"lhs": lhs, "rhs_type": _rhs_type(value), "rhs": _text(value)}
        self.sf.assigns.append(self.span(node, f, extra))
        return f

    def assignment(self, node: Node, f: _Frame) -> None:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            return
        lhs = _callee_text(left)
        if right.type in _FUNCTION_VALUES and lhs.startswith(("module.exports", "exports.")):
            self.sf.exports[lhs.rsplit(".", 1)[-1]] = lhs
        extra = {"lhs": lhs, "rhs_type": _rhs_type(right), "rhs": _text(right)}
        self.sf.assigns.append(self.span(node, f, extra))
        if left.type == "subscript_expression":
            reg = _callee_text(left.child_by_field_name("object") or left)
            if registries.is_registry(reg):  # ``handlers[name] = fn``
                sym = self.symbol(f)
                self.sf.registrations.append(registries.registration(reg, right, sym))
        else:
            self.registry_binding(lhs, right, f)

    # -- calls, strings, conditions -------------------------------------------------

    def call(self, node: Node, f: _Frame) -> None:
        is_new = node.type == "new_expression"
        fn = node.child_by_field_name("constructor" if is_new else "function")
        args = node.child_by_field_name("arguments")
        if fn is None:
            return
        if fn.type == "non_null_expression" and fn.named_children:
            fn = fn.named_children[0]  # ``session.execCommand!(...)`` calls the member
        if fn.type in ("identifier", "member_expression"):
            callee, ctype = (
                _callee_text(fn),
                ("identifier" if fn.type == "identifier" else "attribute"),
            )
        else:
            callee, ctype = _text(fn), fn.type
        kwargs: dict[str, str] = {}
        positional: list[str] = []
        if args is not None and args.type == "arguments":
            for a in args.named_children:
                if a.type == "comment":
                    continue
                positional.append(_text(a))
                if a.type == "object":
                    for pair in a.named_children:
                        if pair.type == "pair":
                            key = _text(pair.child_by_field_name("key")).strip("'\"")
                            kwargs.setdefault(key, _text(pair.child_by_field_name("value")))
                        elif pair.type == "shorthand_property_identifier":
                            kwargs.setdefault(_text(pair), _text(pair))
        s, e = self.stmt_span(node, f)
        sym = self.symbol(f)
        self.sf.calls.append(
            Call(
                callee=callee,
                full=_resolve(self.sf, callee) if ctype in ("identifier", "attribute") else callee,
                start_line=_line(node),
                end_line=_end(node),
                stmt_start=s,
                stmt_end=e,
                symbol=sym,
                args_text=_text(args) if args is not None else "",
                kwargs=kwargs,
                positional=positional,
                in_main=sym == "<main>",
                callee_type=ctype,
                is_new=is_new,
            )
        )
        if not is_new:
            self.registry_call(registries.flat(fn), args, sym, node)

    def string(self, node: Node, f: _Frame) -> None:
        if node.parent is not None and node.parent.type in (
            "import_statement",
            "export_statement",
        ):
            return
        self.sf.strings.append(
            StringLit(
                value=_string_value(node),
                start_line=_line(node),
                end_line=_end(node),
                symbol=self.symbol(f),
                assigned_to=_assigned_to(node),
                is_docstring=False,
                is_fstring=node.type == "template_string"
                and any(c.type == "template_substitution" for c in node.children),
            )
        )

    def if_statement(self, node: Node, f: _Frame) -> _Frame:
        cond = node.child_by_field_name("condition")
        text = _WS.sub(" ", _text(cond))
        self.sf.compares.append(
            self.span(
                node,
                f,
                {
                    "kind": "if",
                    "condition": text,
                    "stmt_start": str(_line(node)),
                    "stmt_end": str(_line(cond) if cond is not None else _line(node)),
                },
            )
        )
        squashed = text.replace(" ", "")
        if not f.scope and (
            "require.main===module" in squashed or "module===require.main" in squashed
        ):
            if self.sf.main_guard is None:
                self.sf.main_guard = (_line(node), _end(node))
            return _Frame(f.scope, node, True)
        return f

    def object(self, node: Node, f: _Frame) -> None:
        keys: list[str] = []
        vals: list[str] = []
        for pair in node.named_children:
            if pair.type == "pair":
                k = pair.child_by_field_name("key")
                v = pair.child_by_field_name("value")
                keys.append(_text(k).strip("'\""))
                if v is not None and v.type in ("identifier", "member_expression"):
                    vals.append(_callee_text(v))
            elif pair.type == "shorthand_property_identifier":
                keys.append(_text(pair))
                vals.append(_text(pair))
            elif pair.type == "method_definition":
                keys.append(_text(pair.child_by_field_name("name")))
        extra = {
            "keys": ",".join(keys),
            "callable_values": ",".join(vals),
            "pairs": str(len(keys)),
        }
        self.sf.dicts.append(self.span(node, f, extra))
        bound = registries.bound_registry(node) is not None
        declares = registries.declares_tool(node, set(keys))
        if bound or declares:
            self.handlers_of(node, f, bound, declares)

    # -- tool registries (:mod:`.registries`) -----------------------------------------

    def registry_binding(self, lhs: str, value: Node, f: _Frame) -> None:
        """A name bound to a registry lookup, or a registry bound to a collection literal."""
        sym = self.symbol(f)
        reg = registries.lookup_of(value)
        if reg is not None:
            self.lookups.setdefault(sym, {})[lhs] = reg
        if registries.is_registry(lhs):
            for v in registries.collection_values(value):
                self.sf.registrations.append(registries.registration(lhs, v, sym))

    def registry_call(self, callee: str, args: Node | None, sym: str, node: Node) -> None:
        """A value added to a registry (``R.set(k, v)``), or a handler dispatched from one."""
        added = registries.added_values(callee, args)
        if added is not None:
            for v in added[1]:
                self.sf.registrations.append(registries.registration(added[0], v, sym))
            return
        hit = registries.dispatch_of(callee, self.lookups.get(sym, {}))
        if hit is not None:
            extra = {"registry": hit[0], "verb": hit[1]}
            self.sf.dispatches.append(Span(callee[:120], _line(node), _end(node), sym, extra))

    def handlers_of(self, node: Node, f: _Frame, bound: bool, declares: bool) -> None:
        """The functions an object holds that run a tool: under a handler key of a tool
        declaration, or any function value of a registry literal.  A function value
        becomes a definition of its own (named by its key), so a dispatch can reach it."""
        tool = registries.name_literal(node)
        for pair in node.named_children:
            if pair.type == "method_definition":
                key = _text(pair.child_by_field_name("name"))
                if bound or key in registries.HANDLER_KEYS:
                    self.add_handler(pair, key, ".".join((*f.scope, key)), tool, declares)
                continue
            if pair.type != "pair":
                continue
            key = _text(pair.child_by_field_name("key")).strip("'\"`")
            val = pair.child_by_field_name("value")
            if val is None or not (bound or key in registries.HANDLER_KEYS):
                continue
            if val.type in _FUNCTION_VALUES and _KEY_NAME.fullmatch(key):
                self.add_def(val, key, "function", f, val.child_by_field_name("parameters"))
                self.named[val.id] = key
                self.add_handler(val, key, ".".join((*f.scope, key)), tool, declares)
            elif declares and val.type in ("identifier", "member_expression"):
                extra = {"ref": registries.flat(val), "tool": tool, "declared": "1"}
                self.sf.handlers.append(Span(key, _line(val), _end(val), self.symbol(f), extra))

    def add_handler(self, node: Node, key: str, symbol: str, tool: str, declares: bool) -> None:
        extra = {"def": symbol, "tool": tool, "declared": "1" if declares else ""}
        self.sf.handlers.append(Span(key, _line(node), _end(node), symbol, extra))

    def env_read(self, node: Node, f: _Frame) -> None:
        obj = node.child_by_field_name("object")
        if obj is None or _callee_text(obj) not in ("process.env", "import.meta.env"):
            return
        if node.type == "member_expression":
            name = _text(node.child_by_field_name("property"))
        else:
            idx = node.child_by_field_name("index")
            name = _string_value(idx) if idx is not None and idx.type == "string" else ""
        if not name:
            return
        s, e = self.stmt_span(node, f)
        extra = {"env": name, "stmt_start": str(s), "stmt_end": str(e)}
        self.sf.env_reads.append(self.span(node, f, extra))


#: Type nodes naming a type of the program (not a literal, function or object type).
_TYPE_REFS = frozenset({"type_identifier", "nested_type_identifier", "identifier"})


def _type_names(t: Node, awaited: bool = False) -> list[str]:
    """The named types ``t`` stands for: ``Model``, ``ns.Model``, ``Model<T>`` (its
    generic arguments dropped), each member of a union, and an extended expression;
    ``awaited``: a ``Promise<T>`` (a return type) stands for ``T``."""
    if t.type in _TYPE_REFS:
        return [_text(t)]
    if t.type == "member_expression":
        return [_callee_text(t)]
    if t.type == "generic_type":
        head = t.named_children[0] if t.named_children else None
        if awaited and head is not None and _text(head) in ("Promise", "PromiseLike"):
            args = t.child_by_field_name("type_arguments") or (
                t.named_children[1] if len(t.named_children) > 1 else None
            )
            return [n for c in (args.named_children if args else []) for n in _type_names(c)]
        return _type_names(head) if head is not None else []
    if t.type in ("union_type", "parenthesized_type", "readonly_type"):
        return [n for c in t.named_children for n in _type_names(c, awaited)]
    return []


def _declared(node: Node) -> bool:
    """Is ``node`` inside a type declaration (``declare module "x" { ... }``), which
    describes another module rather than importing anything into this one?"""
    up = node.parent
    while up is not None and up.type != "import_statement":
        up = up.parent
    up = up.parent if up is not None else None
    while up is not None:
        if up.type in _OPAQUE:
            return True
        up = up.parent
    return False


def _imports(sf: SourceFile, found: Matches) -> None:
    """The module's ``import`` statements (``queries/imports.scm``): each module it
    imports, and the names bound to a module's default, namespace or named exports."""
    for _, caps in found:
        if _declared(caps["source"][0]):
            continue
        mod = resolve_spec(sf.path, _string_value(caps["source"][0]))
        if "import" in caps:
            sf.imported_modules.add(mod)
        elif "default" in caps:
            sf.imports[_text(caps["default"][0])] = f"{mod}.default"
        elif "namespace" in caps:
            sf.imports[_text(caps["namespace"][0])] = mod
        elif "name" in caps:
            name = _text(caps["name"][0])
            local = _text(caps["alias"][0]) if caps.get("alias") else name
            sf.imports[local] = f"{mod}.{name}"


def _rhs_type(value: Node) -> str:
    """The value's node type in the terms the call graph binds by (``call`` for a
    constructor or a call, awaited or not)."""
    v = value
    while (
        v.type in ("await_expression", "parenthesized_expression", "as_expression")
        and v.named_children
    ):
        v = v.named_children[0]
    if v.type in ("new_expression", "call_expression"):
        return "call"
    if v.type == "ternary_expression":
        return "conditional_expression"
    return v.type


def _assigned_to(node: Node) -> str | None:
    """The name a string literal is bound to (a few hops up), if any."""
    up, hops = node.parent, 0
    while up is not None and hops < 4:
        if up.type == "variable_declarator":
            return _text(up.child_by_field_name("name"))
        if up.type == "pair":
            return _text(up.child_by_field_name("key")).strip("'\"")
        left = up.child_by_field_name("left") if up.type == "assignment_expression" else None
        if left is not None:
            return _callee_text(left)
        if up.type in ("statement_block", "program", "arguments"):
            return None
        up, hops = up.parent, hops + 1
    return None


def _resolve(sf: SourceFile, dotted: str) -> str:
    head, _, rest = dotted.partition(".")
    origin = sf.imports.get(head)
    if origin is None:
        return dotted
    return f"{origin}.{rest}" if rest else origin


def parse_ecmascript(
    path: str,
    text: str,
    grammar: Grammar,
    language: str,
    *,
    budget_seconds: float = FILE_BUDGET_SECONDS,
) -> SourceFile:
    """Parse ``text`` with ``grammar`` and extract facts; syntax errors are tolerated and
    flagged.  Raises :class:`~retrieval.languages.facts.FileTooComplex` past the time
    cap; no depth cap is needed, because the walk carries each node's enclosing symbol
    down instead of looking parents up (the cost Python's depth cap bounds)."""
    root, sf = parse_source(path, text, grammar, language, module_name(path))
    # an import statement is a child of the module (or of an error node at its top)
    found = matches(__package__ or "retrieval.languages.javascript", "imports", grammar, root, 2)
    _imports(sf, found)
    _Walk(sf, Budget(path, budget_seconds)).run(root)
    return sf
