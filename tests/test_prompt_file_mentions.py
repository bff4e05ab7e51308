"""The prompt-file pass finds the strings naming a file by lookup; it must find exactly
what a scan of every string with the whole-name pattern finds."""

from __future__ import annotations

import re

import pytest

from retrieval.languages.python.extract import parse_python
from retrieval.survey.crossfile import _Mentions

SOURCE = '''\
A = "prompts/code_agent.yaml"
B = "structured_code_agent.yaml"
C = "code_agent.yaml.bak and code_agent.yaml-x"
D = "see (code_agent.yaml)"
E = ".code_agent.yaml"
F = "my prompt.md here"
G = "x/my prompt.md"
H = "émoji_code_agent.yaml café.md"
I = """a long
string naming
code_agent.yaml
on its fourth line"""


def f():
    """Docstring naming code_agent.yaml."""
'''


@pytest.mark.parametrize(
    ("base", "lines"),
    [
        ("code_agent.yaml", [1, 3, 4]),
        ("my prompt.md", [6, 7]),
        ("café.md", [8]),
        ("agent.yaml", []),
        ("prompts", [1]),
    ],
)
def test_lookup_finds_what_the_scan_finds(base: str, lines: list[int]) -> None:
    pf = parse_python("m.py", SOURCE)
    named = re.compile(rf"(?<![\w.-]){re.escape(base)}(?![\w-])")
    scan = [
        s.start_line
        for s in pf.strings
        if not s.is_docstring and s.end_line - s.start_line <= 2 and named.search(s.value)
    ]
    got = [s.start_line for _, s in _Mentions.of([pf]).naming(base, named)]
    assert got == scan == lines
