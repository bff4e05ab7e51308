"""Entry points a ``package.json`` declares: ``bin``, ``main``, ``module``, ``exports``
and ``scripts``, each pointed at the source file it starts when the repository has it.

Why map a target to its source: a package's ``bin`` and ``main`` usually name the build
output (``dist/cli.js``), which is not committed; the source it is built from sits under
``src/`` with a ``.ts`` suffix.  The candidates tried are the ordinary layouts of the
TypeScript compiler and bundlers, never one repository's folders.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from retrieval.survey.base import Hit, clip
from retrieval.survey.details import EntryDetail
from retrieval.survey.model import Category, EntryKind

_OUT_DIRS = ("dist/", "build/", "lib/", "out/", "esm/", "cjs/")
_SRC_SUFFIXES = (".ts", ".tsx", ".mts", ".js", ".mjs", ".cjs", ".jsx")
#: Scripts worth listing as ways of starting the system (not lint, test or build steps).
_RUN_SCRIPTS = re.compile(r"^(start|dev|serve|cli|run|agent|server|main|watch)([:\-].*)?$")


def source_candidates(base: str, target: str) -> Iterator[str]:
    """Repository paths a declared target may be built from, most literal first."""
    t = target.strip().removeprefix("./")
    stems = [t]
    for out in _OUT_DIRS:
        if t.startswith(out):
            stems += [t[len(out) :], "src/" + t[len(out) :]]
    for stem in stems:
        for path in (base + stem, stem) if base else (stem,):
            yield path
            root = re.sub(r"\.(c|m)?jsx?$|\.tsx?$", "", path)
            for suffix in _SRC_SUFFIXES:
                yield root + suffix
            for suffix in _SRC_SUFFIXES:
                yield f"{root}/index{suffix}"


def _resolve(base: str, target: str, paths: set[str]) -> str | None:
    return next((p for p in source_candidates(base, target) if p in paths), None)


def _line_of(lines: list[str], needle: str, start: int = 0) -> int:
    for i in range(start, len(lines)):
        if needle in lines[i]:
            return i + 1
    return 0


def _targets(value: object, key: str) -> Iterator[tuple[str, str]]:
    """(name, target path) pairs of a ``bin``/``exports`` value (string or nested map)."""
    if isinstance(value, str):
        yield key, value
    elif isinstance(value, dict):
        for k, v in value.items():
            if k in ("types", "typings") or str(k).endswith(".d.ts"):
                continue
            yield from _targets(v, str(k) if key in ("bin",) else key)


def package_entries(path: str, text: str, paths: set[str]) -> list[Hit]:
    """The entry points of one ``package.json`` (a file that is not JSON yields none)."""
    try:
        doc = json.loads(text)
    except ValueError:
        return []
    if not isinstance(doc, dict):
        return []
    lines = text.split("\n")
    base = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
    out: list[Hit] = []
    specs: tuple[tuple[str, EntryKind], ...] = (
        ("bin", "package_bin"),
        ("main", "package_main"),
        ("module", "package_main"),
        ("exports", "package_exports"),
    )
    for key, kind in specs:
        if key not in doc:
            continue
        key_line = _line_of(lines, f'"{key}"')
        seen: set[str] = set()
        for name, target in _targets(doc[key], key):
            if not isinstance(target, str) or target in seen or not target.endswith(_SRC_SUFFIXES):
                continue
            seen.add(target)
            line = (
                _line_of(lines, json.dumps(target)[1:-1], key_line - 1 if key_line else 0)
                or key_line
            )
            if not line:
                continue
            detail: EntryDetail = {
                "script": name,
                "command": clip(target, 120),
                "why": f'package.json "{key}" names {clip(target, 60)}',
            }
            src = _resolve(base, target, paths)
            if src:
                detail["target_path"] = src
            out.append(
                Hit.at_line(
                    path,
                    line,
                    symbol="<module>",
                    category=Category.ENTRY_POINT,
                    kind=kind,
                    detail=detail,
                )
            )
    return out + _script_entries(path, doc, lines, base, paths)


def _script_entries(
    path: str, doc: dict[str, object], lines: list[str], base: str, paths: set[str]
) -> list[Hit]:
    """``scripts`` that start the system (``start``, ``dev``, ``serve``, ...)."""
    out: list[Hit] = []
    scripts = doc.get("scripts")
    if isinstance(scripts, dict):
        start = _line_of(lines, '"scripts"')
        for name, cmd in scripts.items():
            if not isinstance(cmd, str) or not _RUN_SCRIPTS.match(str(name)):
                continue
            line = _line_of(lines, json.dumps(str(name)), start - 1 if start else 0)
            if not line:
                continue
            detail: EntryDetail = {
                "script": str(name),
                "command": clip(cmd, 120),
                "why": f'package.json script "{name}" runs the system',
            }
            m = re.search(
                r"(?:node|tsx|ts-node|bun|deno run)\s+(?:--\S+\s+)*([\w./\-]+\.(?:[cm]?js|tsx?))",
                cmd,
            )
            if m:
                src = _resolve(base, m.group(1), paths)
                if src:
                    detail["target_path"] = src
            out.append(
                Hit.at_line(
                    path,
                    line,
                    symbol="<module>",
                    category=Category.ENTRY_POINT,
                    kind="package_script",
                    detail=detail,
                )
            )
    return out
