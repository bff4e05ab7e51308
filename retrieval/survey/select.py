"""Which files of a revision the survey reads, and why it leaves the others.

Kept apart from the runner so the rule registry can share the same file patterns
(config names, documentation that makes claims) without importing the runner.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from retrieval.languages import for_path, text_names
from retrieval.roles import Role, is_repo_tooling
from retrieval.survey.prompts import PROMPT_EXT

MAX_TEXT_BYTES = 300_000
VENDORED = re.compile(
    r"(^|/)(node_modules|vendor|vendored|third_party|site-packages|\.venv|venv|\.tox|__pycache__|\.git)/"
)
GENERATED_MARK = re.compile(
    r"(@generated|\bauto-?generated\b|\bgenerated (?:by|from|with)\b|\bcode generated\b)", re.I
)
#: Pages that describe the system to its users: READMEs, security notes and the pages of a
#: docs folder at any depth, Markdown or MDX (the docs sites of JavaScript projects keep
#: their guides in ``docs/src/content/docs/guides/*.mdx``).
DOC_CLAIM_FILE = re.compile(
    r"(^|/)(README[^/]*\.mdx?|docs?/(?:[^/]+/)*[^/]+\.mdx?|[^/]*SECURITY[^/]*\.md)$", re.I
)
#: A folder of translated pages inside a docs folder (``docs/ja/``, ``docs/zh-cn/``): the
#: same promises again in another language.
_LOCALE_DIR = re.compile(
    r"(^|/)docs?/(?:[^/]+/)*?(ar|bg|bn|cs|da|de|el|es|fa|fi|fr|he|hi|hu|id|it|ja|ko|ms|nl"
    r"|no|pl|pt|pt-br|ro|ru|sv|th|tr|uk|vi|zh|zh-cn|zh-tw|zh-hans|zh-hant)/",
    re.I,
)


def doc_claim_file(path: str) -> bool:
    """A page whose sentences promise what the system does: a README, a security note or
    a docs page, not a translation of one and not a file about developing the repository
    (a contributor guide, a changelog, a coding agent's instructions, a top-level dot
    folder)."""
    return (
        DOC_CLAIM_FILE.search(path) is not None
        and _LOCALE_DIR.search(path) is None
        and not is_repo_tooling(path)
    )


#: Manifests the languages' text rules read (``pyproject.toml``, ``package.json``, ...).
CONFIG_NAMES = text_names()
#: File roles (:mod:`retrieval.roles`) the survey does not read.
NOT_SURVEYED = frozenset({Role.logs, Role.results, Role.data})


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
        """Whether a file of no surveyed language skipped for this reason is still listed."""
        return self.kind in (SkipReason.huge, SkipReason.generated)


def skip_reason(path: str, size: int, kind: str) -> Skip | None:
    """Why the survey leaves this file unread, or None to read it (the size cap and
    generated names of the path's language apply)."""
    if VENDORED.search(path):
        return Skip(SkipReason.vendored, "vendored", "vendored")
    if kind not in ("file", "executable"):
        return Skip(SkipReason.not_a_file, kind, kind)
    lang = for_path(path)
    if lang is None:
        return None
    if size > lang.max_bytes:
        text = f"huge file ({size} bytes > {lang.max_bytes})"
        return Skip(SkipReason.huge, text, "huge file")
    if lang.generated_suffixes and path.endswith(lang.generated_suffixes):
        return Skip(SkipReason.generated, "generated", "generated")
    return None


def wants_text(path: str, kind: str, size: int) -> bool:
    """Is a file of no surveyed language one a text rule may look at?"""
    name = path.rsplit("/", 1)[-1]
    if size > MAX_TEXT_BYTES:
        return False
    if name in CONFIG_NAMES or name.startswith("Dockerfile") or name.endswith((".sh", ".bash")):
        return True
    if doc_claim_file(path):
        return True
    if name.lower().endswith(PROMPT_EXT):
        return True
    return kind == "executable" and "." not in name


def is_shell(name: str, text: str) -> bool:
    """A Dockerfile, a shell script, or any file starting with ``#!``."""
    return name.startswith("Dockerfile") or name.endswith((".sh", ".bash")) or text.startswith("#!")
