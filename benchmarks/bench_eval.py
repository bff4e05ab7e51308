"""Benchmark: evaluation time for a 60-record gold against a 100-record draft.

Builds a generated 200-file repository in a temporary directory, a gold report of 60
records (12 per runtime kind, 2 witnesses each) and a draft of 100 records: 50 that
paraphrase gold records and quote the same or nearby lines, 50 unrelated, plus 10%
mutated quotes that the verifier must reject.  Prints the time of each step (witness
location with the real verifier, alignment with each similarity backend, scoring,
HTML) for a cold and a warm run.

    .venv/bin/python benchmarks/bench_eval.py
"""

from __future__ import annotations

import os
import random
import subprocess
import tempfile
import time
from pathlib import Path

from drafter.model import (
    KIND_ORDER,
    KIND_SECTION,
    Paragraph,
    Record,
    RecordSection,
    Report,
    ReportType,
    Witness,
    WitnessBlock,
)
from drafter.snapshot import Snapshot
from evals.evaluate import evaluate
from evals.html import render_html

FILES = 200
LINES = 60
WORDS = (
    "agent model tool prompt score gate record trace shell file cache plan retry budget "
    "policy reward loop memory index query schema token parse verify commit revert"
).split()


def build_repo(root: Path, rng: random.Random) -> dict[str, list[str]]:
    files: dict[str, list[str]] = {}
    for i in range(FILES):
        lines = [f'"""module {i}: {" ".join(rng.sample(WORDS, 6))}."""', ""]
        for j in range((LINES - 2) // 3):
            a, b = rng.sample(WORDS, 2)
            lines += [f"def {a}_{b}_{i}_{j}(x):", f"    return x.{a}({b!r}, {i * 100 + j})", ""]
        path = f"pkg/m{i:03d}.py"
        files[path] = lines
        (root / "pkg").mkdir(parents=True, exist_ok=True)
        (root / path).write_text("\n".join(lines) + "\n")
    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": "2025-01-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2025-01-01T00:00:00Z",
    }
    git = ["git", "-c", "user.name=b", "-c", "user.email=b@b"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "gen"]):
        subprocess.run([*git, *args], cwd=root, env=env, check=True)
    return files


def witness(files: dict[str, list[str]], rng: random.Random, mutate: bool = False) -> Witness:
    path = rng.choice(sorted(files))
    lines = files[path]
    k = rng.randrange(2, len(lines) - 2)
    quote = lines[k].strip() or lines[k + 1].strip()
    if mutate:
        quote = quote[:-1] + ("X" if quote[-1] != "X" else "Y")
    return Witness(quote=quote, path=path)


def record(
    rid: str, rng: random.Random, witnesses: list[Witness], label: str | None = None
) -> Record:
    words = " ".join(rng.sample(WORDS, 12))
    return Record(
        id=rid,
        label=label or " ".join(rng.sample(WORDS, 3)).capitalize(),
        blocks=[
            Paragraph(text=f"This record describes how the {words}."),
            *[WitnessBlock(witness=w) for w in witnesses],
        ],
    )


def report(records: list[Record]) -> Report:
    sections = [
        RecordSection(title=KIND_SECTION[k], records=[r for r in records if r.kind == k])
        for k in KIND_ORDER
    ]
    return Report(system="bench", type=ReportType.runtime, sections=sections)


def build_reports(files: dict[str, list[str]], rng: random.Random) -> tuple[Report, Report]:
    gold: list[Record] = []
    for n in range(60):
        kind = KIND_ORDER[n % 5]
        gold.append(record(f"RT-{kind}-g{n}", rng, [witness(files, rng), witness(files, rng)]))
    draft: list[Record] = []
    for n, g in enumerate(gold[:50]):
        ws = [w if rng.random() > 0.1 else witness(files, rng, mutate=True) for w in g.witnesses]
        words = g.paragraphs[0].split()
        rng.shuffle(words)
        draft.append(
            Record(
                id=f"RT-{g.kind}-d{n}",
                label=g.label,
                blocks=[Paragraph(text=" ".join(words)), *[WitnessBlock(witness=w) for w in ws]],
            )
        )
    for n in range(50, 100):
        kind = KIND_ORDER[n % 5]
        draft.append(record(f"RT-{kind}-d{n}", rng, [witness(files, rng), witness(files, rng)]))
    return report(gold), report(draft)


def main() -> None:
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        files = build_repo(root, rng)
        gold, draft = build_reports(files, rng)
        print(
            f"gold: {len(gold.records)} records, {len(gold.witnesses)} witnesses; "
            f"draft: {len(draft.records)} records, {len(draft.witnesses)} witnesses; "
            f"repository: {FILES} files"
        )
        for similarity in ("embed", "embed", "lexical"):
            with Snapshot(root, "HEAD") as snap:
                t0 = time.perf_counter()
                card = evaluate(gold, draft, snap, similarity=similarity)
                t1 = time.perf_counter()
                html = render_html(card)
                t2 = time.perf_counter()
            tm = card.timings
            o = card.overall
            true_pairs = sum(
                p.gold.slug[1:] == p.draft.slug[1:]
                for ka in card.alignment.values()
                for p in ka.pairs
            )
            print(
                f"{similarity:8s} total {t1 - t0:6.3f}s  locate {tm['locate_s']:.3f}s  "
                f"align {tm['align_s']:.3f}s  score {tm['score_s']:.4f}s  html {t2 - t1:.3f}s "
                f"({len(html) // 1024} KiB)  |  matched {o.matched} ({true_pairs} of 50 true)  "
                f"P {o.precision:.2f} "
                f"R {o.recall:.2f}  line R {o.line_recall:.2f}  valid {o.validity:.2f}"
            )


if __name__ == "__main__":
    main()
