"""Run the whole survey over a pinned snapshot.

Reads every file through :class:`drafter.snapshot.Snapshot` (git objects only, no
code of the repository is ever run), parses Python once per file, applies every
rule family, builds the call graph and turns rule hits into findings whose snippets
are cut from the file's own lines.  Files the survey cannot use (vendored, huge,
generated, binary) are skipped with a counted reason instead of failing the run.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum

from drafter.console import progress_bar
from drafter.errors import RepoError
from drafter.snapshot import Snapshot
from retrieval.roles import Role, classify_revision
from retrieval.survey import (
    claims,
    config_reads,
    control,
    effects,
    entry,
    model_calls,
    persistence,
    prompts,
    readback,
    tools,
)
from retrieval.survey.base import Hit
from retrieval.survey.callgraph import Resolver, build_call_graph
from retrieval.survey.details import ModelCallDetail
from retrieval.survey.model import CATEGORIES, CallGraph, Category, Finding, SkippedFile, Survey
from retrieval.survey.source import Call, FileTooComplex, PyFile, parse_python

#: Python files larger than this are skipped as generated/huge (bytes).
MAX_PY_BYTES = 600_000
MAX_TEXT_BYTES = 300_000
_VENDORED = re.compile(
    r"(^|/)(node_modules|vendor|vendored|third_party|site-packages|\.venv|venv|\.tox|__pycache__|\.git)/"
)
_GENERATED_MARK = re.compile(
    r"(@generated|\bauto-?generated\b|\bgenerated (?:by|from|with)\b|\bcode generated\b)", re.I
)
_DOC_CLAIM_FILE = re.compile(
    r"(^|/)(README[^/]*\.md|docs?/[^/]+\.md|[^/]*SECURITY[^/]*\.md)$", re.I
)
_CONFIG_NAMES = ("pyproject.toml", "setup.cfg", "setup.py")
#: File roles (:mod:`retrieval.roles`) the survey does not read.
_NOT_SURVEYED = frozenset({Role.logs, Role.results, Role.data})
_CATEGORY_ORDER = {c: i for i, c in enumerate(CATEGORIES)}


class SkipReason(StrEnum):
    """Why a file is not read, so the runner decides on a kind, never on wording."""

    vendored = "vendored"
    not_a_file = "not_a_file"  # a symlink or submodule entry
    huge = "huge"
    generated = "generated"


@dataclass(frozen=True, slots=True)
class Skip:
    """A skipped file's reason: its kind, the text stored in the survey, and the label
    it is counted under in the notices."""

    kind: SkipReason
    text: str
    label: str

    @property
    def listed(self) -> bool:
        """Whether a non-Python file skipped for this reason is still listed."""
        return self.kind in (SkipReason.huge, SkipReason.generated)


def _skip_reason(path: str, size: int, kind: str) -> Skip | None:
    if _VENDORED.search(path):
        return Skip(SkipReason.vendored, "vendored", "vendored")
    if kind not in ("file", "executable"):
        return Skip(SkipReason.not_a_file, kind, kind)
    if path.endswith(".py") and size > MAX_PY_BYTES:
        text = f"huge file ({size} bytes > {MAX_PY_BYTES})"
        return Skip(SkipReason.huge, text, "huge file")
    if path.endswith(("_pb2.py", "_pb2_grpc.py")):
        return Skip(SkipReason.generated, "generated", "generated")
    return None


def _wants_text(path: str, kind: str, size: int) -> bool:
    name = path.rsplit("/", 1)[-1]
    if size > MAX_TEXT_BYTES:
        return False
    if name in _CONFIG_NAMES or name.startswith("Dockerfile") or name.endswith((".sh", ".bash")):
        return True
    if _DOC_CLAIM_FILE.search(path):
        return True
    if name.lower().endswith(prompts._PROMPT_EXT):
        return True
    return kind == "executable" and "." not in name


def run_survey(snapshot: Snapshot, progress: bool = False) -> Survey:
    """Survey ``snapshot``; never raises on odd repository content, only on unreadable repos."""
    entries = [e for e in snapshot.entries()]
    survey = Survey(repository=snapshot.identity, revision=snapshot.sha, files_total=len(entries))
    py_files: list[PyFile] = []
    text_files: list[tuple[str, str]] = []
    skipped: Counter[str] = Counter()

    roles = classify_revision(snapshot)
    not_read: Counter[str] = Counter()
    with progress_bar(label="[bold]{task.description}", enabled=progress) as bar:
        task = bar.add_task("survey: reading", total=len(entries))
        for e in entries:
            bar.advance(task)
            role = roles.role(e.path)
            if role in _NOT_SURVEYED:
                # run output, results and data yield no entry points, prompts or claims:
                # an eval.sh kept from an old run is evidence the system ran, not a route
                not_read[str(role)] += 1
                continue
            skip = _skip_reason(e.path, e.size, e.kind)
            if skip is not None:
                if e.path.endswith(".py") or skip.listed:
                    survey.skipped.append(SkippedFile(path=e.path, reason=skip.text))
                    skipped[skip.label] += 1
                continue
            is_py = e.path.endswith(".py")
            if not is_py and not _wants_text(e.path, e.kind, e.size):
                continue
            try:
                tf = snapshot.read_text(e.path)
            except RepoError as exc:
                survey.skipped.append(SkippedFile(path=e.path, reason=str(exc)))
                continue
            if tf.binary:
                if is_py:
                    survey.skipped.append(SkippedFile(path=e.path, reason="binary"))
                continue
            if is_py:
                head = "\n".join(tf.text.split("\n", 6)[:5])
                if _GENERATED_MARK.search(head):
                    survey.skipped.append(SkippedFile(path=e.path, reason="generated"))
                    skipped["generated"] += 1
                    continue
                bar.update(task, description=f"survey: {e.path[-40:]}")
                try:
                    pf = parse_python(e.path, tf.text)
                except FileTooComplex as exc:
                    survey.skipped.append(SkippedFile(path=e.path, reason=str(exc)))
                    skipped["too complex to survey"] += 1
                    survey.notices.append(f"{e.path}: skipped: {exc}")
                    continue
                if pf.has_errors:
                    survey.notices.append(f"{e.path}: syntax errors; surveyed what parsed")
                if tf.lossy:
                    survey.notices.append(f"{e.path}: not valid UTF-8; decoded with replacement")
                py_files.append(pf)
            if not is_py or e.path.endswith("setup.py"):
                text_files.append((e.path, tf.text))

    survey.python_files = len(py_files)
    for reason, n in sorted(skipped.items()):
        survey.notices.append(f"skipped {n} file(s): {reason}")
    if not_read:
        parts = ", ".join(f"{n} {role}" for role, n in sorted(not_read.items()))
        survey.notices.append(f"not surveyed by file role (evidence of runs and data): {parts}")
    if not py_files:
        survey.notices.append(
            "no Python files at this revision: Python rules and the call graph are empty"
        )

    graph, resolve = build_call_graph(py_files)
    survey.call_graph = graph
    repo_modules = {pf.module for pf in py_files}
    repo_function_names = {n.symbol.rsplit(".", 1)[-1] for n in graph.functions.values()}

    hits: list[Hit] = []
    for pf in py_files:
        hits += entry.python_entries(pf)
        hits += model_calls.model_calls(pf, repo_modules)
        hits += tools.tool_findings(pf, repo_function_names)
        hits += effects.effect_findings(pf)
        hits += persistence.persistence_findings(pf)
        hits += prompts.prompt_strings(pf)
        hits += control.gating_findings(pf)
        hits += config_reads.config_findings(pf)
        hits += claims.docstring_claims(pf)
        hits += claims.tool_description_claims(pf)
    named_in_code = _names_in_code(py_files)
    for path, text in text_files:
        name = path.rsplit("/", 1)[-1]
        if name in _CONFIG_NAMES:
            hits += entry.console_scripts(path, text)
        if (
            name.startswith("Dockerfile")
            or name.endswith((".sh", ".bash"))
            or text.startswith("#!")
        ):
            hits += entry.shell_entries(path, text)
        found_prompt = []
        if not path.endswith(".py"):
            found_prompt = prompts.prompt_file(path, text, named_in_code)
            hits += found_prompt
        if _DOC_CLAIM_FILE.search(path):
            hits += claims.doc_claims(path, text)
        elif found_prompt and path.lower().endswith((".md", ".txt", ".markdown")):
            hits += claims.instruction_rules(path, text)

    hits += readback.read_back_findings(py_files, hits)

    # loops that call models need the model-call sites and the call graph
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

    for pf in py_files:
        hits += control.loop_findings(pf, calls_model, resolve)
    hits += _wrapper_calls(py_files, hits, resolve, graph)

    hits += _prompt_file_uses(py_files, hits)
    _resolve_entry_targets(hits, py_files, graph)
    lines_of = {pf.path: pf.lines for pf in py_files}
    lines_of.update({p: t.split("\n") for p, t in text_files})
    survey.findings = _to_findings(hits, lines_of)
    return survey


def _names_in_code(files: list[PyFile]) -> Callable[[str], bool]:
    """``named(path)``: does a short string literal of the code name the file (its
    base name, of at least five characters)?  Built on first use."""
    strings: list[str] = []

    def named(path: str) -> bool:
        if not strings:
            strings.extend(
                s.value
                for pf in files
                for s in pf.strings
                if not s.is_docstring and s.end_line - s.start_line <= 2
            )
            strings.append("")  # built, even when the code has no strings
        base = path.rsplit("/", 1)[-1]
        return len(base) >= 5 and any(base in v for v in strings)

    return named


#: How many repository calls a wrapper may stand between a call site and the model call.
WRAPPER_DEPTH = 2


def _wrapper_calls(
    files: list[PyFile], hits: list[Hit], resolve: Resolver, graph: CallGraph
) -> list[Hit]:
    """Call sites that reach a model call through repository wrappers (``chat(...)`` →
    ``get_response`` → ``litellm.completion``): where the system really talks to a model.
    Each names the direct model call it reaches (``reaches``), so proposers can group it
    with that endpoint."""
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


def _prompt_file_uses(files: list[PyFile], hits: list[Hit]) -> list[Hit]:
    """Where code names a shipped prompt file (``prompt_load``) and where it reads it through
    that name (``prompt_read``): the channel by which file text reaches a model."""
    out: list[Hit] = []
    prompt_files = sorted(
        {h.path for h in hits if h.category == Category.PROMPT and h.kind == "prompt_file"}
    )
    for ppath in prompt_files:
        base = ppath.rsplit("/", 1)[-1]
        if len(base) < 5:
            continue
        names: set[str] = set()
        for pf in files:
            for s in pf.strings:
                if s.is_docstring or base not in s.value or s.end_line - s.start_line > 2:
                    continue
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
        for pf in files:
            for c in pf.calls:
                last = c.callee.rsplit(".", 1)[-1]
                if last not in ("read_text", "read_bytes", "open", "read", "load", "safe_load"):
                    continue
                used = set(re.findall(r"[A-Za-z_]\w*", c.callee + " " + c.args_text))
                hit = sorted(names & used)
                if not hit and base in c.args_text:
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


def _resolve_entry_targets(hits: Iterable[Hit], files: list[PyFile], graph: CallGraph) -> None:
    """Point console scripts and shell lines at the call-graph node they start."""
    from retrieval.survey.callgraph import ModuleIndex

    index = ModuleIndex([pf.path for pf in files])
    paths = {pf.path for pf in files}
    for h in hits:
        if h.category != Category.ENTRY_POINT:
            continue
        target = None
        if "target_function" in h.view:
            p = index.path(h.view["target_module"])
            if p:
                cand = f"{p}::{h.view['target_function']}"
                target = cand if cand in graph.functions else f"{p}::<module>"
        elif "target_path" in h.view:
            tp = h.view["target_path"]
            base = h.path.rsplit("/", 1)[0] + "/" if "/" in h.path else ""
            for cand in (tp, base + tp):
                if cand in paths:
                    main = f"{cand}::<main>"
                    target = main if main in graph.functions else f"{cand}::<module>"
                    break
        elif "target_module" in h.view:
            p = index.path(h.view["target_module"]) or index.path(
                h.view["target_module"] + ".__main__"
            )
            if p:
                main = f"{p}::<main>"
                target = main if main in graph.functions else f"{p}::<module>"
        if target:
            h.view["target_node"] = target


def _to_findings(hits: list[Hit], lines_of: dict[str, list[str]]) -> list[Finding]:
    out: list[Finding] = []
    seen: Counter[str] = Counter()
    uniq: set[tuple[str, str, str, int, int]] = set()
    for h in sorted(
        hits, key=lambda h: (_CATEGORY_ORDER.get(h.category, 99), h.path, h.start_line, h.kind)
    ):
        key = (h.category, h.kind, h.path, h.start_line, h.end_line)
        if key in uniq:
            continue
        uniq.add(key)
        lines = lines_of.get(h.path, [])
        end = max(h.start_line, min(h.end_line, len(lines)))
        snippet = "\n".join(lines[h.start_line - 1 : end])
        if not snippet.strip():
            continue
        base = f"{h.category}:{h.path}:{h.start_line}"
        seen[base] += 1
        fid = base if seen[base] == 1 else f"{base}#{seen[base]}"
        out.append(
            Finding(
                id=fid,
                category=h.category,
                kind=h.kind,
                path=h.path,
                start_line=h.start_line,
                end_line=end,
                symbol=h.symbol,
                snippet=snippet,
                detail=h.view,
            )
        )
    return out
