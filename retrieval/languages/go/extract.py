"""Parse one Go file once and fill the shared fact records.

The package clause and imports (with their aliases) come from ``queries/imports.scm``;
one walk, as for the ES languages, gives functions, methods named ``Type.Method`` by
their receiver, calls with the package they come from, string literals, ``if``
conditions and composite literals.  Go names a package by its folder: the call graph
resolves a bare name in the caller's folder and ``pkg.F`` in the folder the import path
ends with (``GraphShape.folder_packages``).
"""

from __future__ import annotations

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
from retrieval.languages.scm import Matches, matches

MAX_SNIPPET_LINES = 12
_STATEMENTS = frozenset(
    {
        "short_var_declaration",
        "assignment_statement",
        "expression_statement",
        "return_statement",
        "var_declaration",
        "go_statement",
        "defer_statement",
        "if_statement",
        "for_statement",
    }
)


def module_name(path: str) -> str:
    """A Go file's package, named by its folder (``cmd/agent/main.go`` -> ``cmd.agent``),
    with the file's stem after it so two files of a package stay apart in the index."""
    parts = path.removesuffix(".go").split("/")
    return ".".join(p.replace(".", "_") for p in parts)


def _unquote(node: Node) -> str:
    raw = _text(node)
    return raw[1:-1] if len(raw) >= 2 else raw


class _Walk:
    def __init__(self, sf: SourceFile, budget: Budget):
        self.sf = sf
        self.budget = budget

    def run(self, root: Node) -> None:
        stack: list[tuple[Node, tuple[str, ...], Node | None]] = [(root, (), None)]
        steps = 0
        while stack:
            node, scope, stmt = stack.pop()
            steps += 1
            if steps % 2000 == 0:
                self.budget.check()
            t = node.type
            if t in _STATEMENTS:
                stmt = node
            if t == "import_spec":  # read by queries/imports.scm
                continue
            elif t in ("function_declaration", "method_declaration"):
                scope = self.definition(node)
            elif t == "call_expression":
                self.call(node, scope, stmt)
            elif t in ("interpreted_string_literal", "raw_string_literal"):
                self.sf.strings.append(
                    StringLit(
                        value=_unquote(node),
                        start_line=_line(node),
                        end_line=_end(node),
                        symbol=".".join(scope) or "<module>",
                        assigned_to=None,
                        is_docstring=False,
                        is_fstring=False,
                    )
                )
                continue
            elif t == "if_statement":
                cond = node.child_by_field_name("condition")
                extra = {"kind": "if", "condition": _text(cond)}
                self.sf.compares.append(
                    Span(_text(node), _line(node), _end(node), ".".join(scope) or "<module>", extra)
                )
            for child in reversed(node.named_children):
                stack.append((child, scope, stmt))

    def definition(self, node: Node) -> tuple[str, ...]:
        name = _text(node.child_by_field_name("name"))
        symbol = name
        recv = node.child_by_field_name("receiver")
        if recv is not None:
            types = [c for c in _descendants(recv) if c.type == "type_identifier"]
            if types:
                symbol = f"{_text(types[0])}.{name}"
        self.sf.defs.append(
            Def(
                symbol=symbol,
                name=name,
                kind="function",
                start_line=_line(node),
                end_line=_end(node),
                def_line=_line(node),
            )
        )
        if symbol == "main" and self.sf.imports.get("<package>") == "main":
            self.sf.main_guard = (_line(node), _end(node))
        return tuple(symbol.split("."))

    def call(self, node: Node, scope: tuple[str, ...], stmt: Node | None) -> None:
        fn = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        if fn is None:
            return
        callee = "".join(_text(fn).split())
        ctype = {"identifier": "identifier", "selector_expression": "attribute"}.get(
            fn.type, fn.type
        )
        head, _, rest = callee.partition(".")
        origin = self.sf.imports.get(head) if head != "<package>" else None
        full = f"{origin}.{rest}" if origin and rest else callee
        start, end = _line(node), _end(node)
        s, e = start, end
        if stmt is not None and stmt.type not in ("if_statement", "for_statement"):
            s, e = min(s, _line(stmt)), max(e, _end(stmt))
        if e - s + 1 > MAX_SNIPPET_LINES or (e - s + 1 > 3 and start > s):
            s, e = start, min(end, start + MAX_SNIPPET_LINES - 1)
        positional = [_text(a) for a in args.named_children] if args is not None else []
        self.sf.calls.append(
            Call(
                callee=callee,
                full=full,
                start_line=start,
                end_line=end,
                stmt_start=s,
                stmt_end=e,
                symbol=".".join(scope) or "<module>",
                args_text=_text(args) if args is not None else "",
                kwargs={},
                positional=positional,
                callee_type=ctype,
            )
        )


def _descendants(node: Node) -> list[Node]:
    out: list[Node] = []
    stack = [node]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(n.named_children)
    return out


def _imports(sf: SourceFile, found: Matches) -> None:
    """The file's package and imports (``queries/imports.scm``), each import under the
    name the file calls it by."""
    for _, caps in found:
        if "package" in caps:
            sf.imports.setdefault("<package>", _text(caps["package"][0]))
            continue
        path = _unquote(caps["path"][0])
        alias = caps.get("alias")
        local = _text(alias[0]) if alias else path.rsplit("/", 1)[-1]
        if local.startswith("v") and local[1:].isdigit() and "/" in path:  # .../sdk/v2
            local = path.rsplit("/", 2)[-2]
        # a package is usually named by its path's last part without the ``-go`` / ``go-``
        # / ``-sdk`` decorations (``anthropic-sdk-go`` is package ``anthropic``)
        for piece in ("-sdk-go", "-go", "-sdk"):
            local = local.removesuffix(piece)
        local = local.removeprefix("go-").replace("-", "")
        sf.imported_modules.add(path)
        sf.imports[local] = path


def parse_go(
    path: str, text: str, grammar: Grammar, *, budget_seconds: float = FILE_BUDGET_SECONDS
) -> SourceFile:
    """Parse ``text`` and extract facts; syntax errors are tolerated and flagged."""
    root, sf = parse_source(path, text, grammar, "go", module_name(path))
    # the package clause and import specs sit in the file's first three levels
    _imports(sf, matches(__package__ or "retrieval.languages.go", "imports", grammar, root, 3))
    _Walk(sf, Budget(path, budget_seconds)).run(root)
    sf.imports.pop("<package>", None)
    return sf
