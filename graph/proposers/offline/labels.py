"""Does a record's label say only what its own witnesses show?

A label an analyst cannot check against the quotes beneath it is worse than none:
"anthropic model endpoint" above an OpenAI ``chat.completions`` call, "loaded or
executed as code" above a ``git clone``.  :func:`unsupported` lists the names a label
gives that no witness shows — a provider, a file, a consumer — so the offline
proposer can flag a record and the tests can hold every recipe to the rule.
"""

from __future__ import annotations

import re

from drafter.model import Record

#: A provider named in a label, and what a quoted line must show to support it.
PROVIDERS: dict[str, re.Pattern[str]] = {
    "anthropic": re.compile(r"anthropic|claude|\.messages\.(create|stream)\(", re.I),
    "openai": re.compile(
        r"openai|\bgpt|\bo[134]-|chat\.completions\.|responses\.create|completions\.create", re.I
    ),
    "google": re.compile(r"google|gemini|generate_content", re.I),
    "litellm": re.compile(r"litellm", re.I),
    "vllm": re.compile(r"vllm", re.I),
    "transformers": re.compile(r"transformers|from_pretrained|pipeline\(|\.generate\(", re.I),
}
#: Consumers a label names, and what a witness must show for each.
CONSUMERS: dict[str, re.Pattern[str]] = {
    "executed as code": re.compile(
        r"\bexec\(|\beval\(|import_module|exec_module|run_path|spec_from_file|subprocess|"
        r"\bpatch\b|os\.system|exec_run|\bgit\b.*\b(apply|am|checkout)\b",
        re.I,
    ),
    "fed to a model": re.compile(r"\bcreate\(|completion|generate|invoke|query|llm|model", re.I),
}
_FILE = re.compile(
    r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.(?:py|md|json|jsonl|tsv|csv|txt|ya?ml|pkl|sh))\b"
)
_CONSTANT = re.compile(r"\b[A-Z][A-Z0-9_]{3,}\b")


def unsupported(record: Record) -> list[str]:
    """Names in ``record.label`` that none of its witnesses shows (empty when the label
    holds to its quotes).  A data file named through a module constant (``RESULTS_FILE``)
    counts as shown when a witness quotes such a constant."""
    label = record.label
    quotes = " ".join(w.quote for w in record.witnesses)
    paths = " ".join(w.path for w in record.witnesses)
    out: list[str] = []
    for name, shows in PROVIDERS.items():
        if re.search(rf"\b{name}\b", label, re.I) and not shows.search(quotes):
            out.append(f"provider {name}")
    for phrase, shows in CONSUMERS.items():
        if phrase in label and not shows.search(quotes):
            out.append(f"consumer '{phrase}'")
    via_constant = _CONSTANT.search(quotes) is not None
    for m in _FILE.finditer(label):
        name = m.group(1)
        base = name.rsplit("/", 1)[-1]
        if base in quotes or base in paths or name in paths:
            continue
        if via_constant and not name.endswith(".py"):
            continue
        out.append(f"file {name}")
    return out
