"""Redact the analysed repository's code from a saved draft kept as evaluation data.

Why: labelled pairs (tests/data/eval_labels/) keep a saved draft of a public repository
so that tests need no clone.  A draft quotes that repository verbatim (every witness,
and the offline drafter's prose cites settings and conditions as code), and the
project must not carry other repositories' code.  What the evaluation reads from a
witness quote is only its code names (``evals.similarity.code_tokens``) and where the
verifier found it (the saved ``*.locations.json``), so the redacted draft keeps
exactly that:

* each witness quote becomes ``[redacted quote <hash>: name name ...]`` -- the names
  ``code_tokens`` finds in the quote, in order, and a short hash of the original quote
  so two different quotes with the same names stay two witnesses;
* in prose (every string that is not structure: labels, paragraphs, bullets, route
  fields, table cells, the account, notes), every run of
  words found verbatim in the repository's files at the draft's revision that holds
  code punctuation (``=``, quotes, brackets, operators) becomes
  ``[redacted code: name name ...]``, again keeping the names.  Mentions of bare
  names, paths and ``call()`` chains stay: they are the prose's own words;
* the saved witness locations are re-keyed to the redacted quotes (same answers), so
  located witnesses and code names are unchanged.  Text similarity reads a record's
  label and lead, so where those held code the figures can move slightly (on the
  labelled pairs: one dgm link below the threshold; see tests/test_eval_labels.py).

The run checks that every record's code names are unchanged and refuses to write
otherwise.  Deterministic: the same draft, repository and revision give the same
files.  Usage (once, with the repository at hand; tests never need it)::

    python -m evals.redact --draft D.draft.json --locations D.locations.json \\
        --gold GOLD --repo /path/to/mirror

Redacted witnesses no longer verify against the repository, so ``drafter eval
--repo`` on a redacted draft reports them as not found; the labelled tests read the
saved locations instead.
"""

from __future__ import annotations

if __name__ == "__main__":
    # ``python -m`` puts the current folder first on sys.path.  Refuse, before any other
    # project import, when that folder holds a package named like one of drafter's: an
    # analysed repository's code would be imported instead.  (Stdlib only, on purpose.)
    import sys as _sys
    from pathlib import Path as _Path

    _ours, _first = _Path(__file__).resolve().parents[1], _Path(_sys.path[0] or ".").resolve()
    if not _sys.flags.safe_path and _first != _ours:
        for _name in ("drafter", "graph", "evals", "retrieval", "tui", "prompts"):
            if (_first / _name / "__init__.py").is_file() or (_first / f"{_name}.py").is_file():
                print(
                    f"drafter: error: {_first} holds a {_name!r} package that python -m would "
                    "import instead of drafter's; run it from another folder",
                    file=_sys.stderr,
                )
                _sys.exit(2)

import argparse
import hashlib
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from drafter.errors import BadInput, RepoError
from drafter.model import Report
from drafter.sanitize import one_line
from drafter.snapshot import Snapshot
from evals.gold import load
from evals.located import _key
from evals.similarity import _CODE, code_tokens

#: Length of the character n-grams that mark a prose run as found in the repository.
GRAM = 16
#: Files read for the verbatim check: source-like files, and any file the draft names.
SOURCE_SUFFIXES = (".py", ".sh", ".toml", ".yaml", ".yml", ".cfg", ".ini", ".js", ".ts")
MAX_FILE_BYTES = 400_000
#: Punctuation that makes a verbatim run code rather than a mention of a name or call.
_CODE_PUNCT = re.compile(
    r"[=\"\[\]{}<>+*%|&!]"  # assignment, string, subscript, operators
    r"|(?<![A-Za-z])'|'(?![A-Za-z])"  # a quote mark, not an English apostrophe
    r"|\w\((?!\))"  # a call with arguments (bare ``name()`` is the prose's own)
)
_SPACE = re.compile(r"\s+")
_MARK = re.compile(r"\[redacted (?:quote [0-9a-f]+|code): [^\]]*\]")


def names(text: str) -> str:
    """The code names ``code_tokens`` reads in ``text``, space-separated, in order."""
    return " ".join(_CODE.findall(text))


def redact_quote(quote: str) -> str:
    """A witness quote reduced to its names, with a hash of the original."""
    if _MARK.fullmatch(quote):
        return quote  # already redacted
    digest = hashlib.sha256(quote.encode()).hexdigest()[:10]
    return f"[redacted quote {digest}: {names(quote)}]"


def corpus_grams(snap: Snapshot, draft_text: str, absent: list[str] | None = None) -> set[str]:
    """Every GRAM-character window of the whitespace-normalised files to check.

    A file whose blob the clone does not hold (a large data file left out of a mirror
    or a partial clone) cannot have been quoted from this clone; it is skipped and its
    path appended to ``absent`` so the command can say so, instead of stopping the
    whole redaction on one missing object.
    """
    grams: set[str] = set()
    for entry in snap.entries():
        if not entry.is_regular or entry.size > MAX_FILE_BYTES:
            continue
        if not (entry.path.endswith(SOURCE_SUFFIXES) or entry.path in draft_text):
            continue
        try:
            tf = snap.read_text(entry.path)
        except RepoError:
            if absent is not None:
                absent.append(entry.path)
            continue
        text = _SPACE.sub(" ", tf.text)
        grams.update(text[i : i + GRAM] for i in range(max(len(text) - GRAM + 1, 0)))
    return grams


def verbatim_runs(text: str, grams: set[str]) -> list[tuple[int, int]]:
    """Spans of ``text`` (widened to whole words) covered by windows found in the corpus."""
    spans: list[tuple[int, int]] = []
    i = 0
    while i + GRAM <= len(text):
        if text[i : i + GRAM] not in grams:
            i += 1
            continue
        end = i + GRAM
        while end < len(text) and text[end - GRAM + 1 : end + 1] in grams:
            end += 1
        start = i
        floor = spans[-1][1] if spans else 0
        while start > floor and not text[start - 1].isspace():
            start -= 1
        while end < len(text) and not text[end].isspace():
            end += 1
        spans.append((start, end))
        i = end
    return spans


def redact_prose(text: str, grams: set[str], text_min: int = 0) -> str:
    """``text`` with every verbatim code run replaced by its names; with ``text_min``,
    also every verbatim run of at least that many characters (documentation, docstrings
    and task text the draft quotes in its prose).  Earlier redactions are left as they
    are, so a second run changes nothing."""
    parts: list[str] = []
    last = 0
    for m in _MARK.finditer(text):
        parts.append(_redact_plain(text[last : m.start()], grams, text_min))
        parts.append(m.group(0))
        last = m.end()
    parts.append(_redact_plain(text[last:], grams, text_min))
    return "".join(parts)


def _redact_plain(text: str, grams: set[str], text_min: int) -> str:
    """redact_prose on text that holds no redaction mark."""
    out: list[str] = []
    last = 0
    for start, end in verbatim_runs(text, grams):
        run = text[start:end]
        if not _CODE_PUNCT.search(run) and not (text_min and len(run.strip()) >= text_min):
            continue
        lead = len(run) - len(run.lstrip())
        out.append(text[last : start + lead])
        out.append(f"[redacted code: {names(run.strip())}]")
        last = end - (len(run) - len(run.rstrip()))
    out.append(text[last:])
    return "".join(out)


#: Keys of a saved draft whose string values are structure, not prose (left as they are);
#: every other string -- labels, paragraphs, bullets, table cells, notes -- is prose.
_STRUCTURAL = frozenset(
    {
        "id",
        "type",
        "type_path",
        "path",
        "revision",
        "status",
        "match_kind",
        "repository",
        "system",
        "generator",
        "created",
        "drafter_version",
        "thread_id",
        "name",
        "key",
    }
)


def _walk_prose(node: object, fix: Callable[[str], str]) -> object:
    """A copy of a draft's JSON with ``fix`` applied to prose and witness quotes."""
    if isinstance(node, str):
        return fix(node)
    if isinstance(node, list):
        return [_walk_prose(v, fix) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, object] = {}
    for k, v in node.items():
        if k == "witness" and isinstance(v, dict) and isinstance(v.get("quote"), str):
            out[k] = {**v, "quote": redact_quote(v["quote"])}
        elif k in _STRUCTURAL and isinstance(v, str):
            out[k] = v
        else:
            out[k] = _walk_prose(v, fix)
    return out


def rekey_locations(
    old: Report, new: Report, locations: dict[str, Any], keep: set[str]
) -> dict[str, Any]:
    """Locations keyed by the redacted witnesses (same answers); rows of ``keep``
    (the gold's keys) stay, rows only the unredacted draft used are dropped."""
    rows = {str(r["key"]): r for r in locations["witnesses"]}
    moved: dict[str, dict[str, Any]] = {}
    for a, b in zip(old.witnesses, new.witnesses, strict=True):  # account, then records
        ka, kb = _key(a), _key(b)
        if ka not in rows:
            raise BadInput(f"no saved location for a draft witness in {a.path}")
        moved[kb] = {**rows[ka], "key": kb}
    kept = {k: r for k, r in rows.items() if k in keep}
    merged = sorted({**kept, **moved}.values(), key=lambda r: (str(r["path"]), str(r["key"])))
    return {"revision": locations["revision"], "witnesses": merged}


def check_names(old: Report, new: Report) -> None:
    """Refuse a redaction that changed what code_similarity reads."""
    for a, b in zip(old.records, new.records, strict=True):
        if code_tokens(a) != code_tokens(b):
            diff = sorted(set(code_tokens(a)) ^ set(code_tokens(b)))[:5]
            raise BadInput(f"redaction changed the code names of {a.id}: {diff}")


def write_locations(data: dict[str, Any], out: Path) -> None:
    """Same layout as evals.located.save_locations (one witness per line)."""
    lines = ",\n  ".join(json.dumps(r, ensure_ascii=False) for r in data["witnesses"])
    out.write_text(
        f'{{"revision": {json.dumps(data["revision"])},\n "witnesses": [\n  {lines}\n ]}}\n',
        encoding="utf-8",
    )


def redact_files(
    draft: Path,
    locations: Path,
    gold: Path,
    repo: Path,
    text_min: int = 0,
    absent: list[str] | None = None,
) -> tuple[int, int]:
    """Redact ``draft`` and re-key ``locations`` in place; (quotes, prose runs) redacted.
    Files the clone lacks are skipped and listed in ``absent``."""
    raw_text = draft.read_text(encoding="utf-8")
    raw = json.loads(raw_text)
    old = load(draft, "draft")
    rev = old.source.revision if old.source else None
    if rev is None:
        raise BadInput(f"{draft} records no source revision to redact against")
    with Snapshot(repo, rev) as snap:
        grams = corpus_grams(snap, raw_text, absent)
    runs = 0

    def fix(text: str) -> str:
        nonlocal runs
        new = redact_prose(text, grams, text_min)
        runs += new.count("[redacted code: ") - text.count("[redacted code: ")
        return new

    red = _walk_prose(raw, fix)
    tmp = draft.with_suffix(".redacting")
    tmp.write_text(json.dumps(red, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    try:
        new = load(tmp, "draft")
        check_names(old, new)
        keep = {_key(w) for w in load(gold, "gold").witnesses}
        locs = rekey_locations(old, new, json.loads(locations.read_text(encoding="utf-8")), keep)
    except BaseException:
        tmp.unlink()
        raise
    tmp.replace(draft)
    write_locations(locs, locations)
    quotes = sum(1 for w in new.witnesses if w.quote.startswith("[redacted quote "))
    return quotes, runs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.redact", description=__doc__.split("\n")[0])
    ap.add_argument("--draft", type=Path, required=True, help="saved draft JSON (rewritten)")
    ap.add_argument(
        "--locations", type=Path, required=True, help="its *.locations.json (rewritten)"
    )
    ap.add_argument("--gold", type=Path, required=True, help="the gold report of the pair")
    ap.add_argument("--repo", type=Path, required=True, help="the analysed repository")
    ap.add_argument(
        "--text-min",
        type=int,
        default=0,
        help="also redact verbatim prose runs of at least this many characters without "
        "code punctuation (documentation sentences); 0 (default) redacts code runs only",
    )
    a = ap.parse_args(argv)
    absent: list[str] = []
    try:
        quotes, runs = redact_files(a.draft, a.locations, a.gold, a.repo, a.text_min, absent)
    except BadInput as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"error: {a.draft} / {a.locations}: {exc}", file=sys.stderr)
        return 2
    print(f"{a.draft}: {quotes} witness quotes redacted in all, {runs} prose code runs this run")
    if absent:
        shown = ", ".join(one_line(p, 120) for p in absent[:3])
        more = f" and {len(absent) - 3} more" if len(absent) > 3 else ""
        print(
            f"note: {len(absent)} file(s) the draft names are not in this clone, so prose "
            f"quoting them was not checked: {shown}{more}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
