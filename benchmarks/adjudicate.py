"""A blind file of the judge's disagreements with the labels, for a third reader.

Why blind: when the judge and a label differ, either may be wrong (two analysts
labelling the same pair agree at link recall 0.76-0.77).  A reader told which side
said what leans to it; so each item shows only the two records and one neutral
question, and which answer the label gave and which the judge gave goes to a key
file the reader does not open.

    .venv/bin/python benchmarks/adjudicate.py [--out /work/team/adjudicate] [--pairs ...]

It reads the judge's cached answers only (no key needed, no call made), those of the
current rubric (:data:`evals.judge.cache.VERSION`): a pair whose requests are not all
cached is reported and skipped.  It also lists the shortlist
misses (labelled links whose draft record the judge was never shown) with the rank
the draft record had in the shortlist's kind-free mixed score.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

QUESTION = (
    "Does this draft record cover this reference record — as best (same subject, states "
    "the point), as also (a named part: parallel copy / split part / missing step), or "
    "not at all? One line why."
)


def label_roles(path: Path) -> dict[tuple[str, str], tuple[str, str]]:
    """(gold, draft) -> (role, reason) from a gold-record label file."""
    data = json.loads(path.read_text(encoding="utf-8"))
    rows = data.get("gold_records") or data.get("labels") or []
    out: dict[tuple[str, str], tuple[str, str]] = {}
    for row in rows:
        if row.get("best"):
            out[(row["gold"], row["best"])] = ("best", row.get("reason", ""))
        for d in row.get("also", []):
            out[(row["gold"], d)] = ("also", row.get("reason", ""))
    return out


def _view(side: Any, index: int, shown: dict[str, Any] | None) -> dict[str, Any]:
    from evals.judge.request import record_view

    if shown is not None:
        return shown
    return record_view(side.records[index], side.witnesses[index])


def _block(title: str, view: dict[str, Any]) -> list[str]:
    lines = [f"**{title}** `{view['id']}` ({view['kind']}): {view['label']}", ""]
    lines += ["    " + ln for ln in view["body"].splitlines()]
    for w in view["witnesses"]:
        lines.append(f"  - `{w['path']}` {w.get('lines') or ''} ({w['status']}): {w['quote']!r}")
    return lines + [""]


def items_of(
    pair: Any,
    run: Any,
    made: np.ndarray,
    acc: np.ndarray,
    read: frozenset[tuple[str, str]] | set[tuple[str, str]] = frozenset(),
) -> list[dict[str, Any]]:
    """Every (reference, draft) cell where the judged links and the labels differ, but
    those a reader has answered already (``read``)."""
    from evals.judge.request import JudgeRequest, records_of_request

    jp = pair.judged
    roles = label_roles(pair.labels.path)
    out: list[dict[str, Any]] = []
    for i, g in enumerate(jp.gold_ids):
        req = jp.requests[i]
        views = records_of_request(req) if isinstance(req, JudgeRequest) else None
        cands = {v["id"]: v for v in views["candidates"]} if views else {}
        jd = run.judgements[i]
        for j, d in enumerate(jp.draft_ids):
            if bool(made[i, j]) == bool(acc[i, j]) or (g, d) in read:
                continue
            judge_role = "best" if jd.best == d else "also" if d in jd.also else "none"
            label_role, label_why = roles.get((g, d), ("none", ""))
            out.append(
                {
                    "pair": pair.name,
                    "gold": g,
                    "draft": d,
                    "shown_to_judge": d in cands,
                    "reference": _view(jp.gold, i, views["reference"] if views else None),
                    "candidate": _view(jp.draft, j, cands.get(d)),
                    "key": {
                        "label": label_role,
                        "label_reason": label_why,
                        "judge": judge_role,
                        "judge_reason": jd.why.get(d, jd.reason),
                    },
                }
            )
    return out


def misses_of(pair: Any, acc: np.ndarray) -> list[dict[str, Any]]:
    """Labelled links whose draft record the shortlist never offered, with the draft
    record's rank by the kind-free mixed score in that reference record's row."""
    from evals.judge.request import JudgeRequest

    jp = pair.judged
    free = jp.mech.kind_free if jp.mech.kind_free is not None else jp.mech.score
    out = []
    for i, g in enumerate(jp.gold_ids):
        req = jp.requests[i]
        shown = set(req.candidates) if isinstance(req, JudgeRequest) else set()
        order = sorted(range(len(jp.draft_ids)), key=lambda j: (-float(free[i, j]), j))
        for j in np.nonzero(acc[i])[0]:
            d = jp.draft_ids[j]
            if d not in shown:
                rank = order.index(int(j)) + 1
                out.append({"pair": pair.name, "gold": g, "draft": d, "kind_free_rank": rank})
    return out


def write(items: list[dict[str, Any]], misses: list[dict[str, Any]], out: Path) -> None:
    from evals.judge.cache import VERSION

    out.mkdir(parents=True, exist_ok=True)
    lines = [
        f"# Blind adjudication items (judge rubric v{VERSION} vs labels)",
        "",
        "For each item read both records (and, if you need, the repository at the pair's",
        "revision) and answer the question. Do not look at key.json before answering.",
        "",
    ]
    key: dict[str, Any] = {}
    for n, it in enumerate(items, start=1):
        iid = f"A{n:03d}"
        key[iid] = {k: it[k] for k in ("pair", "gold", "draft", "shown_to_judge")} | it["key"]
        lines += [f"## {iid} — pair `{it['pair']}`", ""]
        lines += _block("Reference record", it["reference"])
        lines += _block("Draft record", it["candidate"])
        lines += [f"> {QUESTION}", "", "Answer: ", ""]
    # apart from the items: a miss names a labelled link, which a blind reader must not see
    gone = ["# Shortlist misses (labelled links the judge was never shown)", ""]
    for m in misses:
        gone.append(
            f"- `{m['pair']}`: {m['gold']} ← {m['draft']} (kind-free rank {m['kind_free_rank']})"
        )
    (out / "items.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (out / "misses.md").write_text("\n".join(gone) + "\n", encoding="utf-8")
    (out / "key.json").write_text(json.dumps(key, indent=1) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="benchmarks/adjudicate.py")
    ap.add_argument("--out", type=Path, default=Path("/work/team/adjudicate"))
    ap.add_argument("--pairs", nargs="+", default=None)
    ap.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    ap.add_argument(
        "--reread", type=Path, default=None, help="cells read already (default: reread.py's file)"
    )
    a = ap.parse_args(argv)
    import judged
    import reread
    from label_agreement import DATA
    from loso import default_gold_dir

    from drafter.config import data_dir
    from drafter.defaults import MODEL
    from evals.judge.cache import AnswerCache
    from evals.judge.score import agreement, label_matrix

    model = os.environ.get("DRAFTER_MODEL") or MODEL
    gold_dir = default_gold_dir()
    shared = gold_dir.parent / "labels"
    keep = set(judged.chosen(judged._pair_names(DATA, shared), a.pairs))
    pairs = judged._pairs(DATA, shared, gold_dir, a.mirrors, model, keep, "embed")
    cache = AnswerCache(data_dir() / "judge-cache")
    done = reread.load(a.reread or reread.DEFAULT)
    items: list[dict[str, Any]] = []
    misses: list[dict[str, Any]] = []
    for p in pairs:
        run, made, err = judged._judge_one(p, None, cache, model)
        acc = label_matrix(p.labels, p.judged.gold_ids, p.judged.draft_ids)
        if run is None or made is None:
            print(f"{p.name}: not judged from the cache ({err}); skipped", file=sys.stderr)
            continue
        mine = items_of(p, run, made, acc, reread.read_cells(done, p.name))
        lost = misses_of(p, acc)
        items += mine
        misses += lost
        j = agreement(made, acc)
        print(
            f"{p.name:<36} items {len(mine):>3} (judge-only {int((made & ~acc).sum())}, "
            f"label-only {int((acc & ~made).sum())})  shortlist misses {len(lost)}  "
            f"P {j['link_p']:.2f} R {j['link_r']:.2f}"
        )
    write(items, misses, a.out)
    print(f"{len(items)} items, {len(misses)} shortlist misses -> {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
