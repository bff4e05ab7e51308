"""The self-modification loop: what a run produces becomes what the next run obeys.

Agentic systems that improve themselves close a loop through storage: a run writes
a file (a patch, a prompt, an archive of scored candidates) and a later step loads
it as code, reads it as instruction, or decides from it.  The survey shows each half
separately (a write, a read-back of the same name, a git operation, a dynamic load);
this recipe joins them into one record when the code shows both halves, naming the
consumer by what the reading side reaches: code execution or loading, a model call,
or a gate.  A git operation that commits or applies changes to the working tree in a
function that also runs code is the same loop with the repository itself as storage.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from drafter.ids import slug
from drafter.model import Block, Record
from graph.proposer import PlanItem
from graph.proposers.offline.prose import para, short_symbol, where
from graph.proposers.offline.rank import decisive_rank, path_class
from graph.proposers.offline.recipe import DraftContext, PlanState
from graph.proposers.offline.recipes.artifacts import families
from retrieval.survey import Finding
from retrieval.survey.index import SurveyIndex
from retrieval.survey.model import Category

#: What the consumer of fed-back state does with it, most authority first.
_CONSUMERS = ("code", "instruction", "selection")
_GIT_CHANGES = ("apply", "commit", "checkout", "reset", "merge", "am", "cherry-pick")


@dataclass
class Loop:
    write: Finding
    read: Finding
    consumer: str  # one of _CONSUMERS
    decider: Finding | None
    name: str
    #: how directly the code shows the loop: 0 code written and run, 1 stored state read
    #: back, 2 a git operation in a function that also runs code
    strength: int = 1


def _consumer(ix: SurveyIndex, read: Finding) -> tuple[str, Finding | None] | None:
    """What the reading function (or its direct caller) does with what it read."""
    nodes = [read.node, *sorted(ix.callers.get(read.node, set()))[:3]]
    # stored data read back is instruction or a decision far more often than code: a
    # reached subprocess does not execute what was read, so code is the last resort
    for want in ("instruction", "selection", "code"):
        for n in nodes:
            for f in ix.reached_findings(n)[:200]:
                if want == "code" and _runs_what_was_read(f, read):
                    return want, f
                if (
                    want == "instruction"
                    and f.category == Category.MODEL_CALL
                    and f.kind != "client"
                ):
                    return want, f
                if want == "selection" and f.category == Category.GATING and decisive_rank(f) <= 1:
                    return want, f
    return None


def _runs_what_was_read(f: Finding, read: Finding) -> bool:
    """Whether ``f`` runs the code that was read: a load of code (import, exec, run_path)
    or a command whose line names what was read (its variable or its file name).  Any
    other load or subprocess the reader reaches (a ``git clone``, a test run, an import
    of a fixed module) does not execute the stored text, and calling the store "code"
    would contradict the witness."""
    loads = f.kind in ("import_module", "exec_module", "run_path", "exec_eval")
    if not loads and f.category != Category.EXEC_EFFECT:
        return False
    names = {
        str(read.detail.get(k) or "").rstrip("/").rsplit("/", 1)[-1]
        for k in ("target", "target_value", "written_value", "written_as")
    }
    return any(
        len(n) >= 4 and re.search(rf"(?<![\w.]){re.escape(n)}(?![\w])", f.snippet) for n in names
    )


def _names(f: Finding, base: str, stem: str) -> bool:
    """Whether ``f``'s line names the written file: by its file name, or — for Python
    source — by its module name where a module is loaded (``import stem``, ``from stem
    import``, ``python -m stem``, a quoted name handed to a dynamic import).  A shared
    word alone is not the file: ``git config`` does not run a written ``config.sh``."""
    if re.search(rf"(?<![\w.-]){re.escape(base)}(?![\w-])", f.snippet):
        return True
    if not base.endswith(".py") or len(stem) < 5:
        return False
    s = re.escape(stem)
    loads = rf"\bimport\s+(?:[\w.]+\.)?{s}\b|\bfrom\s+(?:[\w.]+\.)?{s}\s+import\b|-m\s+{s}\b"
    if re.search(loads, f.snippet):
        return True
    quoted = re.search(rf"""['"](?:[\w.]+\.)?{s}['"]""", f.snippet) is not None
    return quoted and f.category == Category.TOOL_DISPATCH


def _source_writes(ix: SurveyIndex, fams: dict[str, dict[str, list[Finding]]]) -> list[Loop]:
    """Writes of executable source (``.py``/``.sh`` files) that code elsewhere runs or
    imports by the same name: the system writing the program a later run executes."""
    loops: list[Loop] = []
    runners = [f for c in (Category.EXEC_EFFECT, Category.TOOL_DISPATCH) for f in ix.category(c)]
    for arts in fams.values():
        for key, fs in arts.items():
            base = key.rstrip("/").rsplit("/", 1)[-1]
            if not re.search(r"\.(py|sh)$", base):
                continue
            stem = base.rsplit(".", 1)[0]
            loader = next(
                (r for r in runners if r.node != fs[0].node and _names(r, base, stem)), None
            )
            if loader is not None:
                loops.append(Loop(fs[0], loader, "code", loader, key, 0))
    return loops


_APPLIES_PATCH = re.compile(r"\bpatch\s+-p\d|\bgit\b.{0,40}\b(apply|am)\b|apply_patch|\bpatch\(")
_PATCH_NAME = re.compile(r"patch|diff", re.I)


def _patch_loops(ix: SurveyIndex, core: set[str]) -> list[Loop]:
    """A run writes a patch (a diff of the code it changed) and code elsewhere applies
    a patch to a working tree: the changed code is what a later run executes.  The
    write and the application the primary route reaches, in the system's own code,
    are the ones quoted."""

    def rank(f: Finding) -> tuple[bool, int, str, int]:
        return (f.node not in core, path_class(f.path), f.path, f.start_line)

    def produces(f: Finding) -> bool:
        """The write sits where the change is made: its function reaches a model call
        (the agent that edits), not code that only carries a patch made elsewhere."""
        return any(
            m.category == Category.MODEL_CALL and m.kind != "client"
            for m in ix.reached_findings(f.node)[:400]
        )

    writes = sorted(
        (
            f
            for f in ix.category(Category.PERSISTENCE)
            if f.kind in ("write", "append", "file")
            and _PATCH_NAME.search(f.detail.get("target", ""))
        ),
        key=lambda f: (not produces(f), *rank(f)),
    )
    appliers = sorted(
        (
            f
            for c in (Category.EXEC_EFFECT, Category.PERSISTENCE)
            for f in ix.category(c)
            if _APPLIES_PATCH.search(f.snippet)
        ),
        key=rank,
    )
    return [Loop(w, a, "code", a, "patch files", 0) for w in writes[:1] for a in appliers[:1]]


def find_loops(ix: SurveyIndex, core: set[str] | None = None) -> list[Loop]:
    """Write → read-back pairs whose reader feeds code, a model or a gate, the ones
    the primary route reaches (``core``) first."""
    fams = families(ix)
    core = core or set()
    loops: list[Loop] = _source_writes(ix, fams) + _patch_loops(ix, core)
    for fam, arts in fams.items():
        writes = [f for fs in arts.values() for f in fs if f.kind not in ("delete", "move")]
        if not writes:
            continue
        keys = set(arts)
        for r in ix.category(Category.READ_BACK):
            written = r.detail.get("written_as", "")
            if not (
                r.detail.get("written_value") in keys
                or r.detail.get("target_value") in keys
                or any(w.detail.get("target", "") == written for w in writes)
            ):
                continue
            got = _consumer(ix, r)
            if got is not None:
                kind, _, name = fam.partition(":")
                if kind == "files":  # a writer's family: name the file that was read
                    read_as = {r.detail.get("written_value"), r.detail.get("target_value")}
                    name = next(
                        (
                            k
                            for k, fs in arts.items()
                            if k in read_as
                            or any(w.detail.get("target", "") == written for w in fs)
                        ),
                        name,
                    )
                loops.append(Loop(writes[0], r, got[0], got[1], name))
    for g in ix.category(Category.PERSISTENCE):
        if g.kind != "git" or not any(c in g.snippet for c in _GIT_CHANGES):
            continue
        runs = [
            f
            for f in ix.reached_findings(g.node)
            if f.category == Category.EXEC_EFFECT and f.kind != "git"
        ]
        for n in sorted(ix.callers.get(g.node, set()))[:3]:
            runs += [f for f in ix.reached_findings(n) if f.category == Category.EXEC_EFFECT]
        if runs:
            loops.append(Loop(g, runs[0], "code", runs[0], "the repository's working tree", 2))
    loops.sort(
        key=lambda lp: (
            # on the primary route when either half is: a patch made by an agent the
            # route starts in a container is applied by code the route reaches
            lp.write.node not in core and lp.read.node not in core,
            lp.strength,
            path_class(lp.write.path),
            _CONSUMERS.index(lp.consumer),
            lp.write.path,
            lp.write.start_line,
        )
    )
    return loops


class SelfModification:
    name = "self_modification"
    kind = "BAP"

    def plan(self, st: PlanState) -> list[PlanItem]:
        items: list[PlanItem] = []
        seen: set[str] = set()
        core = set(st.ix.reachable(st.units[0].node)) if st.units else set()
        for lp in find_loops(st.ix, core):
            if lp.name in seen or path_class(lp.write.path) == 2:
                continue
            seen.add(lp.name)
            facts = [lp.write, lp.read, *([lp.decider] if lp.decider else [])]
            items.append(
                st.item(
                    self,
                    slug("self-modification", lp.name.rstrip("/").rsplit("/", 1)[-1]),
                    f"Self-modification loop: {lp.name} written by a run, then "
                    f"{_VERB[lp.consumer]}",
                    facts,
                    "What a run produces becomes what the next run obeys.",
                    {
                        "consumer": lp.consumer,
                        "write": lp.write.id,
                        "read": lp.read.id,
                        "decider": lp.decider.id if lp.decider else None,
                        "store": lp.name,
                    },
                )
            )
            if len(items) >= (3 if st.limits.thorough else 1):
                break
        return items

    def draft(self, ctx: DraftContext) -> Record | None:
        h = ctx.item.hints
        by_id = {f.id: f for f in ctx.findings}
        write, read = by_id.get(str(h.get("write"))), by_id.get(str(h.get("read")))
        decider = by_id.get(str(h.get("decider")))
        if write is None or read is None:
            return None
        consumer = str(h.get("consumer"))
        lead = (
            f"Consumer: {short_symbol((decider or read).node)}, which {_VERB[consumer]}. "
            f"Channel: {h.get('store')} — written at {where(write)}, read again at {where(read)}"
            + (f", acted on at {where(decider)}" if decider and decider is not read else "")
            + ". "
            f"Force: {_FORCE[consumer]} Horizon: every later run or iteration that reads the "
            "store while it persists; the loop is closed by the code, not by a reviewer."
        )
        blocks: list[Block] = [
            para(lead),
            para(
                "What one run writes is what a later run obeys, so the system's behaviour drifts "
                "with its own outputs; the survey shows the wiring, not whether any run took it."
            ),
        ]
        made = _value_made(write, ctx)
        # the line that makes the stored change, when the consumer leaves a witness free
        return ctx.record(
            blocks, [write, read, *([decider] if decider else []), *([made] if made else [])]
        )


_WRITTEN_VALUE = re.compile(r"\.write\(\s*([A-Za-z_]\w*)\s*\)|\bdump\(\s*([A-Za-z_]\w*)\s*,")


_EMPTY_INIT = re.compile(r"=\s*(\[\]|\{\}|\(\)|None|''|\"\"|0|list\(\)|dict\(\))\s*(#.*)?$")


def _value_made(write: Finding, ctx: DraftContext) -> Finding | None:
    """Where the written value is made: the nearest assignment of the variable the
    write stores, above it in the same file (``patch = diff_of(repo)`` before
    ``f.write(patch)``) — the line that says what the stored change is.  None when
    the write stores an expression or the assignment is not found."""
    m = _WRITTEN_VALUE.search(write.snippet)
    text = ctx.text_of(write.path) if ctx.text_of else None
    if m is None or text is None:
        return None
    var = m.group(1) or m.group(2)
    lines = text.splitlines()
    assign = re.compile(rf"^\s*{re.escape(var)}\s*(?::[^=]+)?=(?!=)\s*\S")
    for n in range(min(write.start_line, len(lines)) - 1, max(0, write.start_line - 80), -1):
        if assign.match(lines[n - 1]):
            if _EMPTY_INIT.search(lines[n - 1]):
                return None  # accumulated over many lines, not made by one
            return Finding(
                id=f"value:{write.path}:{n}",
                category=Category.PERSISTENCE,
                kind="written_value",
                path=write.path,
                start_line=n,
                end_line=n,
                symbol=write.symbol,
                snippet=lines[n - 1],
            )
    return None


_VERB = {
    "code": "loaded or executed as code",
    "instruction": "fed to a model as instruction or context",
    "selection": "used to decide what is kept or chosen next",
}
_FORCE = {
    "code": "executed with the full authority of the process; nothing in the survey reviews "
    "it between the write and the run.",
    "instruction": "natural-language or data context a model conditions on; not enforced, but "
    "it shapes every later call that reads it.",
    "selection": "fixed predicates in code choose from what earlier runs stored; the stored "
    "values are trusted as written.",
}
