"""The facts one parse of a source file yields, the same records for every language.

Why language-neutral records: the survey's rule families (model calls, exec, persistence,
prompts, gating, tool dispatch) and the call graph read definitions, call sites with
dotted callee names, imports, string literals and assignments.  Each language's
extractor (``retrieval/languages/<lang>/extract.py``) fills these records from its own
syntax tree, so a rule written against them reads every language that fills them, and a
language adds only the name tables and shapes of its own.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from tree_sitter import Language as Grammar
from tree_sitter import Node, Parser

#: Deepest syntax tree a file may have to be surveyed.  Finding the enclosing symbol of
#: a node walks its parents, and tree-sitter finds each parent from the root, so work
#: grows with the cube of the depth: a 6 KB line of 3,000 nested calls took minutes.
#: CPython itself refuses more than 200 nested brackets, so real code stays far below.
MAX_TREE_DEPTH = 600
#: Seconds one file may take to survey before it is given up as skipped.
FILE_BUDGET_SECONDS = 10.0


@dataclass(slots=True)
class Def:
    """A function, method or class definition."""

    symbol: str
    name: str
    kind: str  # "function" or "class"
    start_line: int  # first line, decorators included
    end_line: int
    def_line: int  # the line of the ``def``/``class`` keyword
    decorators: list[str] = field(default_factory=list)
    docstring: str | None = None
    docstring_lines: tuple[int, int] | None = None
    params: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Call:
    """A call site with its callee as written and as resolved through imports."""

    callee: str  # as written, e.g. "client.messages.create"
    full: str  # first name resolved through imports, e.g. "anthropic.Anthropic"
    start_line: int
    end_line: int
    stmt_start: int
    stmt_end: int
    symbol: str
    args_text: str
    kwargs: dict[str, str]
    positional: list[str]
    in_main: bool = False
    callee_type: str = "identifier"
    #: A constructor call (``new Client(...)``) in languages that write one.
    is_new: bool = False


@dataclass(slots=True)
class StringLit:
    value: str
    start_line: int
    end_line: int
    symbol: str
    assigned_to: str | None
    is_docstring: bool
    is_fstring: bool


@dataclass(slots=True)
class Span:
    """A generic node span with its text (loops, comparisons, dicts, assignments)."""

    text: str
    start_line: int
    end_line: int
    symbol: str
    extra: dict[str, str] = field(default_factory=dict)


@dataclass
class SourceFile:
    """Facts of one parsed source file (its language named by ``language``)."""

    path: str
    text: str
    lines: list[str]
    module: str
    has_errors: bool
    defs: list[Def] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    imports: dict[str, str] = field(default_factory=dict)  # local name -> dotted origin
    imported_modules: set[str] = field(default_factory=set)
    strings: list[StringLit] = field(default_factory=list)
    loops: list[Span] = field(default_factory=list)
    compares: list[Span] = field(default_factory=list)
    dicts: list[Span] = field(default_factory=list)
    assigns: list[Span] = field(default_factory=list)
    main_guard: tuple[int, int] | None = None
    #: Exported name -> the local name it exports (``default`` included); languages whose
    #: modules export by declaration (ES modules) fill it.
    exports: dict[str, str] = field(default_factory=dict)
    #: Modules whose every export this module re-exports (``export * from "./a"``).
    star_exports: list[str] = field(default_factory=list)
    #: Environment reads that are not calls (``process.env.KEY``), ``extra["env"]`` the name.
    env_reads: list[Span] = field(default_factory=list)
    #: A first comment line such as ``#!/usr/bin/env node``, when the file has one.
    shebang: str | None = None
    #: The name of the language table entry that parsed the file (``python``, ...).
    language: str = "python"
    #: Type names a class or interface derives from (``extends``/``implements``), by the
    #: definition's symbol; languages with declared subtyping (TypeScript) fill it.
    bases: dict[str, list[str]] = field(default_factory=dict)
    #: Interfaces (types with no body of code) the file declares at its top level.
    interfaces: list[str] = field(default_factory=list)
    #: Names declared with a type (``model: Model`` as a parameter, a field, a
    #: variable): ``extra["lhs"]`` the name (``this.x`` for a field), ``extra["types"]``
    #: the comma-joined type names as written.
    typed: list[Span] = field(default_factory=list)
    #: Functions that run a tool: a handler key's function in a tool declaration, or a
    #: function value of a registry literal; ``extra["def"]`` the handler's symbol (or
    #: ``extra["ref"]`` the name it refers to), ``extra["tool"]`` the tool's name literal,
    #: ``extra["declared"]`` "1" when the object declares a tool.
    handlers: list[Span] = field(default_factory=list)
    #: Values put into a collection named as holding tools or handlers:
    #: ``extra["registry"]`` the collection as written (``this.tools``), ``extra["ref"]``
    #: the name the value refers to, ``extra["value_type"]`` its syntax.
    registrations: list[Span] = field(default_factory=list)
    #: Calls that run a handler picked out of a registry: ``extra["registry"]`` the
    #: collection looked up ("" for a value named as a tool), ``extra["verb"]`` the method.
    dispatches: list[Span] = field(default_factory=list)
    #: Top-level type aliases and the named types they stand for (``type Like = Session
    #: | Other``): an alias's implementations are those of the types it names.
    aliases: dict[str, list[str]] = field(default_factory=dict)
    #: Declared return types by function symbol (``Promise<T>`` read as ``T``).
    returns: dict[str, list[str]] = field(default_factory=dict)
    _uses_cache: dict[tuple[str, ...], bool] = field(default_factory=dict, repr=False)

    def snippet(self, start: int, end: int) -> str:
        return "\n".join(self.lines[start - 1 : end])

    def uses(self, *prefixes: str) -> bool:
        """Does the file import any module starting with one of ``prefixes``?"""
        key = prefixes
        got = self._uses_cache.get(key)
        if got is None:
            got = any(
                m == p or m.startswith(p + ".") for m in self.imported_modules for p in prefixes
            )
            self._uses_cache[key] = got
        return got


def parse_source(
    path: str, text: str, grammar: Grammar, language: str, module: str
) -> tuple[Node, SourceFile]:
    """Parse ``text`` with ``grammar``: the tree's root and the file's empty fact record
    (syntax errors tolerated and flagged), which the language's walk then fills."""
    root = Parser(grammar).parse(text.encode("utf-8", errors="surrogatepass")).root_node
    sf = SourceFile(
        path=path,
        text=text,
        lines=text.split("\n"),
        module=module,
        has_errors=root.has_error,
        language=language,
    )
    return root, sf


class FileTooComplex(Exception):
    """A file past the depth or time cap: skipped and reported, never surveyed for long."""


def tree_depth(root: Node, cap: int) -> int:
    """Depth of the tree under ``root``, walked iteratively; stops counting past ``cap``."""
    cursor = root.walk()
    depth = deepest = 0
    while True:
        if cursor.goto_first_child():
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > cap:
                    return deepest
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return deepest
            depth -= 1


def deeper_than(root: Node, cap: int) -> bool:
    """Is the tree under ``root`` more than ``cap`` levels deep (``tree_depth(root, cap) >
    cap``)?  A subtree of ``n`` nodes is at most ``n - 1`` levels deep, and tree-sitter
    keeps every node's descendant count, so the walk enters only subtrees large enough
    to reach past ``cap``: a few nodes near the root of an ordinary file, not all of it."""
    if root.descendant_count <= cap:
        return False
    cursor = root.walk()
    depth = 0
    while True:
        node = cursor.node
        assert node is not None  # a cursor made from a node always stands on one
        if depth + node.descendant_count - 1 > cap and cursor.goto_first_child():
            depth += 1
            if depth > cap:
                return True
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return False
            depth -= 1


class Budget:
    """A per-file deadline, checked between extracted facts."""

    def __init__(self, path: str, seconds: float):
        self.path = path
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds

    def check(self) -> None:
        if time.monotonic() > self.deadline:
            raise FileTooComplex(f"took longer than {self.seconds:g} s to survey")


def node_text(node: Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", errors="replace")


def node_line(node: Node) -> int:
    return node.start_point.row + 1


def node_end_line(node: Node) -> int:
    end = node.end_point
    # a node ending at column 0 finished on the previous line (trailing newline)
    return end.row if end.column == 0 and end.row > node.start_point.row else end.row + 1


#: The name the Python rule families were written with; every language fills the same record.
PyFile = SourceFile
