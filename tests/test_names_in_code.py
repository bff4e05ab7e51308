"""``names_in_code`` answers from one joined text what a scan of every string answers:
a base name is named only when it lies inside one short string of the code."""

from __future__ import annotations

from retrieval.languages.python.extract import parse_python
from retrieval.survey.crossfile import names_in_code

CODE = '''
A = "prompts/sys"
B = "tem.md"
C = open("load notes.txt")
D = """a long
string over
more than three
lines: guide.md"""


def f():
    """Docstrings do not count: readme_extra.md"""
    return "x"
'''


def _scan(path: str, values: list[str]) -> bool:
    base = path.rsplit("/", 1)[-1]
    return len(base) >= 5 and any(base in v for v in values)


def test_a_name_split_over_two_strings_is_not_named() -> None:
    files = [parse_python("a.py", CODE)]
    named = names_in_code(files)
    values = [
        s.value
        for pf in files
        for s in pf.strings
        if not s.is_docstring and s.end_line - s.start_line <= 2
    ]
    for path in ("docs/system.md", "tem.md", "docs/notes.txt", "guide.md", "readme_extra.md",
                 "x/prompts/sys", "a.md", "sys\0tem.md"):  # fmt: skip
        assert named(path) == _scan(path, values), path
    assert not named("docs/system.md")  # "prompts/sys" + "tem.md" only when joined bare
    assert named("docs/notes.txt")
    assert not named("guide.md")  # in a string of more than three lines


def test_code_without_strings_names_nothing() -> None:
    named = names_in_code([parse_python("a.py", "x = 1\n")])
    assert not named("docs/system.md")
