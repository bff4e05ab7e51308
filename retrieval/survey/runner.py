"""Run the whole survey over a pinned snapshot: select -> parse -> rules -> cross-file passes.

Reads every file through :class:`drafter.snapshot.Snapshot` (git objects only, no
code of the repository is ever run), parses each source file once with its language
(:mod:`retrieval.languages`), runs every rule of the registry
(:mod:`retrieval.survey.rules`) on each file, builds the call graph,
runs the cross-file passes, and turns rule hits into findings whose snippets are cut
from the file's own lines.  Files the survey cannot use (vendored, huge, generated,
binary) are skipped with a counted reason instead of failing the run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from drafter.collect import fewer_collections
from drafter.console import progress_bar
from drafter.errors import RepoError
from drafter.snapshot import FileEntry, Snapshot
from retrieval.languages import LANGUAGES, for_path, unsupported_label
from retrieval.languages.facts import FileTooComplex, SourceFile
from retrieval.languages.spec import Language
from retrieval.roles import Role, classify_revision
from retrieval.survey.base import Hit
from retrieval.survey.callgraph import build_call_graph
from retrieval.survey.crossfile import names_in_code
from retrieval.survey.crossings import named_programs
from retrieval.survey.model import (
    CATEGORIES,
    CallGraph,
    Category,
    Finding,
    LanguageShare,
    SkippedFile,
    Survey,
)
from retrieval.survey.registry import Registry, Repo, TextFile
from retrieval.survey.rules import RULES
from retrieval.survey.select import GENERATED_MARK, NOT_SURVEYED, skip_reason, wants_text

_CATEGORY_ORDER = {c: i for i, c in enumerate(CATEGORIES)}


@dataclass(slots=True)
class _Read:
    """What the select and parse steps kept, and the counts behind their notices."""

    files: list[SourceFile] = field(default_factory=list)
    text_files: list[TextFile] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    not_read: Counter[str] = field(default_factory=Counter)
    #: Files of a surveyed language or a text file the role map leaves out, by reason.
    left_out: Counter[str] = field(default_factory=Counter)
    #: Source files and lines per language name (surveyed) or label (unsupported).
    lang_files: Counter[str] = field(default_factory=Counter)
    lang_lines: Counter[str] = field(default_factory=Counter)


def run_survey(snapshot: Snapshot, progress: bool = False, rules: Registry = RULES) -> Survey:
    """Survey ``snapshot`` with ``rules``; never raises on odd repository content, only on
    unreadable repos."""
    with fewer_collections():
        return _survey(snapshot, progress, rules)


def _survey(snapshot: Snapshot, progress: bool, rules: Registry) -> Survey:
    entries = list(snapshot.entries())
    survey = Survey(repository=snapshot.name, revision=snapshot.sha, files_total=len(entries))
    read = _read_files(snapshot, entries, survey, progress)
    _note_counts(survey, read)

    paths = {f.path for f in read.files} | {tf.path for tf in read.text_files}
    programs = named_programs(((tf.path, tf.text) for tf in read.text_files), paths)
    graph, resolve = build_call_graph(read.files, programs)
    survey.call_graph = graph
    repo = Repo(
        files=read.files,
        text_files=read.text_files,
        graph=graph,
        resolve=resolve,
        modules={pf.module for pf in read.files},
        function_names={n.symbol.rsplit(".", 1)[-1] for n in graph.functions.values()},
        named_in_code=names_in_code(read.files),
    )
    hits = run_rules(rules, repo)
    _resolve_entry_targets(hits, read.files, graph)
    lines_of = {pf.path: pf.lines for pf in read.files}
    lines_of.update({tf.path: tf.text.split("\n") for tf in read.text_files})
    survey.findings = _to_findings(hits, lines_of)
    return survey


def run_rules(rules: Registry, repo: Repo) -> list[Hit]:
    """Every rule of ``rules`` in order: per source file (its language's rules), per
    text file, then the cross-file passes over all hits so far."""
    hits: list[Hit] = []
    by_language = {r.language for r in rules.source_rules}
    per_language = {name: rules.for_language(name) for name in by_language if name}
    for pf in repo.files:
        for src_rule in per_language.get(pf.language, []):
            if src_rule.when(pf):
                hits += src_rule.call(pf, repo)
    for tf in repo.text_files:
        for text_rule in rules.text_rules:
            if text_rule.when(tf):
                found = text_rule.call(tf, repo)
                tf.earlier[text_rule.name] = found
                hits += found
    for repo_rule in rules.repository_rules:
        hits += repo_rule.call(hits, repo)
    return hits


def _read_files(
    snapshot: Snapshot, entries: list[FileEntry], survey: Survey, progress: bool
) -> _Read:
    """Select the files worth reading and parse the source files of every language (the
    select and parse steps), recording skipped files and notices on ``survey``."""
    read = _Read()
    roles = classify_revision(snapshot)
    with progress_bar(label="[bold]{task.description}", enabled=progress) as bar:
        task = bar.add_task("survey: reading", total=len(entries))
        for e in entries:
            if progress:  # a disabled bar still takes its lock and bookkeeping per call
                bar.advance(task)
            role = roles.role(e.path)
            if role in NOT_SURVEYED:
                # run output, results and data yield no entry points, prompts or claims:
                # an eval.sh kept from an old run is evidence the system ran, not a route
                read.not_read[str(role)] += 1
                continue
            lang = for_path(e.path)
            skip = skip_reason(e.path, e.size, e.kind)
            if skip is not None:
                if lang is not None or skip.listed:
                    survey.skipped.append(SkippedFile(path=e.path, reason=skip.text))
                    read.skipped[skip.label] += 1
                continue
            fr = roles.get(e.path)
            if fr is not None and fr.role is Role.vendored:
                if lang is not None or wants_text(e.path, e.kind, e.size):
                    read.left_out[fr.reason] += 1
                continue
            if lang is not None:
                read.lang_files[lang.name] += 1
            elif (other := unsupported_label(e.path)) is not None:
                _count_unsupported(snapshot, e, other, read)
                continue
            if lang is None and not wants_text(e.path, e.kind, e.size):
                continue
            try:
                tf = snapshot.read_text(e.path)
            except RepoError as exc:
                survey.skipped.append(SkippedFile(path=e.path, reason=str(exc)))
                continue
            if tf.binary:
                if lang is not None:
                    survey.skipped.append(SkippedFile(path=e.path, reason="binary"))
                continue
            if lang is not None:
                read.lang_lines[lang.name] += tf.text.count("\n") + 1
                if _generated(lang, e.path, tf.text, survey, read.skipped):
                    continue
                if progress:
                    bar.update(task, description=f"survey: {e.path[-40:]}")
                pf = _parse(lang, e.path, tf.text, tf.lossy, survey, read.skipped)
                if pf is None:
                    continue
                read.files.append(pf)
            if lang is None or e.path.rsplit("/", 1)[-1] in lang.text_names:
                read.text_files.append(TextFile(e.path, tf.text))
    return read


def _generated(lang: Language, path: str, text: str, survey: Survey, skipped: Counter[str]) -> bool:
    """A source file whose first lines say it was generated, or whose opening holds a
    line too long to be written by hand (a minified bundle): recorded as skipped."""
    head = "\n".join(text.split("\n", 6)[:5])
    reason = "generated" if GENERATED_MARK.search(head) else None
    cap = lang.max_line_chars
    if reason is None and cap is not None:
        if any(len(line) > cap for line in text[:8192].split("\n")):
            reason = "minified bundle"
    if reason is None:
        return False
    survey.skipped.append(SkippedFile(path=path, reason=reason))
    skipped[reason] += 1
    return True


def _count_unsupported(snapshot: Snapshot, e: FileEntry, label: str, read: _Read) -> None:
    """Count a source file of a language the survey does not parse, for its share."""
    read.lang_files[label] += 1
    if e.size > 1_000_000:
        return
    try:
        tf = snapshot.read_text(e.path)
    except RepoError:
        return
    if not tf.binary:
        read.lang_lines[label] += tf.text.count("\n") + 1


def _parse(
    lang: Language, path: str, text: str, lossy: bool, survey: Survey, skipped: Counter[str]
) -> SourceFile | None:
    """Parse one source file with its language, or record why it is skipped (too complex)."""
    try:
        pf = lang.parse(path, text)
    except FileTooComplex as exc:
        survey.skipped.append(SkippedFile(path=path, reason=str(exc)))
        skipped["too complex to survey"] += 1
        survey.notices.append(f"{path}: skipped: {exc}")
        return None
    if pf.has_errors:
        survey.notices.append(f"{path}: syntax errors; surveyed what parsed")
    if lossy:
        survey.notices.append(f"{path}: not valid UTF-8; decoded with replacement")
    return pf


def _note_counts(survey: Survey, read: _Read) -> None:
    survey.python_files = sum(1 for f in read.files if f.language == "python")
    survey.languages = _language_shares(read)
    for reason, n in sorted(read.skipped.items()):
        survey.notices.append(f"skipped {n} file(s): {reason}")
    if read.not_read:
        parts = ", ".join(f"{n} {role}" for role, n in sorted(read.not_read.items()))
        survey.notices.append(f"not surveyed by file role (evidence of runs and data): {parts}")
    if read.left_out:
        parts = ", ".join(f"{n} {why}" for why, n in sorted(read.left_out.items()))
        survey.notices.append(f"not surveyed by file role (vendored, built or generated): {parts}")
    shares = survey.languages
    if len(shares) > 1 or any(not s.supported for s in shares):
        survey.notices.append("languages: " + "; ".join(_share_text(s) for s in shares))
    if not read.files:
        names = ", ".join(lang.label for lang in LANGUAGES)
        survey.notices.append(
            f"no Python files at this revision, nor any of {names}: source rules and "
            "the call graph are empty"
        )
    elif not survey.python_files and not shares:
        survey.notices.append(
            "no Python files at this revision: Python rules and the call graph are empty"
        )


def _language_shares(read: _Read) -> list[LanguageShare]:
    """Each language's files and lines, largest share of lines first."""
    names = {lang.name: lang.label for lang in LANGUAGES}
    surveyed = Counter(f.language for f in read.files)
    total_files = sum(read.lang_files.values()) or 1
    total_lines = sum(read.lang_lines.values()) or 1
    out = [
        LanguageShare(
            name=key,
            label=names.get(key, key),
            files=n,
            lines=read.lang_lines[key],
            supported=key in names,
            surveyed=surveyed[key],
            file_share=round(n / total_files, 4),
            line_share=round(read.lang_lines[key] / total_lines, 4),
        )
        for key, n in read.lang_files.items()
    ]
    return sorted(out, key=lambda s: (-s.lines, s.name))


def _share_text(s: LanguageShare) -> str:
    what = f"{s.label} {s.files} file(s), {s.lines} lines ({s.line_share:.0%} of source lines)"
    return what if s.supported else f"{what}: not supported, not surveyed"


def _resolve_entry_targets(hits: Iterable[Hit], files: list[SourceFile], graph: CallGraph) -> None:
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
