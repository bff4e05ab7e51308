"""Check the architecture targets of issue #23 over the project's own source.

Prints three things and exits 1 when a target is missed (0 when all hold):

* import circles: two project modules that import each other (any ``import`` statement,
  at module level or inside a function, counts: a lazy import still ties the two together);
* functions longer than :data:`MAX_FUNCTION_LINES` lines outside tests and benchmarks
  (the ``def`` line to the last line of the body, nested functions counted on their own too);
* how many lines of ``graph/`` name ``Any`` as a word (what
  ``grep -rnw Any graph --include=*.py | wc -l`` counts), against :data:`MAX_ANY_IN_GRAPH`;
* record-kind vocabulary written out by hand outside its table (``drafter/kinds.py``):
  a string naming three or more kind codes (a regular expression ``CMP|OBJ|…``, a message
  listing them), a tuple, list or set holding every kind code (a copy of the order), a dict
  onto every kind code (sections to kinds) or from every kind code to numbers (an order
  by another name).  A dict from each kind
  to its own data (a proposer's hint per kind) is a kind's proposer piece, not a copy: it
  is not reported.

Reads the files only (never imports them), so it runs in well under a second.

    .venv/bin/python benchmarks/arch_check.py [--root DIR]
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

#: Top-level packages of the project (the ones ``pyproject.toml`` ships).
PACKAGES = ("drafter", "retrieval", "graph", "tui", "evals", "prompts")
#: Source kept as data, not project code (the sample repository's files).
EXCLUDED = ("drafter/sample/files/", "drafter/sample/files_ts/")
MAX_FUNCTION_LINES = 80
#: The one module allowed to spell out the record kinds.
KIND_TABLE = "drafter/kinds.py"
MAX_ANY_IN_GRAPH = 80
_ANY_WORD = re.compile(r"(?<![\w])Any(?![\w])")


@dataclass(frozen=True)
class LongFunction:
    path: str
    line: int
    name: str
    length: int


def project_files(root: Path) -> dict[str, Path]:
    """Module name -> file for every Python file of the project packages."""
    out: dict[str, Path] = {}
    for pkg in PACKAGES:
        for path in sorted((root / pkg).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if rel.startswith(EXCLUDED):
                continue
            parts = rel[: -len(".py")].split("/")
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


def _imported(module: str, is_package: bool, node: ast.AST, known: set[str]) -> set[str]:
    """Project modules one import statement names (a submodule when ``from pkg import sub``)."""
    names: set[str] = set()
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name in known:
                names.add(alias.name)
    elif isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            pkg = module.split(".") if is_package else module.split(".")[:-1]
            pkg = pkg[: len(pkg) - (node.level - 1)]
            base = ".".join(pkg + ([base] if base else []))
        for alias in node.names:
            sub = f"{base}.{alias.name}" if base else alias.name
            if sub in known:
                names.add(sub)
            elif base in known:
                names.add(base)
    return names


def import_graph(root: Path, files: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the project modules it imports anywhere in its text."""
    known = set(files)
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        deps: set[str] = set()
        for node in ast.walk(tree):
            deps |= _imported(module, is_package, node, known)
        deps.discard(module)
        graph[module] = deps
    return graph


def circles(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Pairs of modules that import each other, each pair once, sorted."""
    return sorted({(a, b) for a, deps in graph.items() for b in deps if a < b and a in graph[b]})


def long_functions(root: Path, files: dict[str, Path]) -> list[LongFunction]:
    """Functions and methods longer than :data:`MAX_FUNCTION_LINES` lines."""
    out: list[LongFunction] = []
    for path in files.values():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_FUNCTION_LINES:
                rel = path.relative_to(root).as_posix()
                out.append(LongFunction(rel, node.lineno, node.name, length))
    return sorted(out, key=lambda f: (f.path, f.line))


@dataclass(frozen=True)
class KindCopy:
    path: str
    line: int
    what: str


def kind_codes(root: Path) -> frozenset[str]:
    """The kind codes of the table, read from its ``RecordKind("CODE", …)`` rows."""
    text = (root / KIND_TABLE).read_text(encoding="utf-8")
    return frozenset(re.findall(r'RecordKind\(\s*"([A-Z]{2,5})"', text))


def _const_str(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _kind_copy(node: ast.AST, codes: frozenset[str]) -> str | None:
    """What makes ``node`` a hand-written copy of the kind vocabulary, or None."""
    text = _const_str(node)
    if text is not None:
        named = {c for c in codes if re.search(rf"(?<![A-Za-z]){c}(?![a-z])", text)}
        return f"string names {len(named)} kinds" if len(named) >= 3 else None
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        items = {_const_str(e) for e in node.elts}
        return "sequence of every kind" if codes <= items else None
    if isinstance(node, ast.Dict):
        keys = {_const_str(k) for k in node.keys if k is not None}
        numbers = all(isinstance(v, ast.Constant) and isinstance(v.value, int) for v in node.values)
        if codes <= {_const_str(v) for v in node.values}:
            return "dict onto every kind"
        return "dict from every kind to a number" if codes <= keys and numbers else None
    return None


def kind_copies(root: Path, files: dict[str, Path]) -> list[KindCopy]:
    """Hand-written copies of the record-kind vocabulary outside :data:`KIND_TABLE`."""
    codes = kind_codes(root)
    out: list[KindCopy] = []
    for path in files.values():
        rel = path.relative_to(root).as_posix()
        if rel == KIND_TABLE:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        docs = {
            id(n.body[0].value)
            for n in ast.walk(tree)
            if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and n.body
            and isinstance(n.body[0], ast.Expr)
        }
        for node in ast.walk(tree):
            what = None if id(node) in docs else _kind_copy(node, codes)
            if what is not None:
                out.append(KindCopy(rel, getattr(node, "lineno", 0), what))
    return sorted(out, key=lambda c: (c.path, c.line))


def any_in_graph(root: Path) -> int:
    """Lines of graph/ that name ``Any`` as a whole word."""
    return sum(
        1
        for path in sorted((root / "graph").rglob("*.py"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if _ANY_WORD.search(line)
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    args = ap.parse_args(argv)
    root: Path = args.root
    files = project_files(root)

    pairs = circles(import_graph(root, files))
    print(f"import circles: {len(pairs)}")
    for a, b in pairs:
        print(f"  {a} <-> {b}")

    longs = long_functions(root, files)
    print(f"functions over {MAX_FUNCTION_LINES} lines: {len(longs)}")
    for f in longs:
        print(f"  {f.path}:{f.line} {f.name} ({f.length} lines)")

    n_any = any_in_graph(root)
    print(f"Any in graph/: {n_any} (target <= {MAX_ANY_IN_GRAPH})")

    copies = kind_copies(root, files)
    print(f"record-kind vocabulary written outside {KIND_TABLE}: {len(copies)}")
    for c in copies:
        print(f"  {c.path}:{c.line} {c.what}")

    missed = bool(pairs) or bool(longs) or n_any > MAX_ANY_IN_GRAPH or bool(copies)
    print("targets missed" if missed else "all targets met")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
