"""Artifacts: what the system writes and may read again (operative objects).

Writes are grouped into families an analyst reviews as one object: files kept side by
side in one directory, files of one name in several directories, a database.  A write
whose target the survey cannot name (a computed expression such as ``str(dst)`` or
``os.path.join(root, "x")``) is not an object of its own: it joins its writer's
family when that writer also writes named files, and is dropped otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from drafter.ids import slug
from drafter.model import Block, Record
from graph.proposer import PlanItem
from graph.proposers.offline.prose import join_names, para, short_symbol, where
from graph.proposers.offline.rank import dir_of, path_class
from graph.proposers.offline.recipe import DraftContext, PlanState, file_stem
from graph.proposers.offline.recipes.stores import line_finding
from retrieval.survey import Finding
from retrieval.survey.index import SurveyIndex
from retrieval.survey.model import Category

MAX_ARTIFACTS = 6
_HOUSEKEEPING = {"delete", "move"}
_WRITE_RANK = {
    "append": 0,
    "write": 0,
    "git": 0,
    "sqlite": 0,
    "json": 1,
    "pickle": 1,
    "torch": 1,
    "csv": 1,
    "parquet": 1,
    "copy": 1,
    "file": 1,
    "yaml": 1,
}
#: A name the survey resolved: a path with a directory or an extension.
_PATHLIKE = re.compile(r"^[\w.@~-][\w./@~{}-]*(/|\.[A-Za-z0-9]{1,6})[\w./{}-]*$|^[\w-]+/$")
_FORMS = {
    "json": "JSON document",
    "jsonl": "JSON lines",
    "pickle": "pickled Python objects",
    "pkl": "pickled Python objects",
    "torch": "serialised tensors/checkpoint",
    "csv": "CSV table",
    "tsv": "TSV table",
    "parquet": "Parquet table",
    "yaml": "YAML document",
    "yml": "YAML document",
    "sqlite": "SQLite database",
    "db": "SQLite database",
    "git": "git commits and working-tree state",
    "md": "Markdown text",
    "txt": "plain text",
    "log": "log text",
    "py": "executable Python source",
    "ts": "executable TypeScript source",
    "js": "executable JavaScript source",
}


_LITERAL = re.compile(r"""['"]([^'"{}]+)['"]""")
_CONSTANT = re.compile(r"(?:[A-Za-z_]\w*\.)*[A-Z][A-Z0-9_]+")


def artifact_key(f: Finding) -> tuple[str, bool]:
    """(name of what ``f`` writes, whether the survey could name it).

    Named: a git operation; a resolved value that is a path or holds a path literal
    (``STATE_DIR / "runs.jsonl"``); a target holding a literal with a directory or a
    file extension (``os.path.join(out, "log.jsonl")``) or naming a constant the code
    defines (``RESULTS_FILE``).  Anything else is a computed expression (``str(dst)``,
    ``os.path.join(root, "domains")``) and is not a name for an object."""
    if f.kind == "git":
        return "git repository state", True
    v = f.detail.get("target_value") or ""
    if v and not v.startswith("env "):
        lits = [x for x in _LITERAL.findall(v) if _PATHLIKE.match(x)]
        if "(" in v and lits:  # a call builds the path: the literal is its name
            return max(lits, key=len), True
        if _PATHLIKE.match(v) or lits:
            return v, True
    t = f.detail.get("target", "").strip()
    lits = [x for x in _LITERAL.findall(t) if _PATHLIKE.match(x)]
    if lits:  # a file name inside a computed path still names the file
        return max(lits, key=len), True
    if _CONSTANT.fullmatch(t):
        return t, True
    return t or f"{f.path}:{f.start_line}", False


def _is_store(fs: list[Finding]) -> bool:
    return any(f.kind == "sqlite" for f in fs)


def _family(key: str, fs: list[Finding], named: dict[str, list[Finding]]) -> str:
    """The family a named artifact belongs to (see the module docstring)."""
    if key == "git repository state" or any(f.kind == "sqlite" for f in fs):
        return f"key:{key}"
    if "/" in key.rstrip("/") and not key.startswith(("/", ".")):
        d = dir_of(key)
        if any(dir_of(k) == d and k != key and not _is_store(v) for k, v in named.items()):
            return f"dir:{d}"
        base = key.rsplit("/", 1)[-1]
        if any(k != key and k.rsplit("/", 1)[-1] == base for k in named):
            return f"base:{base}"
        return f"key:{key}"
    return f"files:{sorted(f.path for f in fs)[0]}"


def families(ix: SurveyIndex) -> dict[str, dict[str, list[Finding]]]:
    """Family → {artifact name → writes}; unnamed writes joined to their writer's family."""
    named: dict[str, list[Finding]] = {}
    unnamed: list[Finding] = []
    for f in ix.category(Category.PERSISTENCE):
        key, ok = artifact_key(f)
        if ok:
            named.setdefault(key, []).append(f)
        elif f.kind not in _HOUSEKEEPING:
            unnamed.append(f)
    _fold_statements(named)
    fams: dict[str, dict[str, list[Finding]]] = {}
    homes: list[tuple[Finding, str]] = []
    for key, fs in sorted(named.items()):
        fam = _family(key, fs, named)
        fams.setdefault(fam, {})[key] = fs
        homes += [(f, fam) for f in fs]
    for f in unnamed:  # computed targets: evidence for the writer's family, never a family
        home = _home(f, homes)
        if home is not None:
            fams[home].setdefault(artifact_key(f)[0], []).append(f)
    return fams


def _home(f: Finding, homes: list[tuple[Finding, str]]) -> str | None:
    """The family of the named write closest to ``f``: same function and kind, same
    function, same file and kind, same file."""
    tests: tuple[Callable[[Finding], bool], ...] = (
        lambda w: w.node == f.node and w.kind == f.kind,
        lambda w: w.node == f.node,
        lambda w: w.path == f.path and w.kind == f.kind,
        lambda w: w.path == f.path,
    )
    for same in tests:
        fam = next((fam for w, fam in homes if same(w)), None)
        if fam is not None:
            return fam
    return None


def _fold_statements(named: dict[str, list[Finding]]) -> None:
    """SQL statements belong to the database their file connects to."""
    for key in [
        k
        for k, fs in named.items()
        if all(f.kind == "sqlite" and "statement" in f.detail for f in fs)
    ]:
        path = named[key][0].path
        home = next(
            (
                k
                for k, fs in named.items()
                if k != key
                and any(
                    f.kind == "sqlite" and f.path == path and "statement" not in f.detail
                    for f in fs
                )
            ),
            None,
        )
        if home is not None:
            named[home] += named.pop(key)


def _reads_one_of(r: Finding, keys: list[str], arts: dict[str, list[Finding]]) -> bool:
    if r.detail.get("written_value") in keys or r.detail.get("target_value") in keys:
        return True
    written = r.detail.get("written_as", "")
    return any(f.detail.get("target", "") == written for k in keys for f in arts[k])


def _label(fam: str, keys: list[str]) -> tuple[str, str]:
    kind, _, name = fam.partition(":")
    if kind == "key" or len(keys) == 1:
        key = keys[0] if kind != "key" else name
        s = key.rstrip("/").rsplit("/", 1)[-1] if key != "git repository state" else "git-state"
        return f"Persisted artifact: {key}", slug(s)
    if kind == "dir":
        return (
            f"Persisted artifacts in {name}: "
            + join_names([k.rsplit("/", 1)[-1] for k in keys], 5),
            slug(name.rstrip("/").rsplit("/", 1)[-1]),
        )
    if kind == "base":
        return f"Persisted artifacts named {name} in " + join_names(
            [dir_of(k) for k in keys], 4
        ), slug(name)
    stem = file_stem(name)
    return f"Persisted artifacts written by {name}: {join_names(keys, 5)}", slug(stem, "outputs")


class Artifacts:
    name = "artifact"
    kind = "OBJ"

    def plan(self, st: PlanState) -> list[PlanItem]:
        route_nodes = {n for u in st.units for n in st.ix.reachable(u.node)}
        fams = families(st.ix)
        read_backs = st.ix.category(Category.READ_BACK)
        # what the system hands to an agent outside it (a composed program) is core
        handed = {it.facts[-1] for it in st.of_recipe("external_agent") if it.facts}

        def rank(fam: str) -> tuple[int, int, int, int, int, str]:
            fs = [f for v in fams[fam].values() for f in v]
            read = any(_reads_one_of(r, list(fams[fam]), fams[fam]) for r in read_backs)
            return (
                0 if any(f.id in handed for f in fs) else 1,
                min(path_class(f.path) for f in fs),
                0 if any(f.node in route_nodes for f in fs) else 1,
                0 if read else 1,
                min(_WRITE_RANK.get(f.kind, 3) for f in fs),
                fam,
            )

        items = []
        for fam in sorted(fams, key=rank)[:MAX_ARTIFACTS]:
            arts = fams[fam]
            keys = [k for k in arts if artifact_key(arts[k][0])[1]] or list(arts)
            writes = sorted(
                (f for k in arts for f in arts[k]),
                key=lambda f: (
                    not artifact_key(f)[1],
                    _WRITE_RANK.get(f.kind, 3),
                    f.path,
                    f.start_line,
                ),
            )
            reads = sorted(
                (r for r in read_backs if _reads_one_of(r, list(arts), arts)),
                # the system's own reads first; then a read in another file than the write
                key=lambda r: (
                    path_class(r.path),
                    r.path in {f.path for f in writes},
                    r.path,
                    r.start_line,
                ),
            )
            writes, reads = retained_first(writes, reads, st.ix)
            label, s = _label(fam, keys)
            items.append(
                st.item(
                    self,
                    s,
                    label,
                    writes[:6] + reads[:3],
                    f"Written by {join_names([short_symbol(f.node) for f in writes], 3)}.",
                    {"keys": keys},
                )
            )
        return items

    def draft(self, ctx: DraftContext) -> Record | None:
        writes = [f for f in ctx.findings if f.category == Category.PERSISTENCE]
        reads = [f for f in ctx.findings if f.category == Category.READ_BACK]
        if not writes:
            return None
        keys = [str(k) for k in ctx.item.hints.get("keys", [])] or [artifact_key(writes[0])[0]]
        blocks: list[Block] = [para(_identity(keys, writes)), para(_lifecycle(writes, reads))]
        sources = [
            f for f in ctx.findings if f.category == Category.PROMPT and f.kind == "prompt_file"
        ]
        if sources:
            blocks.append(
                para(
                    "Composed from the shipped prompt files "
                    f"{join_names([f.path for f in sources], 4)}: the code reads them and writes "
                    "the result out without sending it to a model of its own, so the text is "
                    "instruction for an agent outside the repository."
                )
            )
        # the deciding lines: the write, then where a later step reads it again
        writes, reads = retained_first(writes, reads, ctx.ix)
        named = _naming_line(writes[0], ctx)
        return ctx.record(blocks, named + writes[:2] + reads[:2] + sources[:1] + writes[2:])


def _naming_line(w: Finding, ctx: DraftContext) -> list[Finding]:
    """The assignment that names the file a write opens through a variable
    (``path = os.path.join(d, "input.txt")`` … ``open(path, "w")``): the label names the
    file, so a quote must show its name."""
    target, value = str(w.detail.get("target") or ""), str(w.detail.get("target_value") or "")
    base = value.rsplit("/", 1)[-1]
    text = ctx.text_of(w.path) if ctx.text_of else None
    # a module constant (``RUNS_FILE``) already stands for its file in the label rule
    if not base or base in w.snippet or not re.fullmatch(r"[a-z_]\w*", target):
        return []
    if not isinstance(text, str):
        return []
    lines = text.splitlines()
    assign = re.compile(rf"^\s*{re.escape(target)}\s*(?::[^=]+)?=(?!=)")
    for n in range(min(w.start_line, len(lines)) - 1, 0, -1):
        if assign.match(lines[n - 1]):
            if base in lines[n - 1]:
                return [line_finding(w, n, text, "written_value", Category.PERSISTENCE)]
            return []
    return []


def _target(f: Finding) -> str:
    return str(f.detail.get("target_value") or f.detail.get("target") or "")


def retained_first(
    writes: list[Finding], reads: list[Finding], ix: SurveyIndex | None
) -> tuple[list[Finding], list[Finding]]:
    """Writes and reads reordered so the retained state an analyst quotes leads: the
    write of a file that a later step reads back, with that read, preferring a read
    whose function decides from it (a gate or selection beside the read) and an append
    (the store growing each iteration) by a function that writes little else, outside
    the setup that creates the store — the store that steers the next iteration, before
    files written once and left."""

    def decides(r: Finding) -> bool:
        return ix is not None and any(
            g.category == Category.GATING and g.kind != "retry" for g in ix.at(r.node)
        )

    def busy(w: Finding) -> int:
        """How many other writes the writer's function makes: a dedicated recorder
        grows the store each iteration; a setup function writes many files once."""
        return (
            0 if ix is None else sum(1 for f in ix.at(w.node) if f.category == Category.PERSISTENCE)
        )

    def seeds(w: Finding) -> bool:
        """Whether the file that creates the store (a plain write of it) also makes this
        append: setup seeding the store once, not the step that grows it."""
        return any(
            x.kind != "append" and _target(x) == _target(w) and x.path == w.path for x in writes
        )

    pairs = [(w, r) for w in writes for r in reads if _target(w) and _target(w) == _target(r)]
    if not pairs:
        return writes, reads
    # an append is the store growing by one entry per iteration; a plain write of the
    # same file is often its initialisation (a header) or a one-off reset
    w, r = min(
        pairs,
        key=lambda p: (
            not decides(p[1]),
            p[0].kind != "append",
            busy(p[0]),
            seeds(p[0]),
            writes.index(p[0]),
            reads.index(p[1]),
        ),
    )
    return [w, *(x for x in writes if x is not w)], [r, *(x for x in reads if x is not r)]


def _identity(keys: list[str], writes: list[Finding]) -> str:
    key = keys[0] if len(keys) == 1 else join_names(keys, 5)
    ident = f"Source-native identity: {key}"
    if len(keys) > 1:
        ident += f"; {len(keys)} artifacts reviewed together because they are kept side by side"
    forms = []
    for k in keys:
        ext = k.rsplit(".", 1)[-1].lower() if "." in k.rsplit("/", 1)[-1] else ""
        kinds = [f.kind for f in writes if f.kind in _FORMS]
        forms.append(_FORMS.get(ext) or (_FORMS[kinds[0]] if kinds else "file content"))
    substrate = (
        "the repository's git history"
        if any(f.kind == "git" for f in writes)
        else "local file system, relative to the working directory unless absolute"
    )
    return (
        f"{ident}. Representational form: {join_names(list(dict.fromkeys(forms)), 4)}. "
        f"Storage substrate: {substrate}."
    )


def _lifecycle(writes: list[Finding], reads: list[Finding]) -> str:
    modes = sorted({str(f.detail.get("mode") or f.kind) for f in writes})
    text = f"Written by {join_names([where(f) for f in writes], 4)} ({join_names(modes)}). "
    if "a" in modes or "append" in modes:
        text += "Appends accumulate across runs. "
    if reads:
        return text + (
            f"Later read-back: {join_names([where(f) for f in reads], 3)} open the same path "
            "again, so what one run writes decides what a later step reads; whether anything "
            "checks its provenance is not established by the survey."
        )
    return (
        text + "Later read-back: none found by the survey (reads through computed paths are not "
        "followed)."
    )
