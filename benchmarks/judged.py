"""The judged eval over every labelled pair, for ``label_agreement.py`` (its table).

Why beside the second-labelling table: a judge's agreement with an analyst reads
against how far two analysts agree with each other, and against the mechanical tier.
"""

from __future__ import annotations

import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from drafter.config import data_dir
from drafter.defaults import MODEL
from drafter.endpoint import request_timeout, retry_count
from drafter.model import Report
from drafter.prices import table_price
from evals.gold import load
from evals.judge.cache import AnswerCache
from evals.judge.model import AnthropicJudge, JudgeModel
from evals.judge.pipeline import JudgedPair, prepare
from evals.judge.run import Caps, JudgeCapReached, JudgeRun, estimate
from evals.judge.score import agreement, label_matrix
from evals.labels import LabelSet, check_complete, load_labels
from evals.located import cached_fingerprint, cached_locate
from evals.similarity import backend
from evals.structure import code_map
from evals.structure import load as load_code_map
from evals.witnesses import locate_report


@dataclass
class Pair:
    name: str
    labels: LabelSet
    gold: Report
    draft: Report
    judged: JudgedPair


def _pairs(data: Path, shared: Path, gold_dir: Path, mirrors: Path, model: str) -> list[Pair]:
    sim = backend("embed")
    out: list[Pair] = []
    files = sorted(data.glob("*.labels.json"))
    files += sorted(shared.glob("*.labels.json")) if shared.is_dir() else []
    for path in files:
        labels = load_labels(path)
        if path.parent == data:
            gold_path = labels.gold_path(gold_dir)
        else:
            gold_path = (path.parent / labels.gold).resolve()
        gold = load(gold_path, "gold")
        draft = load(labels.draft_path, "draft")
        check_complete(labels, gold, draft)
        name = labels.name if path.parent == data else f"shared/{labels.name}"
        saved = path.parent / f"{labels.name}.locations.json"
        if saved.is_file():
            loc, text = cached_locate(saved), cached_fingerprint(saved)
            gw, dw = locate_report(gold, loc, text=text), locate_report(draft, loc, text=text)
            cmap, _ = load_code_map(data / f"{labels.name.rsplit('-', 1)[0]}.codemap.json")
        else:
            from drafter.snapshot import Snapshot
            from evals.evaluate import verifier_locate

            repo = _mirror(mirrors, gold, labels)
            if repo is None:
                print(f"{name}: no mirror to verify witnesses at; skipped", file=sys.stderr)
                continue
            rev = labels.revision or (draft.source.revision if draft.source else "")
            with Snapshot(str(repo), rev) as snap:
                loc = verifier_locate(snap)
                gw, dw = locate_report(gold, loc), locate_report(draft, loc)
                cmap = code_map(snap)
        jp = prepare(gold, draft, gw.by_record, dw.by_record, sim, cmap, model)
        out.append(Pair(name, labels, gold, draft, jp))
    return out


def _mirror(mirrors: Path, gold: Report, labels: LabelSet) -> Path | None:
    """The bare mirror of the pair's system (``<owner>+<name>/repo`` whose name is the
    gold's system name), else None."""
    system = (gold.system or labels.name.split("-")[0]).lower()
    for d in sorted(mirrors.glob("*+*")):
        if d.name.split("+", 1)[1].lower() == system and (d / "repo").exists():
            return d / "repo"
    return None


def _fmt(v: Any) -> str:
    return "  —  " if v is None else f"{v:5.2f}"


def _judge_one(
    p: Pair, judge: JudgeModel | None, cache: AnswerCache, model: str
) -> tuple[JudgeRun | None, np.ndarray | None, str | None]:
    caps = Caps(max_cost=None, max_tokens_total=None, price=table_price(model))
    try:
        run, made = p.judged.judge(judge, cache, caps, model)
    except JudgeCapReached as exc:
        return None, None, str(exc)
    return run, made, None


def report(
    data: Path,
    shared: Path,
    gold_dir: Path,
    mirrors: Path,
    only: list[str] | None,
    model_name: str | None,
    estimate_only: bool,
    why: bool,
    workers: int,
) -> None:
    model = model_name or os.environ.get("DRAFTER_MODEL") or MODEL
    pairs = [
        p for p in _pairs(data, shared, gold_dir, mirrors, model) if not only or p.name in only
    ]
    cache = AnswerCache(data_dir() / "judge-cache")
    price = table_price(model)
    if estimate_only:
        for p in pairs:
            print(f"{p.name:<36} {estimate(p.judged.requests, cache, price).line()}")
        return
    key = os.environ.get("ANTHROPIC_API_KEY") or None
    judge = (
        AnthropicJudge(model, key, timeout=request_timeout(), retries=retry_count())
        if key
        else None
    )
    lock = threading.Lock()
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        results = list(pool.map(lambda p: _judge_one(p, judge, cache, model), pairs))
    print(f"judge {model} against the analysts' labels (mechanical: coverage-mixed)")
    head = (
        f"{'pair':<36} gold draft | mech link P  R  gold= | judge link P  R  gold= | "
        "short R | calls cached   cost  cached$"
    )
    print(head)
    for p, (run, made, err) in zip(pairs, results, strict=True):
        jp = p.judged
        acc = label_matrix(p.labels, jp.gold_ids, jp.draft_ids)
        mech = agreement(jp.mech.links, acc)
        shown = _shortlisted(jp, acc)
        left = f"{p.name:<36} {len(jp.gold_ids):>4} {len(jp.draft_ids):>5} |"
        m = f"   {_fmt(mech['link_p'])} {_fmt(mech['link_r'])} {_fmt(mech['gold_agree'])} |"
        if run is None or made is None:
            with lock:
                print(f"{left}{m}  not judged (short R {_fmt(shown)}): {err}")
            continue
        j = agreement(made, acc)
        cost = "    —" if run.cost is None else f"{run.cost:7.4f}"
        cc = "    —" if run.cached_cost is None else f"{run.cached_cost:7.4f}"
        print(
            f"{left}{m}    {_fmt(j['link_p'])} {_fmt(j['link_r'])} {_fmt(j['gold_agree'])} |"
            f"  {_fmt(shown)} | {run.calls:>5} {run.cached:>6} {cost} {cc}"
        )
        if why:
            _disagreements(p, run, made, acc)


def _shortlisted(jp: JudgedPair, acc: np.ndarray) -> float | None:
    """Share of labelled links whose draft record the judge was shown (its R ceiling)."""
    shown = np.zeros_like(acc)
    col = {d: j for j, d in enumerate(jp.draft_ids)}
    for i, req in enumerate(jp.requests):
        if not isinstance(req, str):
            for d in req.candidates:
                shown[i, col[d]] = True
    n = int(acc.sum())
    return float((shown & acc).sum()) / n if n else None


def _disagreements(p: Pair, run: JudgeRun, made: np.ndarray, acc: np.ndarray) -> None:
    for i, g in enumerate(p.judged.gold_ids):
        said = {p.judged.draft_ids[j] for j in np.nonzero(made[i])[0]}
        lab = {p.judged.draft_ids[j] for j in np.nonzero(acc[i])[0]}
        if said != lab:
            jd = run.judgements[i]
            print(f"    {g}: judge {sorted(said)} labels {sorted(lab)} — {jd.reason}")
