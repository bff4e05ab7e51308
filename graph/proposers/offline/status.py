"""Conclusion statuses for every offline record: what a static reading can conclude.

The report format lets every record carry an implementation and an operation
conclusion status.  Routes decide theirs in their recipe (``wired`` when the entry
reaches an effect); every other kind gets them here, by one rule read off the
record's own witnesses, so no recipe has to repeat it:

* operation -- ``uninspected`` always: the offline drafter runs nothing and reads no
  run output, so no conclusion about what a run did is ever drawn.
* implementation -- ``wired`` when a witness quotes code (a line of a source file that
  is not documentation, a docstring, a claim or prompt text) that does what the
  record describes: the call, the write, the gate, the load.  A claim is different:
  its record quotes the promise and beside it the code the promise bears on, and says
  that whether that code implements the promise is not established.  So a claim whose
  only support is text (documentation, a docstring, a tool description, an
  instruction) is ``claimed``; one with code beside it is ``uninspected`` -- the code
  is quoted, the comparison is the analyst's.  Anything without a code witness (a
  prompt text alone, a setting in a config file) is ``uninspected``.

``afforded`` (the code makes something possible that nothing found invokes) needs a
recipe that knows nothing invokes it; none of the non-route recipes knows that, so
this rule never answers it.  A status a recipe set itself is kept.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePosixPath

from drafter.model import STATUS_FIELDS, Block, Bullet, Record, Witness, WitnessBlock
from drafter.text import collapse
from graph.proposers.offline.prose import bullet, quote_lines
from retrieval.survey import Finding
from retrieval.survey.model import Category

IMPLEMENTATION, OPERATION = STATUS_FIELDS

#: Suffixes of source files: the implementation layer.  Docs (.md, .rst, .txt),
#: prompt templates and config (.yaml, .json, .toml, .ini) are text about the system.
CODE_SUFFIXES = frozenset(
    ".py .pyi .sh .bash .zsh .js .mjs .cjs .ts .tsx .jsx .go .rs .java .kt .scala .rb .php "
    ".c .cc .cpp .h .hpp .cs .swift .lua .pl .r .jl".split()
)
_CODE_NAMES = ("Dockerfile", "Makefile")
#: Prompt findings that are the instruction text itself (the others load, read or
#: pass a prompt: code).
_TEXT_PROMPTS = frozenset({"prompt_file", "prompt_rule", "instruction_string"})


def code_path(path: str) -> bool:
    """Is ``path`` a source file (implementation layer), by its name alone?"""
    p = PurePosixPath(path)
    return p.suffix.lower() in CODE_SUFFIXES or p.name.startswith(_CODE_NAMES)


def text_finding(f: Finding) -> bool:
    """A finding that is words about the system (a claim, an instruction), not code."""
    return f.category == Category.CLAIM or (
        f.category == Category.PROMPT and f.kind in _TEXT_PROMPTS
    )


def _quotes_text(w: Witness, texts: list[Finding]) -> bool:
    """Does ``w`` quote one of the text findings of its file (its lines or its words)?"""
    for f in texts:
        if f.path != w.path:
            continue
        if w.lines is not None and w.lines.start <= f.end_line and f.start_line <= w.lines.end:
            return True
        said = [collapse(f.snippet), collapse(str(f.detail.get("sentence") or ""))]
        if w.quote == quote_lines(f)[0] or any(
            len(s) >= 12 and (w.quote in s or s in w.quote) for s in said
        ):
            return True
    return False


def code_witnesses(record: Record, findings: Iterable[Finding]) -> list[Witness]:
    """The record's witnesses that quote code: a source file, and not a quote of a claim
    or instruction text found there (a docstring claim or a prompt string in a .py file
    is text, even though its file is code)."""
    texts = [f for f in findings if text_finding(f)]
    return [w for w in record.witnesses if code_path(w.path) and not _quotes_text(w, texts)]


def implementation_status(kind: str, record: Record, findings: Iterable[Finding]) -> str:
    """The implementation conclusion a static reading supports (see the module doc)."""
    code = bool(code_witnesses(record, findings))
    if kind == "CLM":
        return "uninspected" if code else "claimed"
    return "wired" if code else "uninspected"


def _set(blocks: list[Block], name: str, value: str) -> list[Block]:
    """``blocks`` with the status bullet ``name`` set to ``value``: replaced in place
    when present, else placed before the first witness (where routes put theirs)."""
    low = name.lower()
    if any(isinstance(b, Bullet) and (b.name or "").lower() == low for b in blocks):
        return [
            bullet(name, value) if isinstance(b, Bullet) and (b.name or "").lower() == low else b
            for b in blocks
        ]
    at = next((i for i, b in enumerate(blocks) if isinstance(b, WitnessBlock)), len(blocks))
    order = list(STATUS_FIELDS)
    # keep implementation before operation when one of them is already there
    for i, b in enumerate(blocks):
        if isinstance(b, Bullet) and (b.name or "").lower() in order:
            at = i + 1 if order.index(low) > order.index((b.name or "").lower()) else i
            break
    return [*blocks[:at], bullet(name, value), *blocks[at:]]


def with_statuses(record: Record, kind: str, findings: Iterable[Finding]) -> Record:
    """``record`` carrying both conclusion statuses; one the recipe set is kept."""
    blocks = list(record.blocks)
    if record.status(IMPLEMENTATION) is None:
        blocks = _set(blocks, IMPLEMENTATION, implementation_status(kind, record, findings))
    if record.status(OPERATION) is None:
        blocks = _set(blocks, OPERATION, "uninspected")
    if len(blocks) == len(record.blocks):
        return record
    return record.model_copy(update={"blocks": blocks})


def restatus(record: Record, kind: str, findings: Iterable[Finding]) -> Record:
    """After witnesses were dropped: a ``wired`` no code witness supports any more is
    withdrawn, and a claim's status follows what support is left."""
    fs = list(findings)
    now = record.status(IMPLEMENTATION)
    new = implementation_status(kind, record, fs)
    if now is not None and now != new and (kind == "CLM" or (now == "wired" and new != "wired")):
        record = record.model_copy(
            update={"blocks": _set(list(record.blocks), IMPLEMENTATION, new)}
        )
    return with_statuses(record, kind, fs)
