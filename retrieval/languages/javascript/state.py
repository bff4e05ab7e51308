"""Core in-memory state in ES code: what an agent loop carries from one turn to the next.

Why: a TypeScript agent keeps its run in process memory -- a class field holding a
``Map`` of approval decisions (``#approvals``), a message list the loop pushes onto
(``this.state.messages.push(...)``), a module-level registry, a state class that
serializes itself so a paused run can resume (``RunState.toJSON`` /
``RunState.fromString``).  None of it is a file, so the persistence rules see nothing,
yet it is the operative object an analyst starts from.

A finding needs evidence of state, not of a local helper collection:
- a class field (or ``this.x`` set in the constructor) made as a ``Map``, ``Set``,
  array or object literal that three or more of the class's methods touch, at least one
  of them changing it (``set``/``push``/``delete``..., or an assignment to it or into
  it), the constructor not counted;
- a module-level binding made the same way that three or more of the module's
  functions touch, one of them changing it;
- a class with both a way out (``toJSON``/``serialize``) and a way back in
  (``fromJSON``/``fromString``/``deserialize``): state meant to outlive the process.
Each finding names the state and the functions that use and change it; beside it, up
to two lines that change it (``state_write``) and one that reads it (``state_read``),
the witnesses a record quotes.  Test code keeps no system state: it is not read.
"""

from __future__ import annotations

import re

from retrieval.languages.facts import Def, SourceFile, Span
from retrieval.roles import in_test_code
from retrieval.survey.base import Hit
from retrieval.survey.details import StateDetail
from retrieval.survey.model import Category, StateKind

#: Fewest functions that must touch a collection for it to be state, not a helper's.
MIN_TOUCHING = 3
_MADE = re.compile(r"^\s*(?:new\s+(Map|Set|WeakMap|Array)\b|(\[)|(\{))")
_CHANGE_CALLS = "set|push|unshift|splice|delete|add|clear|pop|shift|sort|reverse"
_GROWS = re.compile(r"\.(?:set|push|unshift|add|splice)\(")
_OUT = frozenset({"toJSON", "serialize"})
_IN = frozenset({"fromJSON", "fromString", "deserialize", "fromObject"})
_WRITES_SHOWN = 2


def _holds(rhs: str) -> str | None:
    m = _MADE.match(rhs)
    if m is None:
        return None
    return m.group(1) or ("array" if m.group(2) else "object")


def _patterns(ref: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(a use of ``ref``, a change of it) as line patterns; ``ref`` as written."""
    r = re.escape(ref)
    # not a member of something else (``x.ref``), a spread (``...ref``) being a use
    head = rf"(?<![\w$#])(?:(?<=\.\.\.)|(?<!\.)){r}(?![\w$])"
    path = r"(?:\??\.[\w$#]+|\[[^\]]*\])*"
    change = re.compile(
        rf"{head}{path}(?:\??\.(?:{_CHANGE_CALLS})\(|\s*(?:=|\+=|-=|\?\?=|\|\|=|&&=)(?!=)|\+\+|--)"
    )
    return re.compile(head), change


class _Uses:
    """Which functions touch and change one piece of state, and where."""

    def __init__(self, pf: SourceFile, ref: str, fns: list[Def], skip: set[int]):
        use, change = _patterns(ref)
        self.touching: list[str] = []
        self.writers: list[str] = []
        self.writes: list[tuple[int, str]] = []
        self.reads: list[tuple[int, str]] = []
        for d in fns:
            touched = changed = False
            for n in range(d.def_line, min(d.end_line, len(pf.lines)) + 1):
                line = pf.lines[n - 1]
                if n in skip or not use.search(line):
                    continue
                touched = True
                if change.search(line):
                    changed = True
                    self.writes.append((n, d.symbol))
                else:
                    self.reads.append((n, d.symbol))
            if touched:
                self.touching.append(d.symbol)
            if changed:
                self.writers.append(d.symbol)

    def is_state(self) -> bool:
        return len(self.touching) >= MIN_TOUCHING and bool(self.writers)


def es_state(pf: SourceFile) -> list[Hit]:
    """Class fields, module bindings and serializable classes that hold a run's state."""
    if in_test_code(pf.path) or pf.path.endswith(".d.ts"):
        return []
    out: list[Hit] = []
    classes = [d for d in pf.defs if d.kind == "class" and "." not in d.symbol]
    for cls in classes:
        methods = [
            d
            for d in pf.defs
            if d.kind == "function"
            and d.symbol.startswith(cls.symbol + ".")
            and d.symbol.count(".") == 1
        ]
        out += _fields(pf, cls, methods)
        out += _serialized(pf, cls, methods)
    out += _module_state(pf)
    return out


def _fields(pf: SourceFile, cls: Def, methods: list[Def]) -> list[Hit]:
    out: list[Hit] = []
    ctor = f"{cls.symbol}.constructor"
    seen: set[str] = set()
    for a in pf.assigns:
        lhs = a.extra.get("lhs", "")
        if a.symbol not in (cls.symbol, ctor) or not lhs.startswith("this.") or lhs in seen:
            continue
        holds = _holds(a.extra.get("rhs", ""))
        if holds is None:
            continue
        seen.add(lhs)
        uses = _Uses(pf, lhs, [m for m in methods if m.symbol != ctor], {a.start_line})
        if uses.is_state():
            name = f"{cls.name}.{lhs.removeprefix('this.')}"
            out += _hits(pf, a, "field", name, holds, uses)
    return out


def _module_state(pf: SourceFile) -> list[Hit]:
    out: list[Hit] = []
    classes = {d.symbol for d in pf.defs if d.kind == "class"}
    # top-level functions and the methods of top-level classes (not nested closures)
    tops = [
        d
        for d in pf.defs
        if d.kind == "function"
        and (
            "." not in d.symbol or (d.symbol.count(".") == 1 and d.symbol.split(".")[0] in classes)
        )
    ]
    seen: set[str] = set()
    for a in pf.assigns:
        lhs = a.extra.get("lhs", "")
        if a.symbol != "<module>" or not re.fullmatch(r"[A-Za-z_$][\w$]*", lhs) or lhs in seen:
            continue
        holds = _holds(a.extra.get("rhs", ""))
        if holds is None:
            continue
        seen.add(lhs)
        uses = _Uses(pf, lhs, tops, {a.start_line})
        if uses.is_state():
            out += _hits(pf, a, "module", lhs, holds, uses)
    return out


def _serialized(pf: SourceFile, cls: Def, methods: list[Def]) -> list[Hit]:
    names = {m.name: m for m in methods}
    out_m = next((names[n] for n in sorted(_OUT) if n in names), None)
    in_m = next((names[n] for n in sorted(_IN) if n in names), None)
    if out_m is None or in_m is None:
        return []
    why = (
        f"{cls.name} turns itself into data ({out_m.name}) and is rebuilt from it "
        f"({in_m.name}): state meant to outlive one process, such as a paused run"
    )
    detail: StateDetail = {"state": cls.name, "holds": "a class", "why": why}
    detail["touched_by"] = ", ".join(m.name for m in methods[:12])
    detail["written_by"] = out_m.symbol
    return [
        Hit.at_line(
            pf.path,
            cls.def_line,
            symbol=cls.symbol,
            category=Category.STATE,
            kind="serialized",
            detail=detail,
        ),
        _line_hit(pf, out_m.def_line, out_m.symbol, "state_write", cls.name, "write"),
        _line_hit(pf, in_m.def_line, in_m.symbol, "state_read", cls.name, "read"),
    ]


def _hits(
    pf: SourceFile, a: Span, kind: StateKind, name: str, holds: str, uses: _Uses
) -> list[Hit]:
    others = [s for s in uses.touching if s not in uses.writers]
    why = (
        f"{name} is made as {'a ' + holds if holds[0].isupper() else 'an ' + holds}"
        f" and used by {len(uses.touching)} functions, {len(uses.writers)} of them changing it:"
        " state kept in memory across calls"
    )
    detail: StateDetail = {
        "state": name,
        "holds": holds,
        "touched_by": ", ".join(uses.touching[:12]),
        "written_by": ", ".join(uses.writers[:12]),
        "why": why,
        "uses": len(uses.touching),
        "changes": len(uses.writers),
    }
    end = min(a.end_line, a.start_line + 2)
    out = [
        Hit(
            category=Category.STATE,
            kind=kind,
            path=pf.path,
            start_line=a.start_line,
            end_line=end,
            symbol=a.symbol,
            detail=detail,
        )
    ]
    shown: set[str] = set()
    # a call that adds to it (``set``, ``push``) says most, then other changes; by a
    # method callers use before an internal one
    writes = sorted(
        uses.writes,
        key=lambda w: (not _GROWS.search(pf.lines[w[0] - 1]), _internal(w[1]), w[0]),
    )
    reads = sorted(uses.reads, key=lambda r: (_internal(r[1]), r[0]))
    for n, sym in writes:
        if sym not in shown and len(shown) < _WRITES_SHOWN:
            shown.add(sym)
            out.append(_line_hit(pf, n, sym, "state_write", name, "write"))
    for n, sym in reads:
        if sym not in uses.writers or not others:
            out.append(_line_hit(pf, n, sym, "state_read", name, "read"))
            break
    return out


def _internal(symbol: str) -> bool:
    """A method named as internal (``_rebuild``, ``#set``)."""
    return symbol.rsplit(".", 1)[-1].startswith(("_", "#"))


def _line_hit(pf: SourceFile, n: int, sym: str, kind: StateKind, name: str, access: str) -> Hit:
    detail: StateDetail = {"state": name, "access": access}
    return Hit.at_line(pf.path, n, symbol=sym, category=Category.STATE, kind=kind, detail=detail)
