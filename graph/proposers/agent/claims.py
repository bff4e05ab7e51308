"""What the planner is shown besides the map: documented promises and the core state.

Why: drafts through the model path described the loop and skipped two things an
analyst writes first.  Claim records test what the README, the docs, help texts and
shipped prompts promise against what the code does; object records describe the state
most of the code reads and writes.  A planner shown only entry units plans routes.  So
the plan request lists the promises the code could bear out or contradict (a default,
an isolation, a safety note, a fallback, determinism, a limit), ranked by how many of
those checkable kinds a sentence touches, and the stores and in-memory structures the
survey's persistence and read-back findings and the call graph say most code reaches.

Every choice is by text shape, path class and counts (never a name of one repository),
and every ordering ends in path and line, so the same revision gives the same bytes.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from graph.proposers.agent.map import _ranked, _reach_counts
from graph.proposers.agent.prompts import data_block
from graph.proposers.offline.rank import path_class
from retrieval.survey import Finding, Survey
from retrieval.survey.model import Category

#: Promises shown to the planner at most.
MAX_PROMISES = 14
#: Documentation files scanned for promises at most (README first, then shallowest).
MAX_DOC_FILES = 12
#: Characters of one promise's text shown.
PROMISE_CHARS = 180
#: State findings (stores, structures) shown at most.
MAX_STATE = 8

#: The kinds of promise code can bear out or contradict, with the words that mark them.
CHECKABLE: dict[str, re.Pattern[str]] = {
    "default": re.compile(r"\bby default\b|\bdefaults?\b|\bunless\b", re.I),
    "isolation": re.compile(
        r"sandbox|isolat|container|docker|fresh (process|session|shell)|separate process"
        r"|virtual ?env|\bvm\b",
        re.I,
    ),
    "safety": re.compile(
        r"(?<!thread-)\bsafe(ty|ly)?\b|untrusted|malicious|secur|permission|approv|confirm"
        r"|allow ?list"
        r"|deny ?list|credential|secret",
        re.I,
    ),
    "fallback": re.compile(r"fall(s|ing)? ?back|failover|retr(y|ies)|backup model|recover", re.I),
    "determinism": re.compile(r"determinis|reproduc|\bseed(ed)?\b|idempotent", re.I),
    "limit": re.compile(
        r"\blimit|timeout|time out|at most|maximum|\bmax(imum)?\b|budget|\bnever\b"
        r"|\balways\b|\bonly\b|\bevery\b|\beach\b|\bdo not\b|\bwithout\b",
        re.I,
    ),
}
_DOC_SUFFIXES = (".md", ".rst", ".txt", ".mdx")
#: Folders that hold documentation, and folders of recorded runs that never do.
_DOC_DIRS = frozenset("doc docs documentation guide guides manual".split())
_RUN_DIRS = frozenset("predictions prediction logs log outputs output results runs".split())
#: A longer "sentence" is a data dump (a logged conversation), not a promise.
MAX_PROMISE_LINE = 600
_HELP = re.compile(r"""\bhelp\s*=\s*(["'])(.{20,300}?)\1""")
_CLAIM_KINDS = ("doc_sentence", "instruction_rule", "docstring", "tool_description")

# how the planner names a claim finding's source; any other claim kind is "docs"
_CLAIM_SOURCE = {"docstring": "docstring", "tool_description": "tool description"}

TextFn = Callable[[str], "str | None"]


@dataclass(frozen=True)
class Promise:
    path: str
    line: int
    text: str
    kinds: tuple[str, ...]
    source: str  # "docs", "help text", "prompt", "docstring"

    def row(self) -> str:
        text = " ".join(self.text.split())
        if len(text) > PROMISE_CHARS:
            text = text[: PROMISE_CHARS - 1] + "…"
        return f"{self.path}:{self.line} [{', '.join(self.kinds)}; {self.source}] {text}"


def checkable_kinds(text: str) -> tuple[str, ...]:
    """The checkable kinds a sentence touches, in :data:`CHECKABLE` order."""
    return tuple(k for k, rx in CHECKABLE.items() if rx.search(text))


def doc_files(paths: list[str]) -> list[str]:
    """README files and documentation pages, the top README first, then shallowest."""

    def is_doc(p: str) -> bool:
        *folders, name = p.lower().split("/")
        if not name.endswith(_DOC_SUFFIXES) or name.startswith(("licen", "changelog", "contrib")):
            return False
        if any(f in _RUN_DIRS for f in folders):
            return False
        return name.startswith("readme") or any(f in _DOC_DIRS for f in folders)

    docs = [p for p in paths if is_doc(p)]
    return sorted(docs, key=lambda p: (p.count("/"), not p.lower().startswith("readme"), p))[
        :MAX_DOC_FILES
    ]


def _doc_promises(path: str, text: str) -> list[Promise]:
    out: list[Promise] = []
    fence = False
    for n, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if s.startswith("```"):
            fence = not fence
            continue
        # command blocks and tables hold options, not promises; short lines are headings
        if fence or not 40 <= len(s) <= MAX_PROMISE_LINE or s.startswith(("|", "#", "<", "![")):
            continue
        kinds = checkable_kinds(s)
        if kinds:
            out.append(Promise(path, n, s.lstrip("*->• "), kinds, "docs"))
    return out


def _help_promises(path: str, text: str) -> list[Promise]:
    """Command-line help texts: what an option is said to do, often a default."""
    out: list[Promise] = []
    for n, line in enumerate(text.splitlines(), 1):
        for m in _HELP.finditer(line):
            kinds = checkable_kinds(m.group(2))
            if kinds:
                out.append(Promise(path, n, m.group(2), kinds, "help text"))
    return out


def promises(paths: list[str], text_of: TextFn, survey: Survey | None) -> list[Promise]:
    """The documented promises most worth testing against the code, best first: most
    checkable kinds touched, the system's own files before examples, then path, line."""
    found: dict[tuple[str, int], Promise] = {}
    for path in doc_files(paths):
        text = text_of(path)
        if text:
            for p in _doc_promises(path, text):
                found.setdefault((p.path, p.line), p)
    findings = list(survey.findings) if survey is not None else []
    code_files = sorted({f.path for f in findings if path_class(f.path) == 0})
    for path in code_files:
        text = text_of(path)
        if text and "help" in text:
            for p in _help_promises(path, text):
                found.setdefault((p.path, p.line), p)
    for f in findings:
        if f.category == Category.CLAIM and f.kind in _CLAIM_KINDS:
            source = _CLAIM_SOURCE.get(f.kind, "docs")
        elif f.category == Category.PROMPT and path_class(f.path) == 0:
            source = "prompt"
        else:
            continue
        kinds = checkable_kinds(f.snippet)
        if kinds and len(f.snippet.strip()) >= 40:
            found.setdefault(
                (f.path, f.start_line), Promise(f.path, f.start_line, f.snippet, kinds, source)
            )

    def key(p: Promise) -> tuple[int, int, int, str, int]:
        readme = p.path.rsplit("/", 1)[-1].lower().startswith("readme") and "/" not in p.path
        # "limit" words (only, every, never) are common; a promise of another kind counts more
        weight = len(p.kinds) + sum(k != "limit" for k in p.kinds)
        return (
            -weight,
            0 if readme or p.source != "docs" else 1,
            path_class(p.path),
            p.path,
            p.line,
        )

    return sorted(found.values(), key=key)[:MAX_PROMISES]


def promises_section(paths: list[str], text_of: TextFn, survey: Survey | None) -> str | None:
    """The plan request's list of documented promises, or None when there is none."""
    found = promises(paths, text_of, survey)
    if not found:
        return None
    return (
        "Documented promises (README, docs, help texts, shipped prompts, docstrings and tool"
        " descriptions) the code could bear out or contradict, most checkable first:"
        " `path:line [kinds; source] text`. Claim records (CLM) test these: what was"
        " promised and where, what the code does, with a witness from the document and one"
        " from the code.\n"
        + data_block("promises", "\n".join(p.row() for p in found), count=str(len(found)))
    )


def state_section(survey: Survey | None) -> str | None:
    """The stores and structures most of the code writes and reads back: persistence
    and read-back findings of the system's own code, grouped by file and function,
    ranked by how many entry units reach them and how many callers their function has."""
    if survey is None or not survey.findings:
        return None
    ix = survey.index()
    cats = (Category.PERSISTENCE, Category.READ_BACK)
    found = [f for c in cats for f in ix.category(c) if path_class(f.path) == 0]
    if not found:
        return None
    reach = _reach_counts(ix)
    groups: dict[tuple[str, str], list[Finding]] = defaultdict(list)
    for f in _ranked(ix, found):
        groups[(f.path, f.symbol)].append(f)
    rows: list[str] = []
    for (path, symbol), fs in list(groups.items())[:MAX_STATE]:
        kinds = Counter(f"{f.category}/{f.kind}" for f in fs)
        best = fs[0]
        units = max(reach[f.id] for f in fs)
        callers = len(ix.callers.get(best.node, ()))
        snippet = (best.snippet.strip().splitlines() or [""])[0][:140]
        rows.append(
            f"{path}:{best.start_line} {symbol} | "
            + ", ".join(f"{k} ×{n}" for k, n in sorted(kinds.items()))
            + f" | reached by {units} entry unit(s), {callers} caller(s) | {snippet}"
        )
    return (
        "Core state: where the system's own code writes and reads back its state (stores,"
        " files, in-memory structures), most reached first. Object records (OBJ) describe"
        " such state: what it holds, how an entry is admitted, evicted or replaced, and how"
        " entries are selected for use.\n" + data_block("core_state", "\n".join(rows))
    )
