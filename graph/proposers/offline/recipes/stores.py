"""Stored state: a file the code both writes and reads back (an operative object).

The object an analyst starts from in a system that iterates is often its own record
of earlier iterations: an archive, a results table, a checkpoint of candidates that a
loop writes and the same loop (or the next run, resuming) reads again.  The survey
sees the write; it sees the read only when both name the file by a constant or a
literal.  A path held in a variable (``path = os.path.join(out, f"{name}_runs.json")``
then ``open(path, "w")`` … ``open(path)``) is matched here from the function's own
lines: the same variable opened or loaded for reading in the function that writes
it.  The assignment that names the file, the write and the read are the witnesses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from drafter.ids import slug, unique_id
from drafter.model import Block, Record
from graph.proposer import PlanItem
from graph.proposers.offline.prose import TextOf, join_names, para, where
from graph.proposers.offline.rank import path_class
from graph.proposers.offline.recipe import DraftContext, PlanState, file_stem
from retrieval.survey import Finding
from retrieval.survey.index import SurveyIndex
from retrieval.survey.model import Category

MAX_STORES = 2
_WRITES = {"write", "append", "json", "pickle", "csv", "yaml", "file", "torch", "numpy", "parquet"}
_TARGET = re.compile(r"^(?:self\.)?[A-Za-z_]\w*$")
_FORMS = {
    "json": "JSON document",
    "jsonl": "JSON lines",
    "pkl": "pickled Python objects",
    "pickle": "pickled Python objects",
    "csv": "CSV table",
    "tsv": "TSV table",
    "yaml": "YAML document",
    "yml": "YAML document",
    "txt": "plain text",
    "md": "Markdown text",
}


def _read_line(target: str) -> re.Pattern[str]:
    """A line that opens or loads ``target`` for reading (not for writing)."""
    t = re.escape(target)
    return re.compile(
        rf"\bopen\(\s*{t}\s*(?:\)|,\s*(?:mode\s*=\s*)?[rbu]?['\"][rbt]+['\"])"
        rf"|\b\w*load\w*\(\s*{t}\s*[,)]|\bread_\w+\(\s*{t}\s*[,)]|\b{t}\.read_(?:text|bytes)\("
    )


@dataclass(frozen=True)
class Store:
    """One written-and-read-back file: the write, its read lines, the naming line."""

    write: Finding
    reads: tuple[int, ...]
    assign: int | None
    name: str


def _name_of(assign_text: str, target: str) -> str:
    """The file's name as the code spells it: the string literal of the assignment with
    an extension (``f"{x}_runs.json"`` -> ``{x}_runs.json``), else the variable."""
    lits = re.findall(r"""[fr]?['"]([^'"]+\.[A-Za-z0-9]{1,6})['"]""", assign_text)
    return max(lits, key=len) if lits else target


def find_stores(ix: SurveyIndex, text_of: TextOf | None) -> list[Store]:
    """Writes whose target variable the same function opens or loads again."""
    lines_of = text_of
    out: list[Store] = []
    seen: set[tuple[str, str]] = set()
    fns = ix.survey.call_graph.functions
    for f in ix.category(Category.PERSISTENCE):
        target = str(f.detail.get("target", "")).strip()
        fn = fns.get(f.node)
        if f.kind not in _WRITES or not _TARGET.match(target) or fn is None or lines_of is None:
            continue
        text = lines_of(f.path)
        if not isinstance(text, str) or (f.path, f"{f.node}:{target}") in seen:
            continue
        lines = text.splitlines()
        body = range(fn.start_line, min(fn.end_line, len(lines)) + 1)
        reader = _read_line(target)
        reads = tuple(n for n in body if reader.search(lines[n - 1]) and n != f.start_line)
        if not reads:
            continue
        assign_rx = re.compile(rf"^\s*{re.escape(target)}\s*(?::[^=]+)?=(?!=)\s*\S")
        assigns = [n for n in body if assign_rx.match(lines[n - 1]) and n < f.start_line]
        assign = assigns[-1] if assigns else None
        name = _name_of(lines[assign - 1], target) if assign else target
        seen.add((f.path, f"{f.node}:{target}"))
        out.append(Store(f, reads, assign, name))
    return out


def line_finding(
    f: Finding, n: int, text: str, kind: Literal["read", "written_value"], category: Category
) -> Finding:
    """Line ``n`` of ``f``'s file as a finding of its own (a read, or the line naming the
    file written), so a record can quote it."""
    lines = text.splitlines()
    snippet = lines[n - 1]
    # a ``with open(...) as fh:`` line reads nothing by itself: quote the load beneath it
    if snippet.rstrip().endswith(":") and n < len(lines):
        snippet += "\n" + lines[n]
    return Finding(
        id=f"{kind}:{f.path}:{n}",
        category=category,
        kind=kind,
        path=f.path,
        start_line=n,
        end_line=n + snippet.count("\n"),
        symbol=f.symbol,
        snippet=snippet,
    )


def store_slug(name: str) -> str:
    """The ID slug of a stored-state object: the file's name as the code spells it,
    without the placeholders of a computed name (``{x}_runs.json`` -> ``runs-json``)."""
    base = name.rsplit("/", 1)[-1]
    return slug(re.sub(r"\{[^}]*\}", "", base) or base)


def name_stores(items: list[PlanItem]) -> None:
    """Give each stored-state item an ID from what it names, once the plan is final.

    IDs are handed out in plan order while the recipe plans every copy of a store
    (one per sibling folder), so the copy kept after folding carried a plan-order
    suffix (``-7``) that says nothing and moves when another file is added.  Here an
    item's ID is ``RT-OBJ-<file name>``; when another record of the report already has
    that ID, the writing file's name and then its folder tell them apart; a number is
    the last resort (two writes of one name in one file)."""
    stores = [i for i in items if i.recipe == "stored_state"]
    taken = {i.id for i in items if i.recipe != "stored_state"}
    for i in stores:
        name = str(i.hints.get("name") or "")
        path = i.files[0] if i.files else ""
        folder = path.rsplit("/", 2)[-2] if path.count("/") else ""
        stem = file_stem(path) if path else ""
        base = store_slug(name) if name else re.sub(r"^RT-OBJ-|-\d+$", "", i.id)
        tries = [base, slug(base, stem), slug(base, folder, stem)]
        pick = next((f"RT-OBJ-{t}" for t in tries if f"RT-OBJ-{t}" not in taken), None)
        i.id = pick or unique_id(f"RT-OBJ-{tries[-1]}", taken)
        taken.add(i.id)


class Stores:
    name = "stored_state"
    kind = "OBJ"

    def plan(self, st: PlanState) -> list[PlanItem]:
        # the loop's own state is what the primary routes reach (the ways the system is
        # meant to be started); a helper or data-prep script's cache is not
        route_nodes = {n for u in st.primary_units for n in st.ix.reachable(u.node)}
        stores = sorted(
            find_stores(st.ix, st.text_of),
            key=lambda s: (
                path_class(s.write.path),
                s.write.node not in route_nodes,
                s.write.path,
                s.write.start_line,
            ),
        )
        items: list[PlanItem] = []
        for s in stores:
            # copies in sibling folders are folded after planning; the cap applies then
            off_route = bool(route_nodes) and s.write.node not in route_nodes
            if path_class(s.write.path) > 0 or off_route:
                continue
            items.append(
                st.item(
                    self,
                    store_slug(s.name),
                    f"Stored state written and read back: {s.name} ({s.write.path})",
                    [s.write],
                    "A file the code writes and reads again.",
                    {"reads": list(s.reads), "assign": s.assign, "name": s.name},
                )
            )
        return items

    def draft(self, ctx: DraftContext) -> Record | None:
        write = ctx.findings[0]
        text = ctx.text_of(write.path) if ctx.text_of else None
        if text is None:
            return None
        h = ctx.item.hints
        reads = [
            line_finding(write, int(n), text, "read", Category.READ_BACK)
            for n in h.get("reads", [])
        ]
        assign = h.get("assign")
        named = (
            [line_finding(write, int(assign), text, "written_value", Category.PERSISTENCE)]
            if assign
            else []
        )
        name = str(h.get("name") or write.detail.get("target"))
        ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
        blocks: list[Block] = [
            para(
                f"Source-native identity: {name}, written at {where(write)} and read back at "
                f"{join_names([f'{write.path}:{r.start_line}' for r in reads], 2)} by the same "
                f"function. Representational form: {_FORMS.get(ext, 'file content')}. Storage "
                "substrate: local file system, at a path the code computes."
            ),
            para(
                "What one pass writes is what a later pass (or a resumed run) starts from: the "
                "file is the loop's own state, not a report left behind. Nothing in the survey "
                "checks its provenance between the write and the read."
            ),
        ]
        return ctx.record(blocks, [*named, write, *reads[:1]])
