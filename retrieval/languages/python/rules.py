"""The survey rules of Python, in the order they run: what the Python entry of the
language table registers.

The rule families live beside this module (``entry``, ``model_calls``, ``tools``, ...),
with their Python name tables; the shared finders they use (prompt lines, claim
sentences) stay in :mod:`retrieval.survey`.
"""

from __future__ import annotations

from retrieval.languages.python import (
    LANGUAGE,
    claims,
    config_reads,
    effects,
    entry,
    gating,
    model_calls,
    persistence,
    prompts,
    readback,
    tools,
)
from retrieval.survey.registry import Registry
from retrieval.survey.select import is_shell


def register(rules: Registry) -> None:
    """Add the Python rules to ``rules`` (appended: their order is the survey's order)."""
    rules.python("entry points", entry.python_entries)
    rules.python(
        "model calls",
        model_calls.model_calls,
        applies_to="every Python file (calls into the repository's own modules left out)",
        call=lambda pf, repo: model_calls.model_calls(pf, repo.modules),
    )
    rules.python(
        "tools",
        tools.tool_findings,
        applies_to="every Python file (tool tables naming the repository's own functions)",
        call=lambda pf, repo: tools.tool_findings(pf, repo.function_names),
    )
    rules.python("execution effects", effects.effect_findings)
    rules.python("persistence", persistence.persistence_findings)
    rules.python("prompt strings", prompts.prompt_strings)
    rules.python("gating", gating.gating_findings)
    rules.python("configuration reads", config_reads.config_findings)
    rules.python("docstring claims", claims.docstring_claims)
    rules.python("tool description claims", claims.tool_description_claims)
    # text rules: the manifests of Python packaging, and scripts that start Python
    rules.text(
        "console scripts",
        entry.console_scripts,
        applies_to="pyproject.toml, setup.cfg and setup.py",
        when=lambda tf: tf.name in LANGUAGE.text_names,
    )
    rules.text(
        "shell entries",
        entry.shell_entries,
        applies_to="Dockerfiles, shell scripts and files starting with #! (lines starting Python)",
        when=lambda tf: is_shell(tf.name, tf.text),
    )
    rules.repository(
        "read-backs",
        readback.read_back_findings,
        applies_to="persistence writes whose key code reads back elsewhere",
        call=lambda hits, repo: readback.read_back_findings(
            repo.files_in(LANGUAGE.name), hits, repo.resolve
        ),
    )
