"""Check the architecture targets of issue #23 over the project's own source.

Prints three things and exits 1 when a target is missed (0 when all hold):

* import circles: two project modules that import each other (any ``import`` statement,
  at module level or inside a function, counts: a lazy import still ties the two together);
* functions longer than :data:`MAX_FUNCTION_LINES` lines outside tests and benchmarks
  (the ``def`` line to the last line of the body, nested functions counted on their own too);
* how many lines of ``graph/`` name ``Any`` as a word (what
  ``grep -rnw Any graph --include=*.py | wc -l`` counts), against :data:`MAX_ANY_IN_GRAPH`.

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

    missed = bool(pairs) or bool(longs) or n_any > MAX_ANY_IN_GRAPH
    print("targets missed" if missed else "all targets met")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
