"""Where witnesses sit in the code: the enclosing function of each quoted line and the
repository's call graph, for the alignment's "belongs to that route" signal.

Why: an analyst's gold report often folds into one route what a machine draft writes
as several records -- the objects the route reads and writes, the tools it calls, the
claims about it.  Those records share little prose and few names with the route, and
their quotes sit in other functions (often other files) than the route's own quotes,
so text, names and line overlap all miss that they belong together.  What they share
is the call path: the draft record's quotes sit in functions the route's functions
call, or that call them.  :class:`CodeMap` answers that from the survey's call graph
(``retrieval.survey``), built at eval time for the revision being scored.

A :class:`CodeMap` holds no names and no code: functions are ``(path, first line,
last line)`` spans and calls are index pairs, so it can be saved beside a labelled
pair (``save`` / ``load``) and tests need no clone of the repository.
"""

from __future__ import annotations

if __name__ == "__main__":
    # ``python -m`` puts the current folder first on sys.path.  Refuse, before any other
    # project import, when that folder holds a package named like one of drafter's: an
    # analysed repository's code would be imported instead.  (Stdlib only, on purpose.)
    import sys as _sys
    from pathlib import Path as _Path

    _ours, _first = _Path(__file__).resolve().parents[1], _Path(_sys.path[0] or ".").resolve()
    if not _sys.flags.safe_path and _first != _ours:
        for _name in ("drafter", "graph", "evals", "retrieval", "tui", "prompts"):
            if (_first / _name / "__init__.py").is_file() or (_first / f"{_name}.py").is_file():
                print(
                    f"drafter: error: {_first} holds a {_name!r} package that python -m would "
                    "import instead of drafter's; run `drafter eval-structure` instead",
                    file=_sys.stderr,
                )
                _sys.exit(2)

import hashlib
import json
import posixpath
from collections import defaultdict, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from drafter.errors import BadInput
from drafter.model import LineRange
from evals.copies import LineMap, find_copies
from evals.witnesses import LocatedWitness

if TYPE_CHECKING:
    from drafter.snapshot import Snapshot
    from retrieval.survey.model import Survey

#: Calls followed from a record's own functions: up to UP_HOPS callers, then up to
#: DOWN_HOPS callees (see CodeMap.reach).  Chosen on the labelled sample pair only
#: (see evals.alignment).
UP_HOPS = 2
DOWN_HOPS = 2


@dataclass(slots=True)
class CodeMap:
    """Function spans of one revision and the calls between them (indices)."""

    #: (path, first line, last line) per function; module level and ``__main__``
    #: blocks are functions too (the survey's ``<module>``/``<main>`` nodes).
    functions: list[tuple[str, int, int]]
    #: (caller, callee) index pairs, plus class/method containment (see from_survey).
    calls: list[tuple[int, int]]
    #: Files that are copies of each other, with their line maps (evals.copies): a
    #: quote in one copy sits, for the call path, in the matching function of each.
    copies: list[LineMap] = field(default_factory=list)
    #: A short hash of each function's qualified name (see :func:`name_hash`), or None
    #: for a map saved before names were kept.  A hash, not the name: the saved map
    #: still holds no code, yet says that ``_arc/search.py``'s ``search`` and
    #: ``_mgsm/search.py``'s ``search`` are the same function in two sibling copies.
    names: list[str] | None = None
    _by_path: dict[str, list[int]] = field(default_factory=dict, init=False, repr=False)
    _copies_of: dict[str, list[LineMap]] = field(default_factory=dict, init=False, repr=False)
    _down: dict[int, list[int]] = field(default_factory=dict, init=False, repr=False)
    _up: dict[int, list[int]] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        by_path: dict[str, list[int]] = defaultdict(list)
        for i, (path, _, _) in enumerate(self.functions):
            by_path[path].append(i)
        self._by_path = dict(by_path)
        down: dict[int, list[int]] = defaultdict(list)
        up: dict[int, list[int]] = defaultdict(list)
        for a, b in self.calls:
            down[a].append(b)
            up[b].append(a)
        self._down, self._up = dict(down), dict(up)
        copies_of: dict[str, list[LineMap]] = defaultdict(list)
        for m in self.copies:
            copies_of[m.a].append(m)
            copies_of[m.b].append(m.reversed())
        self._copies_of = dict(copies_of)

    # -- where a quote sits ---------------------------------------------------------

    def identity(self, node: int) -> tuple[str, str]:
        """What a function is across sibling copies: its file name (not the folder)
        and its name hash.  Without saved names, the path and index: no copy is merged."""
        path = self.functions[node][0]
        if self.names is None:
            return path, str(node)
        return posixpath.basename(path), self.names[node]

    def enclosing(self, path: str, line: int) -> int | None:
        """The innermost function of ``path`` holding ``line``; None outside code the
        survey parsed (documents, configuration, skipped files)."""
        best: int | None = None
        best_size = 0
        for i in self._by_path.get(path, ()):
            _, start, end = self.functions[i]
            if start <= line <= end and (best is None or end - start < best_size):
                best, best_size = i, end - start
        return best

    def nodes_of(self, witnesses: Iterable[LocatedWitness]) -> list[int]:
        """The enclosing function of each located witness (one entry per witness that
        sits in parsed code, so repeated quotes of one function weigh more)."""
        out: list[int] = []
        for w in witnesses:
            span = w.span
            if span is None:
                continue
            node = self.enclosing(w.path, span.start)
            if node is not None:
                out.append(node)
        return out

    def counterparts(
        self, path: str, start: int, end: int, exact: bool = False
    ) -> list[tuple[str, int, int]]:
        """The lines ``start``-``end`` of ``path`` in each copy of that file
        (``(path, start, end)``; none when the file has no copy).  With ``exact`` only
        copies where both ends are lines of the same text (see LineMap.project_exact)."""
        out: list[tuple[str, int, int]] = []
        for m in self._copies_of.get(path, ()):
            if exact:
                ea, eb = m.project_exact(start), m.project_exact(end)
                if ea is None or eb is None:
                    continue
                a, b = ea, eb
            else:
                a, b = m.project(start), m.project(end)
            out.append((m.b, min(a, b), max(a, b)))
        return out

    def copied(
        self, witnesses: Iterable[LocatedWitness], exact: bool = False
    ) -> list[LocatedWitness]:
        """Each located witness again at the matching lines of every copy of its file
        (same quote, owner and fingerprint; only the path and lines differ), so witness
        overlap and nearby-line credit see a quote of one copy in the others too.  With
        ``exact`` only where the copy holds the same text at both ends of the quote."""
        out: list[LocatedWitness] = []
        for w in witnesses:
            span = w.span
            if span is None:
                continue
            for path, start, end in self.counterparts(w.path, span.start, span.end, exact):
                lines = LineRange(start=start, end=end)
                out.append(
                    replace(
                        w,
                        witness=w.witness.model_copy(update={"path": path, "lines": lines}),
                        verification=w.verification.model_copy(update={"lines": lines}),
                    )
                )
        return out

    def node_choices(self, witnesses: Iterable[LocatedWitness]) -> list[list[int]]:
        """For each located witness in parsed code: its enclosing function, then the
        matching function in each copy of its file (see :meth:`counterparts`).  A
        witness in no parsed function of any copy is left out, as in :meth:`nodes_of`.
        """
        out: list[list[int]] = []
        for w in witnesses:
            span = w.span
            if span is None:
                continue
            choice: list[int] = []
            own = self.enclosing(w.path, span.start)
            if own is not None:
                choice.append(own)
            for path, start, _ in self.counterparts(w.path, span.start, span.end):
                node = self.enclosing(path, start)
                if node is not None and node not in choice:
                    choice.append(node)
            if choice:
                out.append(choice)
        return out

    # -- the call path --------------------------------------------------------------

    def reach(
        self, starts: Iterable[int], up: int = UP_HOPS, down: int = DOWN_HOPS
    ) -> dict[int, int]:
        """Functions on the call path of ``starts``, with the fewest calls to each:
        up to ``up`` callers (callers of callers), then from each of those up to
        ``down`` callees.  ``down`` from a start alone is what it calls; from a
        caller it is the code called beside it (the tool, the write, the check
        the same loop runs)."""
        ups = {s: 0 for s in starts}
        queue = deque(ups)
        while queue:
            node = queue.popleft()
            if ups[node] >= up:
                continue
            for nxt in self._up.get(node, ()):
                if nxt not in ups:
                    ups[nxt] = ups[node] + 1
                    queue.append(nxt)
        out = dict(ups)
        for top, base in ups.items():
            seen = {top: base}
            queue = deque([top])
            while queue:
                node = queue.popleft()
                if seen[node] - base >= down:
                    continue
                for nxt in self._down.get(node, ()):
                    if nxt not in seen:
                        seen[nxt] = seen[node] + 1
                        queue.append(nxt)
            for node, hops in seen.items():
                if hops < out.get(node, hops + 1):
                    out[node] = hops
        return out

    # -- saving ---------------------------------------------------------------------

    def save(self, out: Path, revision: str) -> None:
        """Write the map as JSON (spans and index pairs only: no names, no code)."""
        rows = ",\n  ".join(json.dumps(list(f)) for f in self.functions)
        copies = ",\n  ".join(json.dumps(m.to_json()) for m in self.copies)
        names = "" if self.names is None else f' "names": {json.dumps(self.names)},\n'
        out.write_text(
            f'{{"revision": {json.dumps(revision)},\n "functions": [\n  {rows}\n ],\n'
            f"{names}"
            f' "calls": {json.dumps([list(c) for c in self.calls])},\n'
            f' "copies": [\n  {copies}\n ]}}\n',
            encoding="utf-8",
        )


def load(path: Path) -> tuple[CodeMap, str]:
    """A saved map and the revision it was made at."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        functions = [(str(p), int(s), int(e)) for p, s, e in data["functions"]]
        calls = [(int(a), int(b)) for a, b in data["calls"]]
        copies = [LineMap.from_json(row) for row in data.get("copies", [])]
        revision = str(data["revision"])
        raw = data.get("names")
        names = None if raw is None else [str(n) for n in raw]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise BadInput(f"{path}: not a saved code map: {exc}") from None
    if names is not None and len(names) != len(functions):
        raise BadInput(
            f"{path}: not a saved code map: {len(names)} names for {len(functions)} functions"
        )
    return CodeMap(functions, calls, copies, names), revision


def name_hash(symbol: str) -> str:
    """A function's qualified name (``Class.method``, ``<module>``) as 12 hex digits."""
    return hashlib.sha256(symbol.encode()).hexdigest()[:12]


def from_survey(survey: Survey, snapshot: Snapshot | None = None) -> CodeMap:
    """The survey's call graph as a :class:`CodeMap`; with the ``snapshot`` it was made
    from, also the copies among its parsed files (evals.copies; read from git objects).

    A definition's container is linked to it like a caller (module -> top-level
    function or class, class -> method): a quote of module or class level code (a
    constant, a tool table, a class attribute) belongs to the functions defined
    beside it, which read it.
    """
    graph = survey.call_graph
    ids = sorted(graph.functions)
    index = {nid: i for i, nid in enumerate(ids)}
    functions = [
        (graph.functions[n].path, graph.functions[n].start_line, graph.functions[n].end_line)
        for n in ids
    ]
    calls: set[tuple[int, int]] = set()
    for src, dsts in graph.edges.items():
        for dst in dsts:
            if src in index and dst in index:
                calls.add((index[src], index[dst]))
    for nid in ids:
        path, _, symbol = nid.partition("::")
        if symbol.startswith("<"):
            continue
        parent = f"{path}::{symbol.rsplit('.', 1)[0]}" if "." in symbol else f"{path}::<module>"
        if parent in index:
            calls.add((index[parent], index[nid]))
    copies: list[LineMap] = []
    if snapshot is not None:
        paths = sorted({p for p, _, _ in functions})
        copies = find_copies({tf.path: tf.text for tf in snapshot.iter_text(paths)})
    names = [name_hash(n.partition("::")[2]) for n in ids]
    return CodeMap(functions, sorted(calls), copies, names)


_MAPS: dict[tuple[str, str], CodeMap] = {}


def code_map(snapshot: Snapshot) -> CodeMap:
    """The code map of a snapshot, from the survey (cached on disk under the data
    directory, as drafting does, and in this process: baselines ask again)."""
    key = (snapshot.identity, snapshot.sha)
    if key not in _MAPS:
        from drafter.config import data_dir
        from retrieval.survey.cache import cached_survey

        _MAPS[key] = from_survey(cached_survey(snapshot, data_dir() / "surveys"), snapshot)
    return _MAPS[key]


def path_credit(
    gold: Sequence[LocatedWitness],
    draft: Sequence[LocatedWitness],
    cmap: CodeMap,
    up: int = UP_HOPS,
    down: int = DOWN_HOPS,
) -> float | None:
    """How much of a draft record sits on the call path of a gold record's code.

    Each draft quote in parsed code earns ``1 - h / (up + down + 1)`` when its
    function is ``h`` calls from a function the gold record quotes (1 in the same
    function; see CodeMap.reach), 0 off the path; the credit is the mean over those
    quotes.  None when either record
    quotes no parsed code (documents only): the call graph then cannot say.

    Directional on purpose: a draft record that is one part of a gold route (an
    object it writes, a tool it calls) lies inside the route's reach, while the route
    reaches far more than the part.
    """
    return credit_matrix([gold], [draft], cmap, up, down)[0][0]


def credit_matrix(
    gold: Sequence[Sequence[LocatedWitness]],
    draft: Sequence[Sequence[LocatedWitness]],
    cmap: CodeMap,
    up: int = UP_HOPS,
    down: int = DOWN_HOPS,
) -> list[list[float | None]]:
    """:func:`path_credit` of every gold record (rows) against every draft record.

    A gold record's reach and a draft record's functions depend on that record alone,
    so each is computed once here rather than once per pair.  A quote in a copied
    file stands for the matching function of every copy (:meth:`CodeMap.node_choices`):
    the gold record's reach starts from all of them, and a draft quote earns the best
    credit of any of them.
    """
    reaches = [
        cmap.reach({n for c in g for n in c}, up, down) if (g := cmap.node_choices(gw)) else None
        for gw in gold
    ]
    choices = [cmap.node_choices(dw) for dw in draft]
    span = up + down + 1

    def credit(reach: dict[int, int], d: list[list[int]]) -> float:
        return sum(max((1.0 - reach[n] / span for n in c if n in reach), default=0.0) for c in d)

    return [
        [None if reach is None or not d else credit(reach, d) / len(d) for d in choices]
        for reach in reaches
    ]


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m evals.structure --repo R --rev REV --out F``: save the code map of a
    revision beside a labelled pair (run once with the repository at hand).  With
    ``--add-names``, ``F`` is an existing map: its functions and calls are kept and
    only the name hashes are filled in from the survey (a function the survey no
    longer has keeps a name of its own, so it merges with no copy)."""
    import argparse

    from drafter.snapshot import Snapshot
    from retrieval.survey.runner import run_survey

    ap = argparse.ArgumentParser(prog="python -m evals.structure", description=main.__doc__)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--rev", required=True)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--add-names", action="store_true")
    args = ap.parse_args(argv)
    with Snapshot(args.repo, args.rev) as snap:
        cmap = from_survey(run_survey(snap), snap)
        if args.add_names:
            saved, revision = load(args.out)
            if revision != snap.sha:
                raise SystemExit(f"{args.out}: saved at {revision}, not {snap.sha}")
            assert cmap.names is not None
            live = dict(zip(cmap.functions, cmap.names, strict=True))
            saved.names = [live.get(f, name_hash(f"<gone>{f[0]}:{f[1]}")) for f in saved.functions]
            cmap = saved
        cmap.save(args.out, snap.sha)
    print(
        f"{args.out}: {len(cmap.functions)} functions, {len(cmap.calls)} calls, "
        f"{len(cmap.copies)} copies"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
