"""The survey rules run on each parsed Python file, in the order they run.

The rule families live in :mod:`retrieval.survey` (their Python name tables with them);
this module is what the Python entry of the language table registers.
"""

from __future__ import annotations

from retrieval.languages.python import LANGUAGE
from retrieval.survey import (
    claims,
    config_reads,
    control,
    effects,
    entry,
    model_calls,
    persistence,
    prompts,
    tools,
)
from retrieval.survey.registry import Registry


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
    rules.python("gating", control.gating_findings)
    rules.python("configuration reads", config_reads.config_findings)
    rules.python("docstring claims", claims.docstring_claims)
    rules.python("tool description claims", claims.tool_description_claims)
    # a text rule, first of the text rules: the manifests of Python packaging
    rules.text(
        "console scripts",
        entry.console_scripts,
        applies_to="pyproject.toml, setup.cfg and setup.py",
        when=lambda tf: tf.name in LANGUAGE.text_names,
    )
