"""The judged eval over every labelled pair, for ``label_agreement.py`` (its table).

Why beside the second-labelling table: a judge's agreement with an analyst reads
against how far two analysts agree with each other, and against the mechanical tier.
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from drafter.config import data_dir
from drafter.defaults import MODEL
from drafter.endpoint import request_timeout, retry_count
from drafter.model import Report
from drafter.prices import Price, table_price
from evals.gold import load
from evals.judge.cache import AnswerCache
from evals.judge.model import AnthropicJudge, JudgeModel, JudgeUnavailable
from evals.judge.pipeline import JudgedPair, prepare
from evals.judge.quotes import restore_all
from evals.judge.request import JudgeRequest
from evals.judge.run import Caps, JudgeCapReached, JudgeRun, estimate
from evals.judge.score import agreement, label_matrix
from evals.labels import LabelSet, check_complete, load_labels
from evals.located import cached_fingerprint, cached_locate
from evals.similarity import backend
from evals.structure import code_map
from evals.structure import load as load_code_map
from evals.witnesses import LocatedWitness, locate_report


@dataclass
class Pair:
    name: str
    labels: LabelSet
    gold: Report
    draft: Report
    judged: JudgedPair


def _label_files(data: Path, shared: Path) -> list[Path]:
    files = sorted(data.glob("*.labels.json"))
    return files + (sorted(shared.glob("*.labels.json")) if shared.is_dir() else [])


def _name(path: Path, data: Path) -> str:
    stem = path.name.removesuffix(".labels.json")
    return stem if path.parent == data else f"shared/{stem}"


def _pair_names(data: Path, shared: Path) -> list[str]:
    return [_name(p, data) for p in _label_files(data, shared)]


def _pairs(
    data: Path,
    shared: Path,
    gold_dir: Path,
    mirrors: Path,
    model: str,
    keep: set[str],
    similarity: str,
) -> list[Pair]:
    sim = backend(similarity)
    out: list[Pair] = []
    for path in _label_files(data, shared):
        if _name(path, data) not in keep:
            continue
        labels = load_labels(path)
        if path.parent == data:
            gold_path = labels.gold_path(gold_dir)
        else:
            gold_path = (path.parent / labels.gold).resolve()
        gold = load(gold_path, "gold")
        draft = load(labels.draft_path, "draft")
        check_complete(labels, gold, draft)
        name = _name(path, data)
        saved = path.parent / f"{labels.name}.locations.json"
        if saved.is_file():
            loc, text = cached_locate(saved), cached_fingerprint(saved)
            gw, dw = locate_report(gold, loc, text=text), locate_report(draft, loc, text=text)
            cmap, _ = load_code_map(data / f"{labels.name.rsplit('-', 1)[0]}.codemap.json")
            shown = _restored(mirrors, gold, draft, labels, gw.by_record, dw.by_record)
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
            shown = None
        jp = prepare(gold, draft, gw.by_record, dw.by_record, sim, cmap, model, shown)
        out.append(Pair(name, labels, gold, draft, jp))
    return out


def _restored(
    mirrors: Path,
    gold: Report,
    draft: Report,
    labels: LabelSet,
    gw: list[list[LocatedWitness]],
    dw: list[list[LocatedWitness]],
) -> tuple[list[list[LocatedWitness]], list[list[LocatedWitness]]] | None:
    """The judge's view of a redacted pair's witnesses: quotes read back from the
    system's mirror at the pair's revision (None when no mirror has that revision)."""
    from drafter.errors import RepoError
    from drafter.snapshot import Snapshot

    repo = _mirror(mirrors, gold, labels)
    rev = labels.revision or (draft.source.revision if draft.source else "")
    if repo is None or not rev:
        return None
    try:
        snap = Snapshot(str(repo), rev)
    except RepoError:
        return None
    with snap:

        def read(path: str) -> str | None:
            try:
                return snap.read_str(path)
            except (RepoError, OSError, UnicodeError):
                return None

        return restore_all(gw, read), restore_all(dw, read)


def _mirror(mirrors: Path, gold: Report, labels: LabelSet) -> Path | None:
    """The bare mirror of the pair's system (``<owner>+<name>/repo`` whose name is the
    gold's system name or the pair name's first word), else None."""
    names = {n.lower() for n in (gold.system, labels.name.split("-")[0]) if n}
    for d in sorted(mirrors.glob("*+*")):
        if d.name.split("+", 1)[1].lower() in names and (d / "repo").exists():
            return d / "repo"
    return None


#: The pairs the issue names (the sample, auto-harness, dgm, the two shared ADAS pairs):
#: what ``--pairs`` judges when not given.
DEFAULT_PAIRS = (
    "sample-offline",
    "auto-harness-bf052bc-offline",
    "dgm-d88fdd6-model",
    "shared/adas-2702bee-model",
    "shared/adas-2702bee-offline-wave1",
)


def _fmt(v: Any) -> str:
    return "  —  " if v is None else f"{v:5.2f}"


def _judge_one(
    p: Pair, judge: JudgeModel | None, cache: AnswerCache, model: str
) -> tuple[JudgeRun | None, np.ndarray | None, str | None]:
    caps = Caps(max_cost=None, max_tokens_total=None, price=table_price(model))
    try:
        run, made = p.judged.judge(judge, cache, caps, model)
    except (JudgeCapReached, JudgeUnavailable) as exc:
        return None, None, str(exc)
    return run, made, None


def chosen(names: list[str], wanted: list[str] | None) -> list[str]:
    """The pair names ``--pairs`` selects (``all``: every one); an unknown name is an
    error that lists the known ones."""
    if wanted is None:
        wanted = list(DEFAULT_PAIRS)
    if wanted == ["all"]:
        return names
    unknown = [w for w in wanted if w not in names]
    if unknown:
        raise SystemExit(f"unknown pair(s) {', '.join(unknown)}; known: {', '.join(names)}")
    return [n for n in names if n in wanted]


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
    similarity: str = "embed",
    reread_path: Path | None = None,
) -> None:
    model = model_name or os.environ.get("DRAFTER_MODEL") or MODEL
    names = _pair_names(data, shared)
    keep = set(chosen(names, only))
    pairs = _pairs(data, shared, gold_dir, mirrors, model, keep, similarity)
    cache = AnswerCache(data_dir() / "judge-cache")
    price = table_price(model)
    if estimate_only:
        _estimates(pairs, cache, price)
        return
    key = os.environ.get("ANTHROPIC_API_KEY") or None
    judge = (
        AnthropicJudge(model, key, timeout=request_timeout(), retries=retry_count())
        if key
        else None
    )
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        results = list(pool.map(lambda p: _judge_one(p, judge, cache, model), pairs))
    print(f"judge {model} against the analysts' labels (mechanical: coverage-mixed)")
    print(
        f"{'pair':<36} gold draft | short R cands | mech link P  R  gold= | "
        "judge link P  R  gold= | calls cached   cost  cached$"
    )
    import reread

    cells = reread.load(reread_path) if reread_path is not None else []
    for p, (run, made, err) in zip(pairs, results, strict=True):
        _row(p, run, made, err, why)
        if cells:
            _reread_row(p, made, cells)


def _reread_row(p: Pair, made: np.ndarray | None, cells: list[dict[str, Any]]) -> None:
    """The same pair against its labels as corrected on a blind re-reading."""
    import reread

    jp = p.judged
    acc = label_matrix(p.labels, jp.gold_ids, jp.draft_ids)
    fixed, added, removed = reread.corrected(acc, jp.gold_ids, jp.draft_ids, cells, p.name)
    mech = agreement(jp.mech.links, fixed)
    m = f"   {_fmt(mech['link_p'])} {_fmt(mech['link_r'])} {_fmt(mech['gold_agree'])} |"
    left = f"{'  re-read: +' + str(added) + ' -' + str(removed) + ' links':<36} {'':>4} {'':>5} |"
    if made is None:
        print(f"{left}{'':>14}|{m}")
        return
    j = agreement(made, fixed)
    jf = f"{_fmt(j['link_p'])} {_fmt(j['link_r'])} {_fmt(j['gold_agree'])}"
    print(f"{left}{'':>14}|{m}    {jf} |")


def _estimates(pairs: list[Pair], cache: AnswerCache, price: Price | None) -> None:
    """What judging each pair would take, and the size of its requests as sent (every
    request, cached or not, so two rubrics' request sizes can be compared)."""
    total = 0
    sizes: list[int] = []
    for p in pairs:
        est = estimate(p.judged.requests, cache, price)
        total += est.calls
        mine = [len(r.text().encode()) for r in p.judged.requests if isinstance(r, JudgeRequest)]
        sizes += mine
        print(f"{p.name:<36} {est.line()}")
        print(f"{'':<36} request bytes: {_bytes(mine)}")
    print(f"requests to answer in all: {total}; request bytes in all: {_bytes(sizes)}")


def _bytes(sizes: list[int]) -> str:
    if not sizes:
        return "none"
    mean = sum(sizes) // len(sizes)
    return f"{sum(sizes):,} over {len(sizes)} (mean {mean:,}, max {max(sizes):,})"


def _row(
    p: Pair, run: JudgeRun | None, made: np.ndarray | None, err: str | None, why: bool
) -> None:
    jp = p.judged
    acc = label_matrix(p.labels, jp.gold_ids, jp.draft_ids)
    mech = agreement(jp.mech.links, acc)
    shown, per_call = _shortlisted(jp, acc)
    left = (
        f"{p.name:<36} {len(jp.gold_ids):>4} {len(jp.draft_ids):>5} |"
        f"   {_fmt(shown)} {per_call:5.1f} |"
    )
    m = f"   {_fmt(mech['link_p'])} {_fmt(mech['link_r'])} {_fmt(mech['gold_agree'])} |"
    if run is None or made is None:
        print(f"{left}{m}  not judged: {err}")
        if why:
            _disagreements(p, None, jp.mech.links, acc, "mech")
        return
    j = agreement(made, acc)
    cost = "    —" if run.cost is None else f"{run.cost:7.4f}"
    cc = "    —" if run.cached_cost is None else f"{run.cached_cost:7.4f}"
    print(
        f"{left}{m}    {_fmt(j['link_p'])} {_fmt(j['link_r'])} {_fmt(j['gold_agree'])} |"
        f" {run.calls:>5} {run.cached:>6} {cost} {cc}"
    )
    if why:
        _disagreements(p, run, made, acc, "judge")
        _disagreements(p, None, jp.mech.links, acc, "mech")


def _shortlisted(jp: JudgedPair, acc: np.ndarray) -> tuple[float | None, float]:
    """Share of labelled links whose draft record the judge was shown (its R
    ceiling), and the mean number of candidates per call."""
    shown = np.zeros_like(acc)
    col = {d: j for j, d in enumerate(jp.draft_ids)}
    sizes = []
    for i, req in enumerate(jp.requests):
        if not isinstance(req, str):
            sizes.append(len(req.candidates))
            for d in req.candidates:
                shown[i, col[d]] = True
    n = int(acc.sum())
    mean = float(np.mean(sizes)) if sizes else 0.0
    return (float((shown & acc).sum()) / n if n else None), mean


def _disagreements(
    p: Pair, run: JudgeRun | None, made: np.ndarray, acc: np.ndarray, tier: str
) -> None:
    for i, g in enumerate(p.judged.gold_ids):
        said = {p.judged.draft_ids[j] for j in np.nonzero(made[i])[0]}
        lab = {p.judged.draft_ids[j] for j in np.nonzero(acc[i])[0]}
        if said != lab:
            extra, missed = sorted(said - lab), sorted(lab - said)
            reason = f" — {run.judgements[i].reason}" if run is not None else ""
            print(f"    [{tier}] {g}: +{extra} -{missed}{reason}")
