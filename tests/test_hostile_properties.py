"""Property tests (hypothesis): text-format round trip, the normaliser, the verifier.

Examples are bounded (a few dozen each, no deadline) so the module stays fast.  The
verifier's one-character change substitutes a letter that occurs nowhere in the file,
so the changed quote cannot happen to be another true quote of the same file.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from gitrepo import commit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drafter.model import (
    Paragraph,
    Record,
    RecordSection,
    Report,
    ReportType,
    Source,
    VerifyStatus,
    Witness,
    WitnessBlock,
)
from drafter.normalize import file_form
from drafter.snapshot import Snapshot
from drafter.text import collapse
from drafter.textformat import parse_report, render_text
from drafter.verify import Verifier

FAST = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

CONTROLS = [chr(c) for c in [*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0)]]
#: Pieces of text: plain words, control characters, and look-alikes of the escape.
piece = st.one_of(
    st.text(alphabet="abcdefghij", min_size=1, max_size=6),
    st.sampled_from(CONTROLS),
    st.sampled_from(["⟨U+001B⟩", "⟨U+27E8⟩", "⟨", "⟩", "⟨U+0041⟩", "U+", "\u2028", "\u2029"]),
)
words = st.lists(piece, min_size=1, max_size=12).map(lambda ps: "w " + "".join(ps) + " w")


@FAST
@given(st.text(max_size=60))
def test_visible_then_unescape_is_the_identity(text: str) -> None:
    from drafter.sanitize import unescape, visible

    shown = visible(text)
    assert unescape(shown) == text
    assert not any(c in shown for c in CONTROLS if c != "\n")


def _report(label: str, para: str, quote: str, path: str) -> Report:
    rec = Record(
        id="RT-CLM-prop",
        label=label,
        blocks=[
            Paragraph(text=f"Claimed operation: {para}"),
            WitnessBlock(witness=Witness(quote=quote, path=path)),
        ],
    )
    return Report(
        system="Prop",
        type=ReportType.runtime,
        source=Source(id="SRC-1", repository="r", revision="a" * 40),
        sections=[RecordSection(title="Claims", records=[rec])],
    )


@FAST
@given(label=words, para=words, quote=words, spaced=st.booleans())
def test_text_format_round_trip_is_exact(label: str, para: str, quote: str, spaced: bool) -> None:
    path = "dir with space/a b.py" if spaced else "dir/a.py"
    rep = _report(label, para, quote, path)
    text = render_text(rep)
    assert not any(c in text for c in CONTROLS)
    back = parse_report(text).report.records[0]
    assert back.label == label
    assert back.paragraphs == [f"Claimed operation: {para}"]
    assert (back.witnesses[0].quote, back.witnesses[0].path) == (quote, path)


ws_text = st.text(alphabet=st.sampled_from(list("ab \t\n\r\x0b\x0c•-*")), max_size=40)


@FAST
@given(ws_text)
def test_collapse_is_idempotent_and_has_no_runs(text: str) -> None:
    once = collapse(text)
    assert collapse(once) == once
    assert "  " not in once and once == once.strip()


@FAST
@given(ws_text, st.data())
def test_normalised_offsets_map_back_to_the_same_text(text: str, data: st.DataObject) -> None:
    m = file_form(text, "whitespace", bullets=False, markdown=False)
    if not m.text:
        return
    a = data.draw(st.integers(0, len(m.text) - 1))
    b = data.draw(st.integers(a + 1, len(m.text)))
    s, e = m.span(a, b)
    assert collapse(text[s:e]) == collapse(m.text[a:b])


# -- the verifier ----------------------------------------------------------------------

FILE_ALPHABET = "abcdefghijklm"
ABSENT = "nopqrstuvwxyz"


def _file_text(rng: random.Random) -> str:
    lines = []
    for _ in range(40):
        n = rng.randint(0, 8)
        indent = " " * rng.choice([0, 0, 4, 8])
        lines.append(indent + " ".join(
            "".join(rng.choice(FILE_ALPHABET) for _ in range(rng.randint(1, 7))) for _ in range(n)
        ))  # fmt: skip
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Verifier, dict[str, str]]:
    rng = random.Random(15)
    files = {f"f{i}.py": _file_text(rng) for i in range(4)}
    repo: Path = tmp_path_factory.mktemp("prop") / "r"
    sha = commit(repo, files)
    return Verifier(Snapshot(repo, sha)), files


def _excerpt(data: st.DataObject, files: dict[str, str]) -> tuple[str, str]:
    path = data.draw(st.sampled_from(sorted(files)))
    text = files[path]
    a = data.draw(st.integers(0, len(text) - 2))
    b = data.draw(st.integers(a + 1, min(len(text), a + 200)))
    quote = collapse(text[a:b])
    return path, quote


@FAST
@given(data=st.data())
def test_a_true_quote_always_verifies(corpus, data: st.DataObject) -> None:
    verifier, files = corpus
    path, quote = _excerpt(data, files)
    if not quote:
        return
    v = verifier.check(quote, path)
    assert v.status in (VerifyStatus.verified, VerifyStatus.ambiguous), (quote, v)


@FAST
@given(data=st.data())
def test_a_one_character_change_never_verifies(corpus, data: st.DataObject) -> None:
    verifier, files = corpus
    path, quote = _excerpt(data, files)
    if not quote:
        return
    i = data.draw(st.integers(0, len(quote) - 1))
    new = quote[:i] + data.draw(st.sampled_from(ABSENT)) + quote[i + 1 :]
    v = verifier.check(new, path)
    assert v.status not in (VerifyStatus.verified, VerifyStatus.ambiguous), (new, v)
