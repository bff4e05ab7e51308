"""Rich tables that close a drafting run: what was drafted, verified, dropped."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.table import Table

from drafter.model import EPISTEMIC_SECTIONS, KIND_ORDER, KIND_SECTION, Report, ReportType


def draft_table(report: Report, title: str = "Draft") -> Table:
    """One row per record kind: records, witnesses verified / total, flagged records."""
    table = Table(title=title)
    for col in ("section", "records", "witnesses verified", "flagged records"):
        table.add_column(col, justify="left" if col == "section" else "right")
    tot = Counter[str]()
    epistemic = report.type == ReportType.epistemic
    # an epistemic report has only objects and routes; its prose sections are its account
    kinds = [k for k in KIND_ORDER if not epistemic or KIND_SECTION[k] in EPISTEMIC_SECTIONS]
    for kind in kinds:
        recs = report.records_of_kind(kind)
        ws = [w for r in recs for w in r.witnesses]
        ok = sum(1 for w in ws if w.verified)
        flagged = sum(1 for r in recs if r.flags)
        tot.update(records=len(recs), ws=len(ws), ok=ok, flagged=flagged)
        table.add_row(KIND_SECTION[kind], str(len(recs)), f"{ok}/{len(ws)}", str(flagged))
    acc = [w for a in report.account for w in a.witnesses]
    acc_ok = sum(1 for w in acc if w.verified)
    tot.update(ws=len(acc), ok=acc_ok)
    account = "Account sections" if epistemic else "Runtime account"
    table.add_row(account, "-", f"{acc_ok}/{len(acc)}", "-")
    table.add_row(
        "total",
        str(tot["records"]),
        f"{tot['ok']}/{tot['ws']}",
        str(tot["flagged"]),
        style="bold",
    )
    return table


def say_review_store(console: Console, draft: Path, report: Report) -> None:
    """Where ``drafter review DRAFT`` keeps its decisions.

    The store is named by a hash of the draft's identity, which nobody can guess; it
    is printed so ``--store`` (of ``draft --type epistemic``, ``redraft``, ``review``)
    can be given without searching for it (a draft path works there too).
    """
    from drafter.review_identity import resolve_store
    from drafter.sanitize import markup_safe
    from drafter.store_locator import redact

    store = redact(str(resolve_store(None, draft, report)))  # $DRAFTER_STORE, else its own
    console.print(f"review store (its decisions): {markup_safe(store)}", soft_wrap=True)
