"""Markdown rendering shows report text literally, whatever characters it holds."""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt

from drafter.model import (
    AccountSection,
    Bullet,
    Paragraph,
    Record,
    RecordSection,
    Report,
    ReportType,
    Table,
    Witness,
    WitnessBlock,
)
from drafter.textformat import render_markdown

MD = MarkdownIt("commonmark").enable("table")

NASTY = [
    "plain words",
    "a *star* and **bold** and _under_ and snake_case_name",
    "<script>alert(1)</script> & entities &amp;",
    "[link](http://x) and ![img](y)",
    "# not a heading",
    "- not a list",
    "1. not a list either",
    "> not a quote",
    "back `tick` and ``double``",
    "pipe | inside",
    "trailing backslash \\",
    "__dunder__ and a_b_ and _lead",
]


def _inline_text(token) -> str:
    out = []
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            out.append(child.content)
        elif child.type == "softbreak":
            out.append("\n")
        elif child.type in ("html_inline",):
            out.append("<HTML>")
    return "".join(out)


def _report(text: str) -> Report:
    rec = Record(
        id="RT-CMP-x",
        label=text,
        blocks=[
            Paragraph(text=text),
            Bullet(name="Immediate return", value=text),
            WitnessBlock(witness=Witness(quote=text, path="a/b_c.py")),
        ],
    )
    return Report(
        system="S",
        type=ReportType.runtime,
        account=[
            AccountSection(
                title="Runtime account", blocks=[Table(header=[text, "h"], rows=[["c", text]])]
            )
        ],
        sections=[RecordSection(title="Components", records=[rec])],
    )


@pytest.mark.parametrize("text", NASTY)
def test_text_survives_markdown_literally(text: str) -> None:
    tokens = MD.parse(render_markdown(_report(text)))
    assert not any(t.type == "html_block" for t in tokens)
    inlines = [_inline_text(t) for t in tokens if t.type == "inline"]
    assert "<HTML>" not in "".join(inlines)
    assert f"Label: {text}" in inlines
    assert text in inlines  # the paragraph
    assert f"Immediate return: {text}" in inlines
    assert inlines.count(text) >= 3  # paragraph, header cell, row cell (+ witness quote)
    assert sum(t.type == "table_open" for t in tokens) == 1
    assert sum(t.type == "bullet_list_open" for t in tokens) == 1
    assert not any(t.type == "ordered_list_open" for t in tokens)
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert headings == [
        "S runtime report",
        "Runtime account",
        "Shared records",
        "Components",
        "RT-CMP-x",
        "Annotations",
    ]
