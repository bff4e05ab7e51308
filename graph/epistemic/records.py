"""Build EPI-OBJ and EPI-RTE records from the typed plan.

Every statement the offline rules cannot decide from source is written as
"uninspected" or "not determinable statically" rather than guessed; the deciding
lines themselves are the witnesses, so a reviewer reads the evidence, not a
paraphrase of it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from drafter.model import Block, Bullet, LineRange, Paragraph, Record, Witness, WitnessBlock
from graph.epistemic.plan import EpiObject, EpiPlan, EpiRoute
from graph.epistemic.scan import CheckKind, CheckLine
from retrieval.survey import Survey

TextOf = Callable[[str], list[str] | None]
MAX_ROUTE_WITNESSES = 4

#: What each check kind does to its operands, for the endpoint chain and the ledger.
KIND_STEP = {
    CheckKind.normalisation: "normalise spelling",
    CheckKind.mapping: "map labels to values",
    CheckKind.comparison: "compare with a reference or expected value",
    CheckKind.threshold: "apply a threshold",
    CheckKind.aggregation: "aggregate into a statistic",
}
KIND_LIMIT = {
    CheckKind.normalisation: "Equivalence holds only under this spelling convention; "
    "semantic equivalence of free answers is not established.",
    CheckKind.mapping: "A fixed map turns labels into numbers; unmapped or unknown labels "
    "follow the map's default, not a judgment.",
    CheckKind.comparison: "Agreement with the reference is conditional on the reference's "
    "truth, which this code does not establish.",
    CheckKind.threshold: "A threshold licenses admission or rejection, not the truth of an "
    "explanation of why a candidate scored so.",
    CheckKind.aggregation: "The statistic is conditional on its inputs and on the handling of "
    "missing or failed trials; metric fidelity is uninspected.",
}


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


def witness_at(path: str, line: int, text_of: TextOf) -> Witness | None:
    """The stripped line as a witness; a line span only when the text recurs."""
    lines = text_of(path) or []
    if not (1 <= line <= len(lines)):
        return None
    quote = _norm(lines[line - 1])
    if len(quote) < 6:
        return None
    repeats = sum(1 for raw in lines if quote in _norm(raw))
    span = LineRange(start=line, end=line) if repeats > 1 else None
    return Witness(quote=quote, path=path, lines=span)


def _pick_lines(lines: list[CheckLine]) -> list[CheckLine]:
    """Deciding lines, one per kind first, then the rest, in source order."""
    first: dict[CheckKind, CheckLine] = {}
    for c in lines:
        first.setdefault(c.kind, c)
    chosen = list(first.values())
    chosen += [c for c in lines if c not in chosen]
    return sorted(chosen[:MAX_ROUTE_WITNESSES], key=lambda c: c.line)


def callers_of(survey: Survey, node: str) -> list[str]:
    return sorted(survey.index().callers.get(node, ()))


def object_record(obj: EpiObject, text_of: TextOf) -> Record:
    names = sorted({n for a in obj.artifacts for n in a.names})
    symbols = sorted({a.symbol for a in obj.artifacts})
    forms = sorted({a.form for a in obj.artifacts})
    identity = (
        ", ".join(names) if names else f"values produced by {', '.join(symbols)} in {obj.path}"
    )
    if obj.persisted:
        substrate = f"written by {', '.join(symbols)} ({obj.path})"
    else:
        substrate = f"in-process return value of {', '.join(symbols)}; not persisted there"
    lead = (
        f"Source-native identity: {identity}. Representational form: {', '.join(forms)}. "
        f"Storage substrate: {substrate}. SRC-1, {obj.path}."
    )
    body = (
        f"Candidate truth-apt content: {obj.cls.value}. Whether any value is true is not "
        "determinable statically; no run output was inspected. Operation conclusion status: "
        "uninspected."
    )
    blocks: list[Block] = [Paragraph(text=lead), Paragraph(text=body)]
    seen: set[str] = set()
    for a in obj.artifacts[:3]:
        w = witness_at(a.path, a.line, text_of)
        if w is not None and w.quote not in seen:
            seen.add(w.quote)
            blocks.append(WitnessBlock(witness=w))
    if obj.copies:
        blocks.insert(2, Paragraph(text=_same_in(obj.copies)))
    label = f"{obj.cls.value.capitalize()} in {obj.path}"
    return Record(id=obj.id, label=label, part_of=obj.part_of, blocks=blocks)


def _same_in(paths: list[str]) -> str:
    shown = ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
    return (
        f"The same lines repeat in {shown} (a structure repeated across files); drafted once here."
    )


def route_record(route: EpiRoute, plan: EpiPlan, survey: Survey, text_of: TextOf) -> Record:
    site = route.site
    objs = [plan.object(o) for o in route.objects]
    target = ", ".join(o.id for o in objs if o) or "an unpersisted value"
    steps = " → ".join(KIND_STEP[k] for k in site.kinds)
    callers = callers_of(survey, f"{site.path}::{site.symbol}")
    lead = (
        f"Endpoints/progression: inputs of {site.symbol} → {steps} → {target}. "
        f"Owner: {site.path} ({site.symbol}). SRC-1 implementation, read without execution."
    )
    select = [c.text for c in site.lines if c.kind in (CheckKind.comparison, CheckKind.threshold)]
    blocks: list[Block] = [
        Paragraph(text=lead),
        Bullet(name="implementation conclusion status", value="wired"),
        Bullet(name="operation conclusion status", value="uninspected"),
        Bullet(name="Immediate return", value="uninspected beyond the deciding lines below"),
        Bullet(
            name="Later read-back",
            value=("called from " + ", ".join(callers[:4]))
            if callers
            else "not determinable statically",
        ),
        Bullet(name="Delegated visibility", value="not determinable statically"),
        Bullet(
            name="Selection predicate",
            value=select[0] if select else "none among the deciding lines",
        ),
        Bullet(name="Invalidation or expiry", value="uninspected"),
        Bullet(
            name="Activation or effect",
            value=f"{KIND_STEP[route.main_kind].capitalize()} whenever {site.symbol} runs; "
            "actual activation uninspected.",
        ),
        Bullet(name="Evidence limits", value=KIND_LIMIT[route.main_kind]),
    ]
    for c in _pick_lines(site.lines):
        w = witness_at(site.path, c.line, text_of)
        if w is not None:
            blocks.append(WitnessBlock(witness=w))
    if route.copies:
        blocks.insert(1, Paragraph(text=_same_in(route.copies)))
    label = f"{route.main_kind.value.capitalize()} in {site.symbol}"
    if route.copies:
        n = len(route.copies)
        label += f" ({site.path} and {n} {'copy' if n == 1 else 'copies'})"
    return Record(id=route.id, label=label, part_of=route.part_of, blocks=blocks)
