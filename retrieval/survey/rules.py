"""The survey's rules, registered in the order they run (see :mod:`retrieval.survey.registry`).

To add a detector: write it in the rule module of its family (or a new one) and
register it here with the scope it runs on and a line saying what it applies to.
The order below is the order of the survey's hits, which decides which of two
identical findings is kept, so append new rules rather than insert them.
"""

from __future__ import annotations

from retrieval.survey import (
    claims,
    config_reads,
    control,
    crossfile,
    effects,
    entry,
    model_calls,
    persistence,
    prompts,
    readback,
    tools,
)
from retrieval.survey.base import Hit
from retrieval.survey.registry import Registry, Repo, TextFile
from retrieval.survey.select import CONFIG_NAMES, DOC_CLAIM_FILE, is_shell

RULES = Registry()

# -- one parsed Python file at a time ---------------------------------------------------
RULES.python("entry points", entry.python_entries)
RULES.python(
    "model calls",
    model_calls.model_calls,
    applies_to="every Python file (calls into the repository's own modules left out)",
    call=lambda pf, repo: model_calls.model_calls(pf, repo.modules),
)
RULES.python(
    "tools",
    tools.tool_findings,
    applies_to="every Python file (tool tables naming the repository's own functions)",
    call=lambda pf, repo: tools.tool_findings(pf, repo.function_names),
)
RULES.python("execution effects", effects.effect_findings)
RULES.python("persistence", persistence.persistence_findings)
RULES.python("prompt strings", prompts.prompt_strings)
RULES.python("gating", control.gating_findings)
RULES.python("configuration reads", config_reads.config_findings)
RULES.python("docstring claims", claims.docstring_claims)
RULES.python("tool description claims", claims.tool_description_claims)


# -- one text file at a time (config, shell, prompt and documentation files) ------------
def _instruction_file(tf: TextFile) -> bool:
    """A prompt file of prose that is not a documentation page making claims."""
    return (
        not DOC_CLAIM_FILE.search(tf.path)
        and bool(tf.earlier.get("prompt files"))
        and tf.path.lower().endswith((".md", ".txt", ".markdown"))
    )


RULES.text(
    "console scripts",
    entry.console_scripts,
    applies_to="pyproject.toml, setup.cfg and setup.py",
    when=lambda tf: tf.name in CONFIG_NAMES,
)
RULES.text(
    "shell entries",
    entry.shell_entries,
    applies_to="Dockerfiles, shell scripts and files starting with #!",
    when=lambda tf: is_shell(tf.name, tf.text),
)
RULES.text(
    "prompt files",
    prompts.prompt_file,
    applies_to="shipped prompt files (not .py); in docs folders only when the code names them",
    when=lambda tf: not tf.path.endswith(".py"),
    call=lambda tf, repo: prompts.prompt_file(tf.path, tf.text, repo.named_in_code),
)
RULES.text(
    "documentation claims",
    claims.doc_claims,
    applies_to="README*.md, docs/*.md and *SECURITY*.md",
    when=lambda tf: bool(DOC_CLAIM_FILE.search(tf.path)),
)
RULES.text(
    "instruction rules",
    claims.instruction_rules,
    applies_to="prompt files of prose (.md, .txt) other than documentation pages",
    when=_instruction_file,
)


# -- the whole repository, after the per-file rules -------------------------------------
def _model_loops(hits: list[Hit], repo: Repo) -> list[Hit]:
    calls_model = crossfile.model_reach(hits, repo)
    out: list[Hit] = []
    for pf in repo.py_files:
        out += control.loop_findings(pf, calls_model, repo.resolve)
    return out


RULES.repository(
    "read-backs",
    readback.read_back_findings,
    applies_to="persistence writes whose key code reads back elsewhere",
    call=lambda hits, repo: readback.read_back_findings(repo.py_files, hits, repo.resolve),
)
RULES.repository(
    "model loops",
    control.loop_findings,
    applies_to="loops whose body reaches a model call through the call graph",
    call=_model_loops,
)
RULES.repository(
    "model wrappers",
    crossfile.wrapper_calls,
    applies_to="call sites reaching a model call through repository wrappers",
)
RULES.repository(
    "prompt file uses",
    crossfile.prompt_file_uses,
    applies_to="code that names or reads a shipped prompt file",
)
