"""Tool registries and dispatch: how model output becomes a chosen piece of code.

Dicts whose values are functions, calls through a subscript (``tools[name](...)``),
``getattr`` with a computed name, dynamic imports (``importlib``, ``exec_module``,
entry points), tool decorators/wrappers, and JSON tool schemas handed to a model.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from retrieval.languages.python.values import literal
from retrieval.survey.base import Hit, clip
from retrieval.survey.details import ToolDetail
from retrieval.survey.model import Category, ToolKind
from retrieval.survey.source import Call, PyFile

_DYNAMIC_IMPORT: dict[str, ToolKind] = {
    "importlib.import_module": "import_module",
    "importlib.util.spec_from_file_location": "spec_from_file",
    "importlib.util.module_from_spec": "module_from_spec",
    "importlib.reload": "reload",
    "__import__": "import_module",
    "pkgutil.iter_modules": "plugin_scan",
    "importlib.metadata.entry_points": "entry_points",
    "runpy.run_path": "run_path",
    "runpy.run_module": "run_path",
}
_TOOL_WRAPPERS = {"FunctionTool", "Tool", "StructuredTool", "tool", "function_tool", "BaseTool"}
_TOOL_DECORATORS = re.compile(r"^(?:[\w.]+\.)?(tool|function_tool|register_tool|mcp\.tool)\b")
_SCHEMA_MARKERS = (
    re.compile(r"""['"]input_schema['"]\s*:"""),
    re.compile(r"""['"]type['"]\s*:\s*['"]function['"]"""),
    re.compile(r"""['"]parameters['"]\s*:\s*\{[^}]*['"](?:type|properties)['"]""", re.S),
)
_NAME_RE = re.compile(r"""['"]name['"]\s*:\s*['"]([^'"]+)['"]""")
_DESC_RE = re.compile(r"""['"]description['"]\s*:\s*(?:\(\s*)?['"]([^'"]{12,})['"]""")


def _dispatch_call(c: Call) -> tuple[ToolKind, ToolDetail] | None:
    """What one call does to choose code, if anything: a dynamic import, ``exec_module``,
    ``getattr`` with a computed name, a call through a subscript, or a tool wrapper;
    the first that fits."""
    last = c.full.rsplit(".", 1)[-1]
    if c.full in _DYNAMIC_IMPORT or (c.callee == "__import__"):
        target = clip(c.positional[0], 80) if c.positional else ""
        return _DYNAMIC_IMPORT.get(c.full, "import_module"), {"target": target}
    if last == "exec_module" and c.callee_type == "attribute":
        return "exec_module", {"target": clip(c.args_text, 80)}
    if c.callee == "getattr" and len(c.positional) >= 2 and literal(c.positional[1]) is None:
        return "getattr_dispatch", {"name_expr": clip(c.positional[1], 60)}
    if c.callee_type == "subscript":
        return "subscript_dispatch", {"callee": clip(c.callee, 80)}
    if (
        last in _TOOL_WRAPPERS
        and c.positional
        and c.full != last
        or c.callee in ("FunctionTool", "StructuredTool.from_function")
    ):
        return "tool_wrapper", {"tool": clip(c.positional[0] if c.positional else c.args_text, 60)}
    return None


def _names_callable(pf: PyFile, value: str, defined: Callable[[str], bool]) -> bool:
    """Whether a dict value names a callable: a function or class of the repository or
    an import (not an upper-case constant), ``self.method`` of this file, or a function
    of the repository reached through an imported name (``tools.run``).  An
    attribute of a local object (``task.id`` in a logging ``extra={...}``) does not,
    even when some function of the repository shares its last name."""
    head, _, rest = value.partition(".")
    if not rest:  # an upper-case name is a constant (a client ID), not a callable
        return defined(value) and not value.isupper()
    if head in ("self", "cls"):
        return rest in {d.name for d in pf.defs}
    last = rest.rsplit(".", 1)[-1]  # ``Status.RUNNING``, ``torch.float32``: values, not calls
    return head in pf.imports and defined(last) and not last.isupper()


def tool_findings(pf: PyFile, repo_functions: set[str]) -> list[Hit]:
    hits: list[Hit] = []
    # the file's own names, and the repository's looked up in place: a union copied the
    # repository-wide set once per file
    local = {d.name for d in pf.defs} | set(pf.imports)

    def defined(name: str) -> bool:
        return name in local or name in repo_functions

    for c in pf.calls:
        found = _dispatch_call(c)
        if found is not None:
            hits.append(
                Hit.at_call(pf, c, category=Category.TOOL_DISPATCH, kind=found[0], detail=found[1])
            )
    for d in pf.defs:
        if any(_TOOL_DECORATORS.match(dec) for dec in d.decorators):
            hits.append(
                Hit(
                    category=Category.TOOL_DISPATCH,
                    kind="tool_decorator",
                    path=pf.path,
                    start_line=d.start_line,
                    end_line=d.def_line,
                    symbol=d.symbol,
                    detail={"tool": d.name, "description": clip(d.docstring or "", 160)},
                )
            )
        if d.name in ("tool_info", "tool_function", "get_tool_schema"):
            hits.append(
                Hit.at_line(
                    pf.path,
                    d.def_line,
                    symbol=d.symbol,
                    category=Category.TOOL_DISPATCH,
                    kind="tool_module",
                    detail={"tool": pf.module.rsplit(".", 1)[-1]},
                )
            )
    schema_spans: list[tuple[int, int]] = []
    for dct in sorted(pf.dicts, key=lambda s: (s.start_line, -s.end_line)):
        if any(a <= dct.start_line and dct.end_line <= b for a, b in schema_spans):
            continue
        vals = [v for v in dct.extra.get("callable_values", "").split(",") if v]
        if len(vals) >= 2 and sum(1 for v in vals if _names_callable(pf, v, defined)) >= 2:
            hits.append(
                Hit(
                    category=Category.TOOL_DISPATCH,
                    kind="callable_registry",
                    path=pf.path,
                    start_line=dct.start_line,
                    end_line=min(dct.end_line, dct.start_line + 2),
                    symbol=dct.symbol,
                    detail={"callables": ", ".join(vals[:8])},
                )
            )
            schema_spans.append((dct.start_line, dct.end_line))
            continue
        if any(p.search(dct.text) for p in _SCHEMA_MARKERS) and (
            "properties" in dct.text or "input_schema" in dct.text
        ):
            name = _NAME_RE.search(dct.text)
            desc = _DESC_RE.search(dct.text)
            detail: ToolDetail = {"tool": name.group(1) if name else ""}
            if desc:
                detail["description"] = desc.group(1)
            # anchor on the tool's name line: "{" alone says nothing and makes no witness
            line = dct.start_line + (dct.text[: name.start()].count("\n") if name else 0)
            hits.append(
                Hit.at_line(
                    pf.path,
                    line,
                    symbol=dct.symbol,
                    category=Category.TOOL_DISPATCH,
                    kind="tool_schema",
                    detail=detail,
                )
            )
            schema_spans.append((dct.start_line, dct.end_line))
    return hits
