"""``drafter --help`` and ``drafter COMMAND --help`` load no heavy library.

Why a test of imports and not of seconds: the help once took 7-9 s because listing the
commands imported every command module, and those imported LangGraph, Chroma, the
embedder, tree-sitter and the report model at module level.  Timing belongs to
benchmarks (time the whole process, e.g. ``/usr/bin/time drafter --help``); what a
test can pin is the cause: the modules a fresh interpreter has loaded after printing the
help.  Also here: the
constants the light command modules spell out agree with the heavy modules they stand
in for.
"""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import entry_points

import pytest

#: Libraries (and drafter modules) a help text must not need.
HEAVY = (
    "langgraph",
    "chromadb",
    "anthropic",
    "textual",
    "pydantic",
    "numpy",
    "scipy",
    "tree_sitter",
    "onnxruntime",
    "httpx2",
    "sqlite3",
    "drafter.model",
    "drafter.snapshot",
    "retrieval.survey",
)

_PROBE = """
import contextlib, io, json, sys
from drafter.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        rc = main(sys.argv[1:])
    except SystemExit as exc:  # argparse-based commands exit on --help
        rc = exc.code
heavy = json.loads(sys.stdin.read())
loaded = sorted(m for m in sys.modules if any(m == h or m.startswith(h + ".") for h in heavy))
print(json.dumps({"rc": rc, "loaded": loaded, "help": out.getvalue()}))
"""

COMMANDS = sorted(ep.name for ep in entry_points(group="drafter.commands"))


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_help_loads_no_heavy_module(command: str) -> None:
    args = [command, "--help"] if command else ["--help"]
    p = subprocess.run(
        [sys.executable, "-c", _PROBE, *args],
        input=json.dumps(HEAVY),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr[-2000:]
    got = json.loads(p.stdout.strip().splitlines()[-1])
    assert got["rc"] in (0, None)
    assert "Usage" in got["help"] or "usage" in got["help"]
    assert got["loaded"] == []


def test_top_level_help_lists_every_command() -> None:
    p = subprocess.run(
        [sys.executable, "-c", _PROBE, "--help"],
        input="[]",
        capture_output=True,
        text=True,
        timeout=120,
    )
    text = json.loads(p.stdout.strip().splitlines()[-1])["help"]
    for name in COMMANDS:
        assert f"  {name} " in text


def test_spelt_out_choices_match_their_modules() -> None:
    from evals import alignment, choices
    from evals.similarity import BACKENDS
    from retrieval.categories import CATEGORIES, Category
    from retrieval.survey import model
    from tui import cli as review_cli
    from tui import export

    assert tuple(sorted(BACKENDS)) == tuple(sorted(choices.BACKEND_NAMES))
    assert alignment.METHODS == choices.METHODS and alignment.DEFAULT_METHOD in choices.METHODS
    assert review_cli.FORMATS == export.FORMATS
    assert model.Category is Category and model.CATEGORIES == CATEGORIES


def test_piped_verify_loads_no_progress_bar_or_heavy_stack(tmp_path) -> None:
    """A verify whose output is piped draws no bar, so Rich's live display is not loaded;
    nor is anything beyond the core (the start-up of a check analysts run often)."""
    from drafter.sample import gold_path, materialize

    sample = materialize(tmp_path / "sample")
    heavy = ["rich.progress", "rich.live", "langgraph", "chromadb", "retrieval", "graph", "tui"]
    p = subprocess.run(
        [sys.executable, "-c", _PROBE, "verify", str(gold_path()), "--repo", str(sample.path)],
        input=json.dumps(heavy),
        capture_output=True,
        text=True,
        timeout=120,
    )
    got = json.loads(p.stdout.strip().splitlines()[-1])
    assert got["rc"] in (0, None), p.stderr[-2000:]
    assert "Summary" in got["help"]
    assert got["loaded"] == []
