"""The survey's rules, registered in the order they run (see :mod:`retrieval.survey.registry`).

To add a detector: write it in the rule module of its family (or a new one) and
register it with the scope it runs on and a line saying what it applies to: rules on
one source file in the language's ``retrieval/languages/<lang>/rules.py``, text and
repository rules here.
The order below is the order of the survey's hits, which decides which of two
identical findings is kept, so append new rules rather than insert them.
"""

from __future__ import annotations

import importlib

from retrieval.languages import LANGUAGES, for_path
from retrieval.roles import is_repo_tooling
from retrieval.survey import claims, control, crossfile, prompts
from retrieval.survey.base import Hit
from retrieval.survey.registry import Registry, Repo, TextFile
from retrieval.survey.select import DOC_CLAIM_FILE, doc_claim_file

RULES = Registry()

# -- one parsed source file at a time: each language registers its own rules ----------
# (the survey loads a language's rule module by the name its table row gives, so the
# table itself never imports the survey)
for _language in LANGUAGES:
    importlib.import_module(_language.rules_module).register(RULES)


# -- one text file at a time (config, shell, prompt and documentation files) ------------
def _instruction_file(tf: TextFile) -> bool:
    """A prompt file of prose that is not a documentation page making claims."""
    return (
        not DOC_CLAIM_FILE.search(tf.path)
        and not is_repo_tooling(tf.path)
        and bool(tf.earlier.get("prompt files"))
        and tf.path.lower().endswith((".md", ".txt", ".markdown"))
    )


RULES.text(
    "prompt files",
    prompts.prompt_file,
    applies_to="shipped prompt files (not source); in docs folders only when the code names them",
    when=lambda tf: for_path(tf.path) is None,
    call=lambda tf, repo: prompts.prompt_file(tf.path, tf.text, repo.named_in_code),
)
RULES.text(
    "documentation claims",
    claims.doc_claims,
    applies_to="README*.md, docs/**/*.md(x) (not translations) and *SECURITY*.md, not"
    " contributor, changelog or coding-agent files",
    when=lambda tf: doc_claim_file(tf.path),
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
    for pf in repo.files:  # loops are language-neutral spans (every extractor fills them)
        out += control.loop_findings(pf, calls_model, repo.resolve)
    return out


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
