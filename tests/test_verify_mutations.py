"""Every one-character mutation of a true quote is refused.

This is the test that keeps the verifier from drifting into fuzzy matching: for true
quotes of each match kind, every substitution, deletion and insertion of one character
(whitespace ones included, markup delimiters excluded because the format drops them)
must come back not verified.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator

import pytest

from drafter.model import LineRange, VerifyStatus
from drafter.snapshot import Snapshot
from drafter.verify import Verifier

_DATE = "2024-01-01T00:00:00+0000"
_ENV = {**os.environ, "GIT_AUTHOR_DATE": _DATE, "GIT_COMMITTER_DATE": _DATE}

FILES = {
    "loop.py": (
        "def step(client, history, budget=40):\n"
        "    reply = client.complete(history, max_tokens=budget)\n"
        '    if reply.stop_reason == "tool_use":\n'
        '        history.append({"role": "tool", "id": reply.id})\n'
        "    return reply\n"
        "\n"
        'PROMPT = """Solve the task.\n'
        "- Use `grep` before editing.\n"
        "- Report the final diff.\n"
        '"""\n'
    ),
    "README.md": (
        "# Harness\n"
        "\n"
        "**Never edit `gate.py` directly.** See [the rules](docs/rules.md) first.\n"
        "\n"
        "Checklist:\n"
        "\n"
        "- Run the *train* split.\n"
        "- Commit when the score rises.\n"
    ),
}

# (path, quote, expected match kind, line span)
TRUE_QUOTES = [
    ("loop.py", "reply = client.complete(history, max_tokens=budget)", "exact", (2, 2)),
    (
        "loop.py",
        'if reply.stop_reason == "tool_use": history.append({"role": "tool", '
        '"id": reply.id}) return reply',
        "whitespace",
        (3, 5),
    ),
    ("loop.py", "• Use grep before editing. • Report the final diff.", "markup", (8, 9)),
    ("README.md", "Never edit gate.py directly. See the rules first.", "markup", (3, 3)),
    (
        "README.md",
        "Checklist: • Run the train split. • Commit when the score rises.",
        "markup",
        (5, 8),
    ),
]

_MARKUP = set("`*_[]()•")


def _mutations(quote: str, markdown_like: bool) -> Iterator[tuple[str, str]]:
    """(description, mutated quote) for every single-character edit that matters."""
    protected = _MARKUP if markdown_like else {"`", "•"}
    for i, c in enumerate(quote):
        if c in protected:
            continue
        if c.isspace():
            # a space between two words carries meaning: dropping it joins them
            if 0 < i < len(quote) - 1 and not quote[i - 1].isspace() and not quote[i + 1].isspace():
                yield f"del space@{i}", quote[:i] + quote[i + 1 :]
            continue
        sub = {"z": "y", "Z": "Y", "9": "8"}.get(c, chr(ord(c) + 1))
        if c.isalnum() and not sub.isalnum():
            sub = "x"
        if sub in protected or sub.isspace():
            sub = "%"
        yield f"sub@{i}", quote[:i] + sub + quote[i + 1 :]
        yield f"del@{i}", quote[:i] + quote[i + 1 :]
        yield f"ins@{i}", quote[:i] + "q" + quote[i:]
        if i > 0 and quote[i - 1].isalnum() and c.isalnum():
            yield f"split@{i}", quote[:i] + " " + quote[i:]


def _oracle_present(quote: str, text: str, original: str, markdown_like: bool = True) -> bool:
    """An independent, looser check: the quote's characters in order, where markup
    delimiters may appear anywhere, a space in the quote stands for at least one
    whitespace character and no space for none.  If even this fails, the mutation is
    certainly absent from the file."""
    if " ".join(quote.split()) in " ".join(original.split()):
        return True  # an end trimmed off: what is left is still true text
    skip = _MARKUP if markdown_like else {"`", "•", "-", "+", "*"}

    def skeleton(t: str) -> str:
        return " ".join("".join(c for c in t if c not in skip).split())

    return skeleton(quote) in skeleton(text)


@pytest.fixture(scope="module")
def verifier(tmp_path_factory: pytest.TempPathFactory) -> Verifier:
    r = tmp_path_factory.mktemp("mut") / "repo"
    r.mkdir()
    for name, text in FILES.items():
        (r / name).write_text(text, encoding="utf-8")

    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
            cwd=r,
            env=_ENV,
            check=True,
            capture_output=True,
        )

    git("init", "-q")
    git("add", "--", *FILES)
    git("commit", "-q", "-m", "c")
    return Verifier(Snapshot(r))


@pytest.mark.parametrize(("path", "quote", "kind", "span"), TRUE_QUOTES)
def test_true_quote_verifies(
    verifier: Verifier, path: str, quote: str, kind: str, span: tuple[int, int]
) -> None:
    r = verifier.check(quote, path)
    assert r.status == VerifyStatus.verified, r.message
    assert r.match_kind == kind
    assert (r.lines.start, r.lines.end) == span


@pytest.mark.parametrize(("path", "quote", "kind", "span"), TRUE_QUOTES)
def test_every_one_char_mutation_refused(
    verifier: Verifier, path: str, quote: str, kind: str, span: tuple[int, int]
) -> None:
    text = FILES[path]
    tried = 0
    accepted: list[str] = []
    md = path.endswith(".md")
    for desc, mutated in _mutations(quote, markdown_like=md):
        if _oracle_present(mutated, text, quote, md):
            continue  # an edit that happens to spell other real text (none expected)
        tried += 1
        for lines in (None, LineRange(start=span[0], end=span[1])):
            r = verifier.check(mutated, path, lines)
            if r.status == VerifyStatus.verified:
                accepted.append(f"{desc}: {mutated!r}")
            else:
                assert r.status == VerifyStatus.not_found, (desc, r.status)
    assert tried >= 3 * len(quote.replace(" ", "")) - 20, tried
    assert accepted == []


def test_mutation_misses_point_back_at_the_true_lines(verifier: Verifier) -> None:
    path, quote, _, span = TRUE_QUOTES[1]
    hits = 0
    total = 0
    for _, mutated in list(_mutations(quote, markdown_like=True))[::7]:
        if _oracle_present(mutated, FILES[path], quote):
            continue
        r = verifier.check(mutated, path)
        total += 1
        if r.nearest and r.nearest[0].lines.overlaps(LineRange(start=span[0], end=span[1])):
            hits += 1
    assert total > 20 and hits == total
