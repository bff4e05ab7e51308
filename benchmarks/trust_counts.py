"""Count what a draft says that the code does not (issue #34, points 6-8), per draft.

For each offline draft JSON given, prints:

* ``test-only``: records whose code witnesses are all in test files (a witness in a
  prompt, text or doc file is the subject, not evidence of use);
* ``test witnesses``: witnesses quoting a test file at all;
* ``word-only pairings``: self-modification records whose loading witness does not name
  the written file (its name with extension, or a module load of its stem, quoted or imported);
* ``mislabelled entries``: files the account lists as self-tests whose ``__main__`` block
  parses arguments, starts a server or loop, calls ``main`` or reads the environment
  (read from the repository at the draft's revision; needs ``--repo``).

Reads drafts and git objects only; never runs the repository.

    .venv/bin/python benchmarks/trust_counts.py DRAFT.json [DRAFT.json ...] [--repo REPO]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from drafter.model import Record
from drafter.reportio import load_report
from drafter.snapshot import Snapshot
from graph.proposers.offline.rank import is_test_path
from retrieval.languages.python.entry import main_block_does
from retrieval.survey.source import parse_python

_CODE = re.compile(r"\.(py|sh|[cm]?[jt]sx?|go|rs|java|rb)$")
_SELF_TESTS = re.compile(r"treated as self-tests, not routes: (.+)\.$")


def test_only(r: Record) -> bool:
    code = [w.path for w in r.witnesses if _CODE.search(w.path)]
    return bool(code) and all(is_test_path(p) for p in code)


def word_only(r: Record) -> bool:
    m = re.match(r"Self-modification loop: (\S+) written", r.label)
    if not m or len(r.witnesses) < 2:
        return False
    base = m.group(1).rstrip("/").rsplit("/", 1)[-1]
    if not re.search(r"\.\w+$", base):
        return False  # the working tree or a family: not a file name to look for
    stem = base.rsplit(".", 1)[0]
    st = re.escape(stem)
    loads = rf"""{re.escape(base)}|import\s+{st}\b|-m\s+{st}\b|['"](?:[\w.]+\.)?{st}['"]"""
    return not any(re.search(loads, w.quote) for w in r.witnesses[1:])


def self_tests(paragraphs: list[str]) -> list[str]:
    """The files the account's self-test sentence lists (an "and N more" tail dropped)."""
    for text in paragraphs:
        m = _SELF_TESTS.search(text)
        if m:
            return [p for p in re.split(r",\s*|\s+and\s+", m.group(1)) if p and "more" not in p]
    return []


def mislabelled(paths: list[str], repo: str | None, rev: str) -> int | None:
    if repo is None:
        return None
    n = 0
    with Snapshot(repo, rev) as snap:
        for p in paths:
            text = snap.read_text(p).text
            does = main_block_does(parse_python(p, text))
            n += bool(does) and "self_test" not in does
    return n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("drafts", nargs="+", type=Path)
    ap.add_argument("--repo", help="the repository the drafts were made from")
    args = ap.parse_args(argv)
    print("draft\trecords\ttest-only\ttest witnesses\tword-only pairings\tmislabelled entries")
    for path in args.drafts:
        rep = load_report(path)
        recs = rep.records
        account = [b.text for s in rep.account for b in s.blocks if hasattr(b, "text")]
        rev = (rep.source.revision if rep.source else None) or "HEAD"
        wrong = mislabelled(self_tests(account), args.repo, rev)
        print(
            f"{path}\t{len(recs)}\t{sum(map(test_only, recs))}\t"
            f"{sum(is_test_path(w.path) for r in recs for w in r.witnesses)}\t"
            f"{sum(map(word_only, recs))}\t{'-' if wrong is None else wrong}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
