"""The honest outcome of a draft: what was proposed, kept and dropped, and whether the
run may exit 0.

Why: a draft file is always written, but "written" is not "succeeded".  A run exits 0
only when the plan succeeded, nothing planned is missing and every record kept at
least one verified witness; everything else is a partial draft (exit 1) whose gaps the
analyst is told, section by section.
"""

from __future__ import annotations

from rich.table import Table

from drafter.model import KIND_ORDER, KIND_SECTION, FlagKind, Report


def witness_counts(report: Report) -> list[tuple[str, int, int, int]]:
    """(section, proposed, kept, dropped) per section, the runtime account last.

    Kept witnesses are the verified ones still in the draft; dropped ones are those the
    verifier removed after the last repair round: a record's ``witness_dropped`` flags,
    the account's ``DraftCounts`` (counted by kind and number, never by wording)."""
    rows = []
    for kind in KIND_ORDER:
        recs = report.records_of_kind(kind)
        kept = sum(1 for r in recs for w in r.witnesses if w.verified)
        dropped = sum(len(r.flags_of(FlagKind.witness_dropped)) for r in recs)
        rows.append((KIND_SECTION[kind], kept + dropped, kept, dropped))
    kept = sum(1 for a in report.account for w in a.witnesses if w.verified)
    dropped = report.meta.counts.account_witnesses_dropped if report.meta else 0
    rows.append(("Runtime account", kept + dropped, kept, dropped))
    return rows


def witness_table(report: Report) -> Table:
    table = Table(title="Witnesses proposed, kept and dropped")
    for col in ("section", "proposed", "kept", "dropped"):
        table.add_column(col, justify="left" if col == "section" else "right")
    tot = [0, 0, 0]
    for section, *nums in witness_counts(report):
        table.add_row(section, *map(str, nums))
        tot = [a + b for a, b in zip(tot, nums, strict=True)]
    table.add_row("total", *map(str, tot), style="bold")
    return table


def problems(report: Report) -> list[str]:
    """Why this draft is partial; empty when the run may exit 0.

    Every draft answers for what it planned and did not draft (``meta.missing``) and
    for record IDs cited but not drafted.  A draft a model wrote (``meta.model`` set)
    also answers for an empty plan and for a record left without a verified witness: a
    model was asked for records with witnesses, while rules that find nothing to draft
    give an empty draft, not a partial one.  The rule reads the draft, never the name of
    the generator that wrote it."""
    out: list[str] = []
    meta = report.meta
    missing = list(meta.missing) if meta else []
    by_model = meta is not None and meta.model is not None
    plan_failed = meta.counts.plan_failed if meta else False
    if by_model and not report.records and not plan_failed:  # a failed plan says why
        out.append("the plan drafted no record")
    out.extend(missing)
    if by_model:
        out.extend(
            f"{r.id} kept no verified witness"
            for r in report.records
            if not any(w.verified for w in r.witnesses)
        )
    out.extend(str(d) for d in report.dangling())
    return out
