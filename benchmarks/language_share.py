"""Which language a draft's evidence lies in: the share of its records and routes whose
witnesses quote source files of a given language.

Why: on a mixed repository a draft can verify every quote and still describe the wrong
system (a Python side tool of a TypeScript agent).  This counts, per draft, the records
(and routes) with at least one witness in a source file of the language, and the share
of witnesses there, so a draft before and after a change can be compared.

    .venv/bin/python benchmarks/language_share.py --lang typescript A.draft.json [B.draft.json ...]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from drafter.model import Record, Report

#: Source suffixes by language, for counting only (the survey's own table decides what
#: is read; this must also know languages it does not read yet).
SUFFIXES = {
    "python": (".py",),
    "typescript": (".ts", ".tsx", ".mts", ".cts"),
    "javascript": (".js", ".jsx", ".mjs", ".cjs"),
    "go": (".go",),
}


def language(path: str) -> str:
    for name, suffixes in SUFFIXES.items():
        if path.endswith(suffixes) and not path.endswith(".d.ts"):
            return name
    return "other"


def shares(report: Report, langs: set[str]) -> dict[str, tuple[int, int]]:
    """{what: (in the languages, total)} for records, routes and witnesses."""
    recs = [r for r in report.records if r.witnesses]
    routes = [r for r in recs if r.kind == "RTE"]
    wits = [w for r in recs for w in r.witnesses]

    def hit(r: Record) -> bool:
        return any(language(w.path) in langs for w in r.witnesses)

    return {
        "records": (sum(map(hit, recs)), len(recs)),
        "routes": (sum(map(hit, routes)), len(routes)),
        "witnesses": (sum(language(w.path) in langs for w in wits), len(wits)),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lang", action="append", required=True, help="typescript, python, ...")
    ap.add_argument("drafts", nargs="+", type=Path)
    args = ap.parse_args()
    for path in args.drafts:
        report = Report.from_json(path.read_text())
        parts = []
        for what, (n, total) in shares(report, set(args.lang)).items():
            pct = f"{100 * n / total:.0f}%" if total else "-"
            parts.append(f"{what} {n}/{total} ({pct})")
        print(f"{path}: " + ", ".join(parts))


if __name__ == "__main__":
    main()
