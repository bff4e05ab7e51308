"""Cross-file survey passes: rules that need every file's hits and the call graph.

They run after the per-file rules (see :mod:`retrieval.survey.rules`), because each
reads what those found: a loop calls a model when one of its calls reaches a model
call site through the call graph; a wrapper is a repository function that stands
between a call site and a model call; a prompt file is used where code names it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from retrieval.survey.base import Hit
from retrieval.survey.details import ModelCallDetail
from retrieval.survey.model import Category
from retrieval.survey.registry import Repo
from retrieval.survey.source import Call, PyFile, StringLit


def model_reach(hits: list[Hit], repo: Repo) -> Callable[[PyFile, Call], str | None]:
    """``calls_model(pf, call)``: the model call site or repository function through
    which ``call`` reaches a model (at most three calls deep), or None.  One memo is
    shared by every file, so build it once per survey."""
    graph, resolve = repo.graph, repo.resolve
    model_nodes = {
        f"{h.path}::{h.symbol}"
        for h in hits
        if h.category == Category.MODEL_CALL and h.kind != "client"
    }
    model_lines = {
        (h.path, ln)
        for h in hits
        if h.category == Category.MODEL_CALL and h.kind != "client"
        for ln in range(h.start_line, h.end_line + 1)
    }
    reach_cache: dict[str, bool] = {}

    def reaches_model(node: str, depth: int = 3) -> bool:
        key = f"{node}@{depth}"
        if key in reach_cache:
            return reach_cache[key]
        reach_cache[key] = False  # cycle guard
        ok = node in model_nodes or (
            depth > 0 and any(reaches_model(n, depth - 1) for n in graph.callees(node))
        )
        reach_cache[key] = ok
        return ok

    def calls_model(pf: PyFile, c: Call) -> str | None:
        if (pf.path, c.start_line) in model_lines:
            return c.callee
        for node in resolve(pf, c):
            if reaches_model(node):
                return node
        return None

    return calls_model


def names_in_code(files: list[PyFile]) -> Callable[[str], bool]:
    """``named(path)``: does a short string literal of the code name the file (its
    base name, of at least five characters)?  Built on first use.

    The strings are also joined by NUL into one text, searched once per file: a base
    name without NUL (every git path) found in that text lies inside one string, so the
    answer is one substring search instead of one per string (it is asked for every
    document of the repository)."""
    strings: list[str] = []
    joined: list[str] = []

    def named(path: str) -> bool:
        if not joined:
            strings.extend(
                s.value
                for pf in files
                for s in pf.strings
                if not s.is_docstring and s.end_line - s.start_line <= 2
            )
            joined.append("\0".join(strings))
        base = path.rsplit("/", 1)[-1]
        if len(base) < 5:
            return False
        if "\0" in base:
            return any(base in v for v in strings)
        return base in joined[0]

    return named


#: How many repository calls a wrapper may stand between a call site and the model call.
WRAPPER_DEPTH = 2


def wrapper_calls(hits: list[Hit], repo: Repo) -> list[Hit]:
    """Call sites that reach a model call through repository wrappers (``chat(...)`` →
    ``get_response`` → ``litellm.completion``): where the system really talks to a model.
    Each names the direct model call it reaches (``reaches``), so proposers can group it
    with that endpoint."""
    files, resolve, graph = repo.files, repo.resolve, repo.graph
    direct: dict[str, Hit] = {}
    for h in hits:
        if h.category == Category.MODEL_CALL and h.kind not in ("client", "via_wrapper"):
            direct.setdefault(f"{h.path}::{h.symbol}", h)
    direct_lines = {
        (h.path, ln) for h in direct.values() for ln in range(h.start_line, h.end_line + 1)
    }
    memo: dict[str, tuple[Hit, int] | None] = {}

    def first_model(node: str, depth: int) -> tuple[Hit, int] | None:
        if node in direct:
            return direct[node], 0
        if depth == 0:
            return None
        key = f"{node}@{depth}"
        if key not in memo:
            memo[key] = None
            best = None
            for nxt in graph.callees(node):
                got = first_model(nxt, depth - 1)
                if got and (best is None or got[1] + 1 < best[1]):
                    best = (got[0], got[1] + 1)
            memo[key] = best
        return memo[key]

    out: list[Hit] = []
    for pf in files:
        for c in pf.calls:
            if (pf.path, c.start_line) in direct_lines or c.callee_type not in (
                "identifier",
                "attribute",
            ):
                continue
            if c.symbol in ("<main>", "<module>"):
                continue  # a script calling its own main() is a route, not a model wrapper
            for node in resolve(pf, c):
                got = first_model(node, WRAPPER_DEPTH - 1)
                if (
                    got is None
                    or node == f"{pf.path}::{c.symbol}"
                    or node.endswith(("::main", ".main"))
                ):
                    continue
                target = got[0]
                detail: ModelCallDetail = {
                    "provider": target.view.get("provider", "model"),
                    "call": c.callee,
                    "via": node,
                    "reaches": f"model_call:{target.path}:{target.start_line}",
                }
                if "model" in c.kwargs:
                    detail["model"] = c.kwargs["model"][:80]
                out.append(
                    Hit.at_call(
                        pf, c, category=Category.MODEL_CALL, kind="via_wrapper", detail=detail
                    )
                )
                break
    return out


_READS = ("read_text", "read_bytes", "open", "read", "load", "safe_load")
#: A run of file-name characters: a prompt file's name is matched only where one starts.
_NAME_RUN = re.compile(r"[\w.-]+")


@dataclass(slots=True)
class _Mentions:
    r"""Short strings of the code (not docstrings, at most three lines), and which of
    them could name a file of a given base name, found by lookup instead of a scan of
    every string per prompt file.

    A base name made of file-name characters matches (``(?<![\w.-])NAME(?![\w-])``) only
    at the start of a run of such characters, and only if the run is the name itself or
    the name then a dot; so every run is indexed under itself and under each prefix
    ending before one of its dots.  Any other name falls back to the scan."""

    strings: list[tuple[PyFile, StringLit]]
    by_name: dict[str, list[int]]

    @classmethod
    def of(cls, files: list[PyFile]) -> _Mentions:
        strings: list[tuple[PyFile, StringLit]] = []
        by_name: dict[str, list[int]] = defaultdict(list)
        for pf in files:
            for lit in pf.strings:
                if lit.is_docstring or lit.end_line - lit.start_line > 2:
                    continue
                keys: set[str] = set()
                for run in _NAME_RUN.findall(lit.value):
                    keys.add(run)
                    dot = run.find(".")
                    while dot != -1:
                        keys.add(run[:dot])
                        dot = run.find(".", dot + 1)
                for key in keys:
                    by_name[key].append(len(strings))
                strings.append((pf, lit))
        return cls(strings, by_name)

    def naming(self, base: str, named: re.Pattern[str]) -> list[tuple[PyFile, StringLit]]:
        """The strings ``named`` matches, in file order."""
        if _NAME_RUN.fullmatch(base):
            found = [self.strings[i] for i in self.by_name.get(base, [])]
        else:
            found = self.strings
        return [(pf, lit) for pf, lit in found if named.search(lit.value)]


def prompt_file_uses(hits: list[Hit], repo: Repo) -> list[Hit]:
    """Where code names a shipped prompt file (``prompt_load``) and where it reads it through
    that name (``prompt_read``): the channel by which file text reaches a model."""
    out: list[Hit] = []
    prompt_files = sorted(
        {h.path for h in hits if h.category == Category.PROMPT and h.kind == "prompt_file"}
    )
    if not prompt_files:
        return out
    mentions = _Mentions.of(repo.files)
    # the read calls and the identifiers they use, once for every prompt file
    reads = [
        (pf, c, set(re.findall(r"[A-Za-z_]\w*", c.callee + " " + c.args_text)))
        for pf in repo.files
        for c in pf.calls
        if c.callee.rsplit(".", 1)[-1] in _READS
    ]
    for ppath in prompt_files:
        base = ppath.rsplit("/", 1)[-1]
        if len(base) < 5:
            continue
        # the whole file name: "code_agent.yaml" is not named by "structured_code_agent.yaml"
        named = re.compile(rf"(?<![\w.-]){re.escape(base)}(?![\w-])")
        names: set[str] = set()
        for pf, s in mentions.naming(base, named):
            name = s.assigned_to or ""
            out.append(
                Hit(
                    category=Category.PROMPT,
                    kind="prompt_load",
                    path=pf.path,
                    start_line=s.start_line,
                    end_line=s.end_line,
                    symbol=s.symbol,
                    detail={"file": ppath, "name": name},
                )
            )
            if re.fullmatch(r"[A-Za-z_][\w.]*", name):
                names.add(name.rsplit(".", 1)[-1])
        for pf, c, used in reads:
            hit = sorted(names & used)
            if not hit and base in c.args_text and named.search(c.args_text):
                hit = [base]  # open("prompts/base.md") names the file right in the read
            if hit:
                out.append(
                    Hit.at_call(
                        pf,
                        c,
                        category=Category.PROMPT,
                        kind="prompt_read",
                        detail={"file": ppath, "via": hit[0]},
                    )
                )
    return out
