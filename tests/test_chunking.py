"""Chunking: exact line ranges, symbols, budget, syntax errors, Markdown, text, skips."""

from __future__ import annotations

import textwrap

import pytest

from retrieval.chunking import (
    MAX_TOKENS,
    TOKEN_BUDGET,
    chunk_file,
    split_lines,
    text_cost,
)
from retrieval.embeddings import count_tokens

PY = textwrap.dedent('''\
    """Module docstring."""

    import os
    from pathlib import Path

    LIMIT = 3


    # helper for the cache
    @staticmethod
    @other.decorator(arg=1)
    def cached(x):
        return x


    class Outer(Base):
        """Outer docs."""

        size = 2

        class Inner:
            def deep(self):
                return 1

        def method(self):
            return self.size

        @property
        def prop(self):
            return 3


    if __name__ == "__main__":
        cached(1)
    ''')


def _spans(path: str, text: str) -> list[tuple[int, int, str, str]]:
    return [(c.start_line, c.end_line, c.symbol, c.kind) for c in chunk_file(path, text).chunks]


def _assert_exact(path: str, text: str) -> None:
    lines = split_lines(text)
    chunks = chunk_file(path, text).chunks
    for prev, nxt in zip(chunks, chunks[1:], strict=False):
        assert prev.end_line < nxt.start_line  # no overlap, so ids are unique
    for c in chunks:
        assert c.text == "".join(lines[c.start_line - 1 : c.end_line]), c
        assert c.tokens == count_tokens([c.text])[0]


def test_python_chunks_have_exact_line_ranges_and_symbols() -> None:
    assert _spans("m.py", PY) == [
        (1, 6, "<module>", "module"),
        (9, 13, "cached", "function"),  # leading comment and both decorators included
        (16, 19, "Outer", "class"),  # class header, docstring and class attributes
        (21, 21, "Outer.Inner", "class"),  # nested class header
        (22, 23, "Outer.Inner.deep", "method"),
        (25, 26, "Outer.method", "method"),
        (28, 30, "Outer.prop", "method"),  # decorator included
        (33, 34, "<module>", "module"),
    ]
    _assert_exact("m.py", PY)


def test_chunk_text_is_the_files_lines_with_crlf_and_no_final_newline() -> None:
    text = "def a():\r\n    return 1\r\n\r\ndef b():\r\n    return 2"
    chunks = chunk_file("crlf.py", text).chunks
    assert [(c.start_line, c.end_line, c.symbol) for c in chunks] == [(1, 2, "a"), (4, 5, "b")]
    assert chunks[1].text == "def b():\r\n    return 2"
    _assert_exact("crlf.py", text)


def test_syntax_error_file_is_still_chunked_and_flagged() -> None:
    text = (
        "import os\n\ndef good():\n    return 1\n\n"
        "def broken(:\n    x = \n\ndef after():\n    pass\n"
    )
    res = chunk_file("bad.py", text)
    assert res.syntax_error and res.skipped is None
    covered = {n for c in res.chunks for n in range(c.start_line, c.end_line + 1)}
    assert {1, 3, 4, 6, 7, 9, 10} <= covered
    _assert_exact("bad.py", text)
    assert not chunk_file("ok.py", "x = 1\n").syntax_error


def test_long_function_is_split_at_statement_boundaries_within_budget() -> None:
    body = "".join(
        f"    value_{i} = compute_something(alpha_{i}, beta_{i},\n"
        f"                                  gamma_{i})\n"
        for i in range(80)
    )
    text = f'@decorate\ndef big(alpha, beta):\n    """Big."""\n{body}    return value_1\n'
    chunks = chunk_file("big.py", text).chunks
    assert len(chunks) > 3
    assert all(c.symbol == "big" and c.kind == "function" for c in chunks)
    assert chunks[0].start_line == 1  # the decorator opens the first part
    assert chunks[-1].end_line == len(split_lines(text))
    for prev, nxt in zip(chunks, chunks[1:], strict=False):
        assert nxt.start_line == prev.end_line + 1  # no gap, no overlap
    stmt_starts = {4 + 2 * i for i in range(80)} | {1, 4 + 160}
    for c in chunks:
        assert c.start_line in stmt_starts, c.start_line  # never cut inside a statement
        assert count_tokens([c.text])[0] <= TOKEN_BUDGET <= MAX_TOKENS
    _assert_exact("big.py", text)


def test_oversized_compound_statement_is_split_inside_its_blocks() -> None:
    arms = "".join(
        f"    elif mode == {i}:\n        result = transform_{i}(payload)\n" for i in range(60)
    )
    head = "def route(mode, payload):\n    if mode == -1:\n        result = None\n"
    text = f"{head}{arms}    return result\n"
    chunks = chunk_file("route.py", text).chunks
    assert len(chunks) > 1
    assert max(count_tokens([c.text])[0] for c in chunks) <= TOKEN_BUDGET
    _assert_exact("route.py", text)


def test_token_counts_match_the_tokenizer_for_non_ascii_and_control_text() -> None:
    text = "# Überschrift café\n\nnaïve 東京 text\x0cwith form feed\n"
    text += ("wörd Grüße " * 10 + "\n") * 40
    res = chunk_file("notes.md", text)
    assert len(res.chunks) > 1
    for c in res.chunks:
        assert c.tokens == count_tokens([c.text])[0]
        assert c.tokens <= TOKEN_BUDGET
    assert text_cost("exec_module(spec)") == count_tokens(["exec_module(spec)"])[0] - 2


def test_markdown_is_cut_at_headings_but_not_inside_code_fences() -> None:
    text = "# Title\nintro\n\n## Install\nrun it\n```sh\n# not a heading\n```\n\n## Use\nmore\n"
    assert _spans("README.md", text) == [
        (1, 2, "Title", "section"),
        (4, 8, "Install", "section"),
        (10, 11, "Use", "section"),
    ]
    _assert_exact("README.md", text)


def test_text_files_are_cut_into_windows_under_budget() -> None:
    text = "".join(f"key_{i}: value number {i} with several words\n" for i in range(300))
    chunks = chunk_file("config.yaml", text).chunks
    assert len(chunks) > 2 and all(c.kind == "lines" for c in chunks)
    assert chunks[0].start_line == 1 and chunks[-1].end_line == 300
    assert all(c.tokens <= TOKEN_BUDGET for c in chunks)
    _assert_exact("config.yaml", text)


def test_a_single_overlong_line_stands_alone_rather_than_being_cut() -> None:
    items = ", ".join(f"item_{i}" for i in range(150))
    text = f"short = 1\nvalues = [{items}]\nend = 2\n"
    chunks = chunk_file("long.py", text).chunks
    assert [(c.start_line, c.end_line) for c in chunks] == [(1, 1), (2, 2), (3, 3)]
    assert chunks[1].tokens > TOKEN_BUDGET  # documented exception: lines are never split


@pytest.mark.parametrize(
    ("path", "text", "reason"),
    [
        ("node_modules/x/index.js", "var a = 1;\n", "vendored"),
        ("pkg/vendor/lib.py", "x = 1\n", "vendored"),
        ("package-lock.json", "{}\n", "generated"),
        ("api_pb2.py", "x = 1\n", "generated"),
        ("gen.py", "# @generated by tool\nx = 1\n", "generated"),
        ("app.min.js", "x\n", "generated"),
        ("data.js", "var x=" + "1," * 5000 + "\n", "line over 2000 characters"),
        ("blob.dat", "ab\0cd", "binary"),
        ("empty.py", "  \n\n", "empty"),
        ("big.txt", "line\n" * 30_000, "over 20000 lines"),
        ("nb.ipynb", "{}\n", "unsupported type"),
    ],
)
def test_skipped_files_have_a_reason(path: str, text: str, reason: str) -> None:
    res = chunk_file(path, text)
    assert res.skipped == reason and res.chunks == []


def test_content_hash_depends_only_on_text() -> None:
    a = chunk_file("a.py", "def f():\n    return 1\n").chunks[0]
    b = chunk_file("b.py", "\n\ndef f():\n    return 1\n").chunks[0]
    c = chunk_file("c.py", "def f():\n    return 2\n").chunks[0]
    assert a.content_hash == b.content_hash != c.content_hash
    assert (b.start_line, b.end_line) == (3, 4)
