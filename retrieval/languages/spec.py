"""What a language declares to the rest of drafter: one record per language.

Why a record of data and small functions: the survey, the chunker, the call graph and
the file roles must not each test a suffix and carry one language's node types.  They
ask the language of a path (:func:`retrieval.languages.for_path`) and read its
record: the suffixes it owns, the grammar that parses it, the extractor filling the
shared fact records, the node shapes the chunker cuts along, the naming conventions the
call graph resolves by, and the module registering its survey rules (imported lazily,
because rules import the survey and the survey imports this table).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from tree_sitter import Language as Grammar

from retrieval.languages.facts import SourceFile


@dataclass(frozen=True, slots=True)
class ChunkShape:
    """The syntax the chunker cuts a file of this language along.

    A definition (a ``def_types`` node, or a ``wrapper_types`` node holding one in its
    ``wrapper_field``) is a chunk of its own; a ``class_types`` definition is cut into
    its header and its members; a body too large for the budget is split at the
    statements inside its ``block_types`` children and ``*_clause`` children.
    """

    def_types: frozenset[str]
    class_types: frozenset[str]
    block_types: frozenset[str]
    wrapper_types: frozenset[str] = frozenset()
    wrapper_field: str = "definition"
    comment_type: str = "comment"
    name_field: str = "name"


@dataclass(frozen=True, slots=True)
class GraphShape:
    """How the call graph names and resolves this language's code."""

    #: The receiver of a method's own calls (``self``/``cls``; ``this``).
    self_names: tuple[str, ...]
    #: What a call of a class runs (``__init__``; ``constructor``).
    constructor: str
    #: Dotted module name of a repository path, the key imports resolve against.
    module_name: Callable[[str], str]
    #: Does a module's import of a name make it importable from that module
    #: (ES ``export { x } from``), and do ``exports`` and ``star_exports`` name its API?
    reexports: bool = False
    #: Are calls on a name declared with a type (``model: Model``) resolved to that
    #: type's methods, and through an interface or base class to every class deriving
    #: from it, inherited methods included (languages with declared types)?
    typed_dispatch: bool = False
    #: Repository module names a package specifier may name (``@scope/core/x`` ->
    #: ``core.src.x``, ``core.x``): how a monorepo's packages import one another.
    package_modules: Callable[[str], tuple[str, ...]] | None = None
    #: Is a bare call resolved to a function an enclosing function defines (a closure
    #: declared and called in one body), and is a function named as an argument a
    #: callback the call may run?
    closures: bool = False
    #: Is a package a folder, its files sharing one namespace (Go): a bare name is also
    #: looked up in the caller's folder, and ``pkg.F`` in the folder the import path
    #: of ``pkg`` ends with.
    folder_packages: bool = False


@dataclass(frozen=True, slots=True)
class Language:
    """One language drafter reads: its suffixes, grammar, extractor, shapes and rules."""

    name: str
    label: str
    suffixes: tuple[str, ...]
    #: The tree-sitter grammar of a path (TypeScript and TSX differ by suffix).
    grammar: Callable[[str], Grammar]
    #: Parse one file's text into the shared fact records.
    parse: Callable[[str, str], SourceFile]
    chunks: ChunkShape
    graph: GraphShape
    #: Module with ``register(registry)`` adding this language's survey rules.
    rules_module: str
    #: Suffixes the chunker cuts along this grammar though the survey does not read them
    #: (Python's ``.pyi`` stubs).
    chunk_only_suffixes: tuple[str, ...] = ()
    #: Source files larger than this are skipped as generated or huge (bytes).
    max_bytes: int = 600_000
    #: Name endings of generated sources (protobuf stubs, bundles).
    generated_suffixes: tuple[str, ...] = ()
    #: A line longer than this in a file's opening makes it a minified bundle, skipped
    #: (None: the language is not minified in practice).
    max_line_chars: int | None = None
    #: Names of files the survey reads as text for this language's text rules
    #: (manifests such as ``pyproject.toml`` or ``package.json``).
    text_names: tuple[str, ...] = ()
    #: Base names of a source file that marks its folder a package of this language.
    package_markers: tuple[str, ...] = ()
    #: Base names of the module a package of this language runs as when started as a
    #: whole (Python's ``__main__.py``): its main block is an entry, never a self-test.
    package_main_names: tuple[str, ...] = ()
    #: Folders of build output of this language's toolchain, never read.
    output_dirs: frozenset[str] = field(default_factory=frozenset)

    def owns(self, path: str) -> bool:
        """Is ``path`` a source file of this language (by its suffix)?"""
        return path.endswith(self.suffixes)
