"""Python: the grammar, the survey's queries and extractor, chunk and call-graph shapes."""

from __future__ import annotations

from tree_sitter import Language as Grammar

from retrieval.languages.python.extract import LANGUAGE as GRAMMAR
from retrieval.languages.python.extract import module_name, parse_python
from retrieval.languages.spec import ChunkShape, GraphShape, Language


def _grammar(_: str) -> Grammar:
    return GRAMMAR


LANGUAGE = Language(
    name="python",
    label="Python",
    suffixes=(".py",),
    chunk_only_suffixes=(".pyi",),
    grammar=_grammar,
    parse=parse_python,
    chunks=ChunkShape(
        def_types=frozenset({"function_definition", "class_definition"}),
        class_types=frozenset({"class_definition"}),
        block_types=frozenset({"block"}),
        wrapper_types=frozenset({"decorated_definition"}),
    ),
    graph=GraphShape(self_names=("self", "cls"), constructor="__init__", module_name=module_name),
    rules_module="retrieval.languages.python.rules",
    max_bytes=600_000,
    generated_suffixes=("_pb2.py", "_pb2_grpc.py"),
    text_names=("pyproject.toml", "setup.cfg", "setup.py"),
    package_markers=("__init__.py",),
    package_main_names=("__main__.py",),
)
