"""The normal forms and their maps back to the original text.

The verifier reports line spans through these maps, so the property that matters is:
whatever a match covers in the normal form, the original span it maps to normalises
back to exactly the matched text.
"""

from __future__ import annotations

import pytest

from drafter.normalize import (
    collapse,
    file_form,
    has_markup,
    identity,
    quote_form,
    strip_markup,
)

MD = (
    "# Title\n\n**Only edit `agent/agent.py`.** See [the rules](docs/r.md) and _why_.\n"
    "\n- first *item* here\n  - nested `code` item\n* star item\n+ plus item\n\n"
    "1. one\n2. two\n\n<https://example.org/x>  and __init__ and snake_case_name.\n"
    "\t\ttabbed   text\r\nwith crlf\n"
)
PY = (
    'def f(*args, **kwargs):\n    """Run `shell` only.\n\n    - a list in a docstring\n'
    '    """\n    x = a * b * c\n    return [i for i in args]  # done\n'
)


def test_whitespace_form_collapses_runs() -> None:
    m = file_form("a \t b\n\n  c d", "whitespace", bullets=False, markdown=False)
    assert m.text == "a b c d"
    assert m.span(2, 3) == (4, 5)  # "b"
    assert m.span(1, 2) == (1, 4)  # the collapsed run " \t "
    assert m.span(0, 7) == (0, 12)


def test_markup_rules() -> None:
    md = file_form(MD, "markup", bullets=True, markdown=True).text
    assert "Only edit agent/agent.py. See the rules and why." in md
    assert "• first item here • nested code item • star item • plus item" in md
    assert "1. one 2. two" in md
    assert "https://example.org/x and init and snake_case_name." in md
    py = file_form(PY, "markup", bullets=False, markdown=False).text
    assert "Run shell only." in py
    assert "x = a * b * c" in py and "f(*args, **kwargs)" in py  # no emphasis in code


def test_markdown_escapes_dropped() -> None:
    md = file_form("use snake\\_case and c:\\\\dir\n", "markup", bullets=False, markdown=True)
    assert md.text == "use snake_case and c:\\dir "
    py = file_form("s = 'a\\_b'\n", "markup", bullets=False, markdown=False)
    assert py.text == "s = 'a\\_b' "


def test_has_markup_precheck() -> None:
    assert not has_markup("x = a * b", markdown=False)
    assert has_markup("use `x`", markdown=False)
    assert has_markup("a *b*", markdown=True)
    plain = "plain words only\n"
    assert strip_markup(identity(plain), True).text == plain


@pytest.mark.parametrize("text", [MD, PY], ids=["markdown", "python"])
@pytest.mark.parametrize("level", ["whitespace", "markup"])
@pytest.mark.parametrize("bullets", [False, True])
def test_every_character_maps_to_its_source(text: str, level: str, bullets: bool) -> None:
    """Each normalised character comes from the original in order: copied characters
    from the same character, a space from a whitespace run, a bullet from a marker."""
    form = file_form(text, level, bullets=bullets, markdown=text is MD)
    prev_end = 0
    for i, ch in enumerate(form.text):
        a, b = form.start_of(i), form.end_of(i)
        assert prev_end <= a < b <= len(text), (i, ch)
        src = text[a:b]
        if ch == " " and src != " ":
            assert src.isspace(), (i, src)
        elif ch == "•" and src != "•":
            assert src in ("-", "*", "+"), (i, src)
        else:
            assert src == ch, (i, ch, src)
        prev_end = b


def test_quote_form_levels() -> None:
    q = "  **Only**  edit\n `x`  "
    assert quote_form(q, "exact", markdown=True) == "**Only**  edit\n `x`"
    assert quote_form(q, "whitespace", markdown=True) == "**Only** edit `x`"
    assert quote_form(q, "markup", markdown=True) == "Only edit x"
    assert quote_form("a *b* `c`", "markup", markdown=False) == "a *b* c"
    assert collapse(" a\n\tb ") == "a b"
