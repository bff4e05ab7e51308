"""What a record is *about*: the functions its witnesses sit in, the kinds of effect its
quoted code performs and the files it names -- and how much of that two records share.

Why: the coverage score's parts compare how two records are *written* (label and lead
text, code names, quoted lines, call path).  An analyst links records that act on the
same thing: a draft "run archive" object and a gold "agent archive" object are the
same ``json`` write in the same function, whatever the prose; a draft route written
per benchmark folder is the gold route quoted in another sibling copy.  Three sets per
record capture that, each compared between a gold and a draft record:

* **functions** -- the enclosing function of each located witness (``CodeMap.enclosing``),
  identified across sibling copies by file name and function name hash
  (``CodeMap.identity``): ``_arc/search.py``'s ``search`` and ``_mgsm/search.py``'s
  ``search`` are one function;
* **effects** -- generic kinds of effect the quoted code performs (a model call, running
  code or a process, a file write or read, serialisation, a gate or comparison, a
  loop), found by regexes over the quote's code names;
* **objects** -- the file names the record's quotes and prose name (``*.json``,
  ``*.jsonl``, ``*.db`` ...), by base name.

Only a quote's code names are read (``evals.similarity.code_tokens``' pattern), never
the rest of its text: the saved labelled drafts keep exactly those names
(``evals.redact``), so a redacted draft and the original give the same sets.  No rule
names a repository, folder or identifier of one.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from drafter.model import Record
from evals.similarity import _CODE
from evals.structure import CodeMap
from evals.witnesses import LocatedWitness

#: Kinds of effect, each a regex over one lower-cased code name split at ``.``, ``_``
#: and ``/`` into words (``client.chat.completions.create`` -> ``client chat
#: completions create``).  Generic vocabulary of Python code, nothing of one repository.
EFFECTS: dict[str, re.Pattern[str]] = {
    "model": re.compile(
        r"\b(chat|completions?|messages|llm|openai|anthropic|gpt|claude|model|prompt|"
        r"generate|response|reply|query|temperature|max tokens)\b"
    ),
    "exec": re.compile(
        r"\b(exec|eval|subprocess|popen|system|shell|bash|docker|container|command|cmd|"
        r"importlib|compile|sandbox|run|forward|spec|module)\b"
    ),
    "write": re.compile(
        r"\b(write|writelines|dump|dumps|save|makedirs|mkdir|append|commit|copy|copytree|"
        r"rmtree|remove|unlink|replace|patch|diff|apply)\b"
    ),
    "read": re.compile(r"\b(read|readlines|load|loads|glob|listdir|exists|walk|open|path|join)\b"),
    "serial": re.compile(r"\b(json|jsonl|pickle|yaml|csv|toml)\b"),
    "gate": re.compile(
        r"\b(score|scores|fitness|acc|accuracy|best|max|min|sort|sorted|threshold|compare|"
        r"accept|reject|assert|valid|check|pass|passed|fail|failed|success|rate|mean|"
        r"bootstrap|confidence|interval|metric|metrics|eval|evaluate|test|tests)\b"
    ),
    "loop": re.compile(
        r"\b(range|iter|iteration|iterations|generation|generations|epoch|step|steps|"
        r"round|rounds|retry|retries|attempt|attempts|loop|n|max|num)\b"
    ),
}

#: A file name a record names: base name with a data/code extension.
_FILE = re.compile(
    r"([A-Za-z0-9_\-]+\.(?:jsonl|json|pkl|pickle|ya?ml|csv|tsv|txt|md|db|sqlite|log|npy|pt|"
    r"toml|ini|cfg|sh|py|html|parquet))\b"
)


@dataclass(frozen=True, slots=True)
class About:
    """The three sets of one record (see the module text)."""

    functions: frozenset[tuple[str, str]]
    effects: frozenset[str]
    objects: frozenset[str]


def quote_names(quote: str) -> list[str]:
    """The code names of a quote (what a redacted quote keeps), lower-cased."""
    return [t.lower().rstrip(".") for t in _CODE.findall(quote)]


def effects_of(names: Sequence[str]) -> frozenset[str]:
    """The effect kinds :data:`EFFECTS` finds in ``names``."""
    words = [re.sub(r"[._/]+", " ", n) for n in names]
    return frozenset(k for k, rx in EFFECTS.items() if any(rx.search(w) for w in words))


def objects_of(texts: Sequence[str]) -> frozenset[str]:
    """File base names the texts name (lower-cased; a path's folders are dropped)."""
    return frozenset(
        posixpath.basename(m.group(1)).lower() for t in texts for m in _FILE.finditer(t)
    )


def about(record: Record, witnesses: Sequence[LocatedWitness], cmap: CodeMap | None) -> About:
    """The :class:`About` of one record from its located witnesses (functions need a
    code map; without one that set is empty and its overlap unknown)."""
    functions: set[tuple[str, str]] = set()
    if cmap is not None:
        functions = {cmap.identity(n) for n in cmap.nodes_of(witnesses)}
    names = [n for w in record.witnesses for n in quote_names(w.quote)]
    objects = objects_of([record.label, record.body_text(), *names])
    return About(frozenset(functions), effects_of(names), objects)


#: The overlap parts, in feature order.
ABOUT_PARTS = ("fn_draft", "fn_gold", "effect", "object")


def _share(a: frozenset[object], b: frozenset[object]) -> float:
    """Share of ``a`` also in ``b``; NaN when either is empty (cannot say)."""
    if not a or not b:
        return float("nan")
    return len(a & b) / len(a)


def _jaccard(a: frozenset[object], b: frozenset[object]) -> float:
    if not a or not b:
        return float("nan")
    return len(a & b) / len(a | b)


def about_parts(gold: Sequence[About], draft: Sequence[About]) -> dict[str, np.ndarray]:
    """Gold x draft matrices of :data:`ABOUT_PARTS`:

    * ``fn_draft``: share of the draft record's functions the gold record quotes too
      (a draft record that is one part of a gold route lies inside it);
    * ``fn_gold``: share of the gold record's functions the draft record quotes;
    * ``effect``: Jaccard of the effect kinds;
    * ``object``: Jaccard of the file names.

    NaN where a side has nothing of that set.
    """
    shape = (len(gold), len(draft))
    out = {k: np.full(shape, np.nan) for k in ABOUT_PARTS}
    for i, g in enumerate(gold):
        for j, d in enumerate(draft):
            out["fn_draft"][i, j] = _share(d.functions, g.functions)
            out["fn_gold"][i, j] = _share(g.functions, d.functions)
            out["effect"][i, j] = _jaccard(g.effects, d.effects)
            out["object"][i, j] = _jaccard(g.objects, d.objects)
    return out
