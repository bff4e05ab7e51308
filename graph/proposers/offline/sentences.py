"""What counts as a sentence of the repository's own prose.

A claim or a prompt's rule is quoted as a whole sentence the repository states:
it starts like a sentence (a capital, a digit, a quote or code mark) and ends with a
full stop, question or exclamation mark, with at least a few words between.  A line
a docstring or a list item breaks off ("This is to ensure that the model_patch does
not disturb the repo's") is a fragment; a heading or a list lead-in is not a claim.

A sentence under an example's label ("Example:", "Answer:", "Explanation:", "Output:"
…) is a worked example the prompt shows a model — a few-shot answer — not something
the repository says about itself; so is a sentence that runs from a lead-in ("Use the
following structure in your output:") into the sample it introduces.
"""

from __future__ import annotations

import re

_MARKUP = re.compile(r"[`*]|__")
_START = re.compile(r"^[\"'(“‘\[]?[A-Z0-9]")
_END = re.compile(r"[.!?][\"')”’\]]*$")
#: A short line that labels what follows as an example, a question or an answer.
_EXAMPLE_LABEL = re.compile(
    r"^\s*(?:#+\s*|[-*]\s*)?(?:an?\s+|the\s+)?(?:examples?|sample|few[- ]shot|demonstration|"
    r"answer|correct answer|explanation|solution|output|expected output|response|question|"
    r"input|problem|reasoning)\b[^\n]{0,40}$",
    re.I,
)
LOOK_BACK = 12
#: A lead-in that introduces an example and the example after it, in one sentence:
#: "Use the following structure in your output: [src/a.py, Line 42] Unused import: …".
_LEADS_IN_EXAMPLE = re.compile(
    r"\b(?:the\s+)?following\s+(?:structure|format|template|pattern|examples?|layout|form)\b"
    r"[^:\n]{0,60}:\s*\S|\b(?:for example|e\.g\.|for instance|example)\s*:\s*\S",
    re.I,
)


def whole_sentence(text: str) -> bool:
    """Whether ``text`` is one whole sentence (see the module docstring)."""
    t = _MARKUP.sub("", text).strip()
    return bool(_START.match(t)) and bool(_END.search(t)) and len(t.split()) >= 4


def shows_example(sentence: str) -> bool:
    """Whether ``sentence`` runs from a lead-in ("the following structure:", "for
    example:") into the example it introduces: the example is a sample, not a rule."""
    return _LEADS_IN_EXAMPLE.search(sentence) is not None


def in_example(lines: list[str], line: int) -> bool:
    """Whether 1-based ``line`` sits under an example's label: the nearest label-like
    line above it (short, ending in ``:`` or a heading), within a few lines and before a
    blank line closes the block, names an example, question or answer."""
    for n in range(line - 1, max(0, line - 1 - LOOK_BACK), -1):
        raw = lines[n - 1].strip() if n - 1 < len(lines) else ""
        if not raw:
            return False
        if raw.startswith("#") or (raw.endswith(":") and len(raw) <= 60):
            return _EXAMPLE_LABEL.match(raw.rstrip(":").strip()) is not None
    return False
