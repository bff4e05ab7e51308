"""Does a record's label say only what its own witnesses show?

A label an analyst cannot check against the quotes beneath it is worse than none:
"anthropic model endpoint" above an OpenAI ``chat.completions`` call, "loaded or
executed as code" above a ``git clone``.  :func:`unsupported` lists the names a label
gives that no witness shows — a provider, a file, a consumer — and :func:`relabel`
is the hard rule built on it: a listed name no witness shows is taken out of the
label's list (counted as "N more" instead), so what the label still names is what
the quotes beneath it show.  A name the rule cannot take out cleanly (one inside a
phrase) leaves the label as it was, and the proposer flags the record.
"""

from __future__ import annotations

import re

from drafter.model import Record
from graph.proposers.offline.langs import is_source

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


def shows_provider(name: str, quotes: str) -> bool:
    """Whether quoted lines show provider ``name``: by the patterns of a known provider
    it contains (``google-adk`` is shown by what shows ``google``), else by its name."""
    for word, rx in PROVIDERS.items():
        if re.search(rf"\b{word}\b", name, re.I):
            return rx.search(quotes) is not None
    return re.search(re.escape(name), quotes, re.I) is not None


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
        if via_constant and not is_source(name):
            continue
        out.append(f"file {name}")
    return out


_ITEM_SPLIT = re.compile(r",\s*|\s+and\s+")
_MORE = re.compile(r"^(\d+) more$")
_BOUNDARY = re.compile(r"([():;])")


def _missing_patterns(missing: list[str]) -> tuple[list[re.Pattern[str]], bool]:
    """Patterns for the provider and file names of :func:`unsupported`'s answer, and
    whether they are all files (what "N files" may then call the dropped ones)."""
    pats: list[re.Pattern[str]] = []
    files = True
    for m in missing:
        kind, _, name = m.partition(" ")
        if kind == "provider":
            pats.append(re.compile(rf"\b{re.escape(name)}\b", re.I))
            files = False
        elif kind == "file":
            pats.append(re.compile(rf"(?<![\w.-]){re.escape(name)}(?![\w-])"))
    return pats, files


def _drop_items(segment: str, pats: list[re.Pattern[str]], files: bool) -> str:
    """``segment`` (text between brackets, colons or semicolons) without the one-word
    list items a pattern matches; unchanged when a match sits inside a longer phrase."""
    if not any(p.search(segment) for p in pats):
        return segment
    lead = segment[: len(segment) - len(segment.lstrip())]
    trail = segment[len(segment.rstrip()) :]
    parts = _ITEM_SPLIT.split(segment.strip())
    head = re.match(r"^(.*\s)?(\S+)$", parts[0])
    prefix = (head.group(1) or "") if head else ""
    parts[0] = head.group(2) if head else parts[0]
    bad = [i for i, p in enumerate(parts) if any(x.search(p) for x in pats)]
    if any(" " in parts[i] for i in bad) or any(x.search(prefix) for x in pats):
        return segment  # a name inside a phrase: nothing to take out cleanly
    kept = [p for i, p in enumerate(parts) if i not in bad]
    more = sum(int(m.group(1)) for p in kept if (m := _MORE.match(p))) + len(bad)
    names = [p for p in kept if not _MORE.match(p)]
    if not names:
        noun = (" file" if more == 1 else " files") if files else ""
        body = f"{more}{noun}" if noun else ""
    else:
        listed = [*names, f"{more} more"]
        body = ", ".join(listed[:-1]) + " and " + listed[-1]
    return lead + (prefix + body).strip() + trail if (prefix + body).strip() else ""


def relabel(label: str, missing: list[str]) -> str:
    """``label`` with the list items naming ``missing`` (from :func:`unsupported`) taken
    out: ``Agent model (google-adk, litellm)`` -> ``Agent model (litellm and 1 more)``,
    ``writes a.json, b.json`` -> ``writes 2 files``.  Consumers are phrases, never
    list items: they stay, and so does the flag."""
    pats, files = _missing_patterns(missing)
    if not pats:
        return label
    pieces = _BOUNDARY.split(label)
    out = "".join(p if _BOUNDARY.fullmatch(p) else _drop_items(p, pats, files) for p in pieces)
    out = re.sub(r"\(\s*\)", "", out)
    out = re.sub(r"\s+([),;])", r"\1", out)
    out = re.sub(r"[:;]\s*(?=[:;)]|$)", "", out)
    out = re.sub(r"\s{2,}", " ", out).strip()
    return out or label
