"""What each file of a revision is to an analyst, decided once, each decision with its reason.

Why: research repositories commit their run output beside their code (logs,
predictions, results tables, datasets).  Embedding all of it costs CPU-hours, floods the
survey with entry points and prompts found in old runs, and crowds code out of search
hits.  An analyst reads the code, its docs, configuration and prompts; data, logs and
results are evidence that the system ran, searchable by their words and listed with their
size, never embedded.

Every rule is generic: file extensions, sizes, folder-name conventions (``logs/``,
``results/``, ``outputs/``, ``predictions/``, ``data/``, …) and the shape of the content
(a JSON array of records, one enormous line).  No rule names a file, folder or
identifier of a particular repository.  One exception keeps data the code depends on: a
small structured file whose name appears in a string of the repository's own code (a
config JSON read by name) is configuration, not data.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import PurePosixPath

from drafter.snapshot import Snapshot
from retrieval.languages import (
    LANGUAGES,
    for_path,
    generated_suffixes,
    is_package_folder,
    source_suffixes,
)


class Role(StrEnum):
    """What a file is to an analyst of the system."""

    code = "code"
    docs = "docs"
    config = "config"
    prompt = "prompt"
    data = "data"
    logs = "logs"
    results = "results"
    vendored = "vendored"


class Treatment(StrEnum):
    """What the index does with a file."""

    embed = "embedded"  # chunked whole, dense vectors and lexical search
    lexical = "lexical only"  # its opening part is searchable by its words
    listed = "skipped"  # named with its size and why, not read


#: Roles whose files are embedded unless a size or shape rule says otherwise.
READ_ROLES = frozenset({Role.code, Role.docs, Role.config, Role.prompt})

#: Bytes of a lexical-only file that are searchable (its opening part).
LEXICAL_HEAD_BYTES = 4096
#: Lexical-only bytes across the revision; files past it are listed with their size.
LEXICAL_TOTAL_BYTES = 4_000_000
#: Files larger than this are never embedded whatever their role.
MAX_EMBED_BYTES = 1_000_000
#: A line longer than this is minified or serialised data, not something to read.
MAX_LINE_CHARS = 2_000
#: A structured file (JSON, YAML, XML) larger than this is data unless the code reads it.
MAX_CONFIG_BYTES = 64_000
#: A structured file the code names stays configuration up to this size.
MAX_READ_BACK_BYTES = 256_000

_VENDORED_DIRS = frozenset(
    "node_modules vendor vendored third_party third-party site-packages dist-packages .venv "
    "venv bower_components __pycache__ .git .tox .mypy_cache .pytest_cache".split()
)
_GENERATED_NAMES = frozenset(
    "package-lock.json yarn.lock poetry.lock uv.lock pipfile.lock pnpm-lock.yaml cargo.lock "
    "composer.lock go.sum bun.lockb bun.lock npm-shrinkwrap.json deno.lock".split()
)
#: Type declarations of TypeScript: the shape of an API, not code that runs.
_DECLARATION_SUFFIXES = (".d.ts", ".d.mts", ".d.cts")
#: Test snapshots written by a test runner (``__snapshots__/x.test.ts.snap``).
_SNAPSHOT_DIRS = frozenset({"__snapshots__"})
#: A test file beside the code it tests (``agent.test.ts``, ``loop.spec.js``, ``x_test.go``).
_COLOCATED_TEST = re.compile(r"\.(test|spec)\.[cm]?[jt]sx?$|_test\.go$")
_GENERATED_SUFFIXES = (".min.js", ".min.css", ".js.map", ".css.map", *generated_suffixes())
_LOG_DIRS = frozenset(
    "logs log runs outputs output predictions preds wandb mlruns lightning_logs tb_logs "
    "tensorboard checkpoints ckpt ckpts trajectories transcripts".split()
)
_RESULT_DIRS = frozenset("results result eval_results evaluation_results scores".split())
_DATA_DIRS = frozenset(
    "data dataset datasets fixtures corpus corpora benchmark_data test_data testdata".split()
)
_PROMPT_DIRS = frozenset("prompts prompt templates template instructions".split())
_CODE_SUFFIXES = frozenset(
    ".py .pyi .js .mjs .cjs .ts .tsx .jsx .sh .bash .zsh .go .rs .java .kt .scala .c .cc .cpp "
    ".h .hpp .rb .swift .lua .r .jl .php .cs .sql .ps1 .bat".split()
) | frozenset(source_suffixes())
_CODE_NAMES = frozenset("dockerfile makefile justfile procfile".split())
_DOC_SUFFIXES = frozenset(".md .markdown .mdx .rst .txt .adoc .org .tex".split())
_CONFIG_SUFFIXES = frozenset(".toml .cfg .ini .conf .env .properties .editorconfig".split())
_STRUCTURED_SUFFIXES = frozenset(".json .yaml .yml .xml".split())
#: Data in text form: searchable by the words of its opening part.
_TEXT_DATA_SUFFIXES = frozenset(".csv .tsv .jsonl .ndjson .ipynb".split())
#: Binary or archived data: listed with its size, never read.
_DATA_SUFFIXES = frozenset(
    ".parquet .arrow .feather .h5 .hdf5 .npy .npz .pkl .pickle .pt "
    ".pth .bin .onnx .safetensors .ckpt .db .sqlite .sqlite3 .gz .zip .tar .bz2 .xz .7z .png "
    ".jpg .jpeg .gif .svg .webp .bmp .ico .pdf .mp4 .mp3 .wav .ttf .woff .woff2".split()
)
_LOG_SUFFIXES = frozenset(".log .out .err .trace .traj".split())
_PROMPT_SUFFIXES = frozenset(".j2 .jinja .jinja2 .tmpl .tpl .mustache .hbs .prompt".split())
#: A folder holding this many files of one data-like extension is a corpus, not docs.
CORPUS_FILES = 50
_CORPUS_SUFFIXES = frozenset(".txt .json .xml .html .htm .yaml .yml".split())
#: Plain text over this size is data (a dump, a transcript), not documentation.
MAX_PLAIN_TEXT_BYTES = 100_000
#: A name that starts with a date and time was written by a run.
_RUN_STAMP = re.compile(r"^\d{8}[_\-T]?\d{4,6}")
_LOG_NAME = re.compile(
    r"(^|[_\-.])(log|logs|transcripts?|trajector(y|ies)|history)([_\-.]|$)", re.I
)
_LICENCE = re.compile(r"^(licen[cs]e|copying|notice|authors|contributors)(\.[a-z]+)?$", re.I)
_RESULT_NAME = re.compile(r"(^|[_\-.])(results?|predictions?|scores?|metrics)([_\-.]|$)", re.I)
_PROMPT_NAME = re.compile(r"prompt|instruction|system_message", re.I)
#: A string literal in code that names a structured file (``"config.json"``).
_NAMED_FILE = re.compile(r"""["']([^"'\n]{1,200}\.(?:json|ya?ml|xml|toml|txt|md|csv|jsonl))["']""")


@dataclass(frozen=True, slots=True)
class FileRole:
    """One file's role, what the index does with it, and why."""

    path: str
    role: Role
    treatment: Treatment
    reason: str
    size: int

    @property
    def embedded(self) -> bool:
        return self.treatment is Treatment.embed


@dataclass(slots=True)
class RoleMap:
    """Every file of one revision with its role; built by :func:`classify_revision`."""

    files: dict[str, FileRole] = field(default_factory=dict)

    def get(self, path: str) -> FileRole | None:
        return self.files.get(path)

    def role(self, path: str) -> Role | None:
        got = self.files.get(path)
        return got.role if got is not None else None

    def with_treatment(self, treatment: Treatment) -> list[FileRole]:
        return [f for f in self.files.values() if f.treatment is treatment]

    def counts(self) -> Counter[tuple[Role, Treatment]]:
        return Counter((f.role, f.treatment) for f in self.files.values())

    def left_out(self) -> dict[str, tuple[int, int]]:
        """Files not embedded, as ``"<role>, <treatment>: <reason>" -> (files, bytes)``."""
        out: dict[str, tuple[int, int]] = {}
        for f in self.files.values():
            if f.embedded:
                continue
            key = f"{f.role}, {f.treatment}: {f.reason}"
            n, size = out.get(key, (0, 0))
            out[key] = (n + 1, size + f.size)
        return dict(sorted(out.items(), key=lambda kv: (-kv[1][1], kv[0])))

    def summary_line(self) -> str:
        """One line for a draft's notes and the index summary: what was read and what not."""
        by_t: Counter[Treatment] = Counter(f.treatment for f in self.files.values())
        size_t: Counter[Treatment] = Counter()
        for f in self.files.values():
            size_t[f.treatment] += f.size
        parts = [f"{by_t[t]} file(s) {t} ({_mb(size_t[t])})" for t in Treatment if by_t[t]]
        roles = Counter(f.role for f in self.files.values() if not f.embedded)
        tail = ", ".join(f"{n} {r}" for r, n in roles.most_common())
        return "; ".join(parts) + (f" — not embedded: {tail}" if tail else "")


def _mb(n: int) -> str:
    return f"{n / 1_000_000:.1f} MB" if n >= 100_000 else f"{n / 1000:.0f} KB"


#: A role decision before the size and line checks: role, reason, and the treatment
#: when it is not the role's default.
_Verdict = tuple[Role, str, Treatment | None]


def classify(
    path: str,
    size: int,
    head: str = "",
    *,
    read_by_code: frozenset[str] = frozenset(),
    paths: frozenset[str] = frozenset(),
    corpora: frozenset[str] = frozenset(),
    output_dirs: frozenset[str] = frozenset(),
) -> FileRole:
    """The role of one file from its path, size and opening text (``head``, may be empty).

    ``read_by_code`` holds the base names that strings of the repository's code name;
    ``paths`` all paths of the revision (a source file in a package folder, one holding
    its language's package marker such as ``__init__.py``, is code even when the folder
    is called like run output); ``corpora`` the ``folder/*.ext`` groups
    of :data:`CORPUS_FILES` or more files (see :func:`corpus_groups`); ``output_dirs``
    the build-output folders of the languages whose manifest the revision holds
    (``dist/`` when it has a ``package.json``; see :func:`build_output_dirs`).
    """
    p = PurePosixPath(path)
    verdict = _by_kind(p, paths, output_dirs) or _by_place_and_shape(
        p, size, head, read_by_code, corpora
    )
    role, reason, treatment = verdict
    if treatment is None:
        treatment = Treatment.embed if role in READ_ROLES else Treatment.lexical
    if treatment is Treatment.embed:
        if size > MAX_EMBED_BYTES:
            treatment, reason = Treatment.lexical, f"{reason}; too large to embed ({_mb(size)})"
        elif _longest_line(head) > MAX_LINE_CHARS:
            treatment, reason = (
                Treatment.lexical,
                f"{reason}; a line over {MAX_LINE_CHARS} chars",
            )
    return FileRole(path, role, treatment, reason, size)


def _by_kind(
    p: PurePosixPath, paths: frozenset[str], output_dirs: frozenset[str] = frozenset()
) -> _Verdict | None:
    """Vendored, generated, binary data, run output, results and source code: what the
    name and folders alone decide (None when they do not)."""
    name = p.name.lower()
    suffix = p.suffix.lower()
    folders = [d.lower() for d in p.parts[:-1]]
    vendored = next((d for d in folders if d in _VENDORED_DIRS), None)
    if vendored is not None:
        return Role.vendored, f"under {vendored}/", Treatment.listed
    built = next((d for d in folders if d in output_dirs), None)
    if built is not None:
        return Role.vendored, f"build output under {built}/", Treatment.listed
    if name.endswith(_DECLARATION_SUFFIXES):
        return Role.vendored, "type declarations (.d.ts)", Treatment.lexical
    if suffix == ".map":
        return Role.vendored, "source map", Treatment.listed
    if suffix == ".snap" or any(d in _SNAPSHOT_DIRS for d in folders):
        return Role.data, "test snapshot (__snapshots__/, .snap)", Treatment.lexical
    if name in _GENERATED_NAMES or name.endswith(_GENERATED_SUFFIXES):
        return (
            Role.vendored,
            "generated file (lock file, minified or compiled)",
            Treatment.listed,
        )
    if suffix in _DATA_SUFFIXES:
        return Role.data, f"{suffix} file", Treatment.listed
    if suffix in _TEXT_DATA_SUFFIXES:
        return Role.data, f"{suffix} file", None

    is_code = suffix in _CODE_SUFFIXES or name in _CODE_NAMES or name.startswith("dockerfile")
    in_package = for_path(str(p)) is not None and is_package_folder(
        str(p.parent) if p.parent.parts else "", paths
    )
    run_dir = next((d for d in folders if d in _LOG_DIRS), None)
    result_dir = next((d for d in folders if d in _RESULT_DIRS), None)
    if (run_dir or result_dir) and not in_package:
        if run_dir:
            return Role.logs, f"under {run_dir}/ (run output)", None
        return Role.results, f"under {result_dir}/", None
    if suffix in _LOG_SUFFIXES:
        return Role.logs, f"{suffix} file (run output)", None
    if is_code and _COLOCATED_TEST.search(name):
        return Role.code, "test source beside the code (ranked after code)", None
    if is_code:
        return Role.code, f"{suffix or name} source", None
    if _RUN_STAMP.match(p.stem):
        return Role.logs, "named with a run's date and time", None
    if _LOG_NAME.search(p.stem) and (suffix in _DOC_SUFFIXES or suffix in _STRUCTURED_SUFFIXES):
        return Role.logs, "named like a log or transcript", None
    return None


def _by_place_and_shape(
    p: PurePosixPath, size: int, head: str, read_by_code: frozenset[str], corpora: frozenset[str]
) -> _Verdict:
    """Config, data, results, prompts and documents: decided by folder, name, size and
    the opening text."""
    name = p.name.lower()
    suffix = p.suffix.lower()
    folders = [d.lower() for d in p.parts[:-1]]
    base = p.name
    if suffix in _STRUCTURED_SUFFIXES:
        if base in read_by_code and size <= MAX_READ_BACK_BYTES:
            return Role.config, "named by the repository's code", Treatment.embed
    group = f"{p.parent}/*{suffix}"
    if suffix in _CORPUS_SUFFIXES and group in corpora:
        return Role.data, f"one of {CORPUS_FILES}+ {suffix} files in {p.parent}/ (a corpus)", None
    data_dir = next((d for d in folders if d in _DATA_DIRS), None)
    if data_dir is not None:
        return Role.data, f"under {data_dir}/", None
    if _RESULT_NAME.search(p.stem) and suffix in _STRUCTURED_SUFFIXES | _DOC_SUFFIXES:
        return Role.results, "named like results or predictions", None
    prompt_dir = next((d for d in folders if d in _PROMPT_DIRS), None)
    if suffix in _PROMPT_SUFFIXES:
        return Role.prompt, f"{suffix} template", None
    if prompt_dir is not None and (suffix in _DOC_SUFFIXES or suffix in _STRUCTURED_SUFFIXES):
        return Role.prompt, f"under {prompt_dir}/", None
    if suffix in _STRUCTURED_SUFFIXES:
        if size > MAX_CONFIG_BYTES:
            return Role.data, f"{suffix} over {MAX_CONFIG_BYTES // 1000} KB", None
        if _records_shape(head):
            return Role.data, f"{suffix} holding a list of records", None
        return Role.config, f"small {suffix} file", None
    if suffix in _CONFIG_SUFFIXES or name.startswith(".") and "." not in name[1:]:
        return Role.config, f"{suffix or name} settings", None
    if _LICENCE.match(name):
        return Role.docs, "licence or notice text", Treatment.lexical
    if suffix == ".txt" and size > MAX_PLAIN_TEXT_BYTES:
        return Role.data, f"plain text over {MAX_PLAIN_TEXT_BYTES // 1000} KB", None
    if suffix in _DOC_SUFFIXES or not suffix:
        if _PROMPT_NAME.search(p.stem):
            return Role.prompt, "named like a prompt", None
        return Role.docs, f"{suffix or 'extension-less'} text", None
    return Role.data, f"{suffix} file of unknown kind", None


def _longest_line(head: str) -> int:
    return max((len(line) for line in head.split("\n")), default=0)


_RECORD_LIST = re.compile(r"^\s*\[\s*\{")


def _records_shape(head: str) -> bool:
    """A JSON document that opens as an array of objects: rows of a dataset, not settings."""
    return bool(_RECORD_LIST.match(head)) and head.count("{") >= 8


def is_test_path(path: str) -> bool:
    """A test file beside the code it tests (``*.test.ts``, ``*.spec.js``, ``*_test.go``),
    which ranks after code though it sits in a code folder."""
    return bool(_COLOCATED_TEST.search(path.rsplit("/", 1)[-1].lower()))


#: Folders holding test code, whatever the language.
_TEST_DIRS = re.compile(r"(^|/)(tests?|__tests__|__mocks__)/")


def in_test_code(path: str) -> bool:
    """Test code: a file beside the code it tests or any file under a tests folder.
    Declarations made there (a tool schema of a fixture, a variable a test sets) are the
    test's, not the system's."""
    return is_test_path(path) or _TEST_DIRS.search(path) is not None


#: Files about working on the repository rather than about the system: how to contribute,
#: what changed in a release, and the instructions a coding agent is given for editing the
#: repository (the ``AGENTS.md`` convention and its per-tool variants, execution plans).
_TOOLING_NAME = re.compile(
    r"^((?i:contributing|code_of_conduct|changelog|changes|history|releasing|release|maintainers"
    r"|governance|support|copilot-instructions)|AGENTS|CLAUDE|GEMINI|PLANS)"
    r"(\.(?i:md|mdx|markdown|rst|txt))?$"
)
#: A folder at the top of the repository whose name starts with a dot holds its tooling:
#: CI, editor, release and coding-agent configuration (``.github/``, ``.changeset/``).
_TOOLING_DIR = re.compile(r"^\.[^/]+/")


def is_repo_tooling(path: str) -> bool:
    """A file about developing the repository (contributor guides, changelogs, coding-agent
    instructions, top-level dot folders): its sentences promise nothing about what the
    system does, and its instructions address whoever edits the code, not the system's
    model."""
    return bool(_TOOLING_DIR.match(path) or _TOOLING_NAME.match(path.rsplit("/", 1)[-1]))


def build_output_dirs(paths: Iterable[str]) -> frozenset[str]:
    """Build-output folders of the languages whose manifest a revision holds: a
    ``package.json`` makes ``dist/`` and ``build/`` the output of the JavaScript build."""
    names = {p.rsplit("/", 1)[-1] for p in paths}
    out: set[str] = set()
    for lang in LANGUAGES:
        if lang.output_dirs and names & set(lang.text_names):
            out |= lang.output_dirs
    return frozenset(out - {"node_modules"})


def corpus_groups(paths: Iterable[str]) -> frozenset[str]:
    """``folder/*.ext`` for every folder holding :data:`CORPUS_FILES` or more files of one
    data-like extension (parsed papers, one JSON per task)."""
    count: Counter[str] = Counter()
    for path in paths:
        p = PurePosixPath(path)
        if p.suffix.lower() in _CORPUS_SUFFIXES:
            count[f"{p.parent}/*{p.suffix.lower()}"] += 1
    return frozenset(g for g, n in count.items() if n >= CORPUS_FILES)


def code_named_files(texts: Iterable[str]) -> frozenset[str]:
    """Base names of files that string literals in code name (``open("cfg/run.json")``)."""
    out: set[str] = set()
    for text in texts:
        for m in _NAMED_FILE.finditer(text):
            out.add(m.group(1).rsplit("/", 1)[-1])
    return frozenset(out)


#: How much of each file the classifier reads (enough for line length and shape).
HEAD_BYTES = 8192

_cache: dict[tuple[str, str], RoleMap] = {}


def classify_revision(snapshot: Snapshot) -> RoleMap:
    """Roles of every file at the snapshot's revision (memoised per process)."""
    key = (snapshot.identity, snapshot.sha)
    got = _cache.get(key)
    if got is not None:
        return got
    entries = [e for e in snapshot.entries() if e.kind in ("file", "executable")]
    paths = frozenset(e.path for e in entries)
    code = [e.path for e in entries if for_path(e.path) is not None and e.size <= MAX_EMBED_BYTES]
    snapshot.prefetch(code)
    texts = []
    for path in code:
        try:
            texts.append(snapshot.read_str(path))
        except Exception:  # noqa: BLE001 - an unreadable file names nothing
            continue
    named = code_named_files(texts)
    corpora = corpus_groups(paths)
    built = build_output_dirs(paths)
    roles = RoleMap()
    for e in entries:
        roles.files[e.path] = classify(
            e.path, e.size, read_by_code=named, paths=paths, corpora=corpora, output_dirs=built
        )
    # the opening text only matters for files that would be read: a line too long to
    # read, a JSON document shaped like a table of records
    second = [
        e
        for e in entries
        if roles.files[e.path].embedded or roles.files[e.path].role is Role.config
    ]
    snapshot.prefetch([e.path for e in second])
    for e in second:
        head = _head(snapshot, e.path)
        if head == _BINARY:
            roles.files[e.path] = FileRole(
                e.path, Role.vendored, Treatment.listed, "binary file (not text)", e.size
            )
        elif head:
            roles.files[e.path] = classify(
                e.path, e.size, head, read_by_code=named, paths=paths, output_dirs=built
            )
    _budget_lexical(roles)
    _cache[key] = roles
    return roles


#: What :func:`_head` returns for a file that is not text (a committed executable).
_BINARY = "\0"


def _head(snapshot: Snapshot, path: str) -> str:
    try:
        tf = snapshot.read_text(path)
    except Exception:  # noqa: BLE001 - unreadable: classified by its name alone
        return ""
    return _BINARY if tf.binary else tf.text[:HEAD_BYTES]


def _budget_lexical(roles: RoleMap) -> None:
    """Lexical-only files past the revision's byte budget are listed instead (smallest
    first keep their place, so many small logs beat one huge dump)."""
    lexical = sorted(roles.with_treatment(Treatment.lexical), key=lambda f: (f.size, f.path))
    used = 0
    for f in lexical:
        cost = min(f.size, LEXICAL_HEAD_BYTES)
        if used + cost > LEXICAL_TOTAL_BYTES:
            roles.files[f.path] = FileRole(
                f.path, f.role, Treatment.listed, f"{f.reason}; past the lexical budget", f.size
            )
            continue
        used += cost
