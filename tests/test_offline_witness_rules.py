"""Witness rules of the offline drafter, through the real graph on a repository built
here: the lines an analyst quotes for how the next parent is chosen (the score
transform and the weighted draw of the richest selection method)."""

from __future__ import annotations

from pathlib import Path

import pytest
from offline_graph import draft_files

from drafter.model import Report

LOOP_REPO = {
    "README.md": "# Evolver\n\nRun it with `python evolve.py`.\n",
    "llm.py": (
        "import litellm\n\n"
        'BIG_MODEL = "vendor/big-model-1"\n'
        'SMALL_MODEL = "vendor/small-model-2"\n\n\n'
        "def ask(prompt, model):\n"
        "    return litellm.completion(model=model, messages=[prompt])\n"
    ),
    "mutation_hint.py": (
        "import random\n\n\n"
        "def hint(text):\n"
        "    if random.random() < 0.25:\n"
        "        return text + ' (try something bold)'\n"
        "    return text\n"
    ),
    "judge.py": (
        "from llm import ask\n\n"
        "judge_model = 'vendor/judge-3'\n\n\n"
        "def judge(text):\n"
        "    return ask('Rate: ' + text, judge_model)\n"
    ),
    "evolve.py": (
        "import argparse\nimport json\nimport math\nimport random\n\n"
        "from judge import judge\nfrom llm import BIG_MODEL, ask\n\n\n"
        "class Mutator:\n"
        "    def __init__(self):\n"
        "        self.mutate_model = BIG_MODEL\n\n"
        "    def mutate(self, parent):\n"
        "        return ask(str(parent), self.mutate_model)\n\n\n"
        "def pick_parents(archive, method, n):\n"
        "    scores = [a['score'] for a in archive]\n"
        "    if method == 'prop':\n"
        "        scores = [math.exp(s) for s in scores]\n"
        "        probs = [s / sum(scores) for s in scores]\n"
        "        return random.choices(archive, probs, k=n)\n"
        "    elif method == 'child_prop':\n"
        "        scores = [1 / (1 + math.exp(-10 * (s - 0.5))) for s in scores]\n"
        "        counts = [1 / (1 + a['children']) for a in archive]\n"
        "        probs = [s * c for s, c in zip(scores, counts)]\n"
        "        probs = [p / sum(probs) for p in probs]\n"
        "        return random.choices(archive, probs, k=n)\n"
        "    best = max(archive, key=lambda a: a['score'])\n"
        "    return [best] * n\n\n\n"
        "def main():\n"
        "    ap = argparse.ArgumentParser()\n"
        "    ap.add_argument('--method', default='child_prop')\n"
        "    args = ap.parse_args()\n"
        "    archive = [{'score': 0.5, 'children': 0}]\n"
        "    for gen in range(10):\n"
        "        for parent in pick_parents(archive, args.method, 2):\n"
        "            out = Mutator().mutate(parent)\n"
        "            score = float(judge(out))\n"
        "            if score >= parent['score']:\n"
        "                archive.append({'score': score, 'children': 0})\n"
        "        with open('archive.jsonl', 'a') as f:\n"
        "            f.write(json.dumps(archive))\n\n\n"
        'if __name__ == "__main__":\n'
        "    main()\n"
    ),
}


@pytest.fixture(scope="module")
def loop_draft(tmp_path_factory: pytest.TempPathFactory) -> Report:
    root = tmp_path_factory.mktemp("loop")
    return draft_files(root, LOOP_REPO, system="evolver")


def test_selection_formula_quotes_the_transform_and_the_weighted_draw(loop_draft: Report) -> None:
    """The score transform and the draw of the richest method lead; the simpler
    method's lines (its special case) are not what is quoted first."""
    quoted = [(w.path, w.lines.start if w.lines else 0, w.quote) for w in loop_draft.witnesses]
    scores = [r for r in loop_draft.records_of_kind("OBJ") if r.id.startswith("RT-OBJ-scores")] + [
        r for r in loop_draft.records_of_kind("RTE")
    ]
    firsts = [[w.quote for w in r.witnesses][:2] for r in scores]
    assert any(
        q[0].startswith("scores = [1 / (1 + math.exp(-10")
        and q[1].startswith("return random.choices")
        for q in firsts
        if len(q) == 2
    ), (firsts, quoted)
    # both methods draw with the same text; the quote is pinned to the richer one's line
    draws = {ln for p, ln, q in quoted if q.startswith("return random.choices")}
    src = LOOP_REPO["evolve.py"].splitlines()
    richer = [i for i, ln in enumerate(src, 1) if "return random.choices" in ln][-1]
    assert draws == {richer}, (draws, richer)
    assert all(w.verified for w in loop_draft.witnesses)


def test_a_coin_flip_is_not_a_score_gate(loop_draft: Report) -> None:
    """``random.random() < 0.25`` picks a branch; no scores object is made of it."""
    assert not any(w.path == "mutation_hint.py" for w in loop_draft.witnesses)
    assert not any("mutation_hint" in r.label for r in loop_draft.records)


def test_model_pinned_in_a_setting_is_a_component_quoted_by_its_setting(
    loop_draft: Report,
) -> None:
    """Calls pass the model as a parameter; the component quotes the constant that names
    it and the setting that takes it over, and a lone pinned name beside wrapper calls
    is a component too.  A file's second, unused model name (a menu) is not."""
    cmps = {r.label: [w.quote for w in r.witnesses] for r in loop_draft.records_of_kind("CMP")}
    big = next(q for label, q in cmps.items() if "BIG_MODEL" in label and "pinned" in label)
    assert big[:2] == ['BIG_MODEL = "vendor/big-model-1"', "self.mutate_model = BIG_MODEL"]
    judge = [label for label in cmps if "judge_model" in label]
    assert len(judge) == 1 and judge[0].startswith("Grader model pinned"), cmps
    assert cmps[judge[0]][0] == "judge_model = 'vendor/judge-3'"
    assert not any("SMALL_MODEL" in label for label in cmps), cmps


PATCH_REPO = {
    "README.md": "# Improver\n\nRun it with `python loop.py`.\n",
    "llm.py": (
        "import litellm\n\n\n"
        "def ask(prompt, model):\n"
        "    return litellm.completion(model=model, messages=[prompt])\n"
    ),
    "agent_run.py": (
        "import subprocess\n\nfrom llm import ask\n\n\n"
        "def main():\n"
        '    ask("edit the code", "vendor/m")\n'
        '    model_patch = subprocess.run(["git", "diff"], capture_output=True).stdout\n'
        '    with open("model_patch.diff", "w") as f:\n'
        "        f.write(model_patch)\n\n\n"
        'if __name__ == "__main__":\n'
        "    main()\n"
    ),
    "harness.py": (
        "def save_prediction(pred, patch_path):\n"
        '    with open(patch_path, "w") as f:\n'
        '        f.write(pred["patch"])\n'
    ),
    "loop.py": (
        "import subprocess\n\nfrom harness import save_prediction\n\n\n"
        "def step():\n"
        '    save_prediction({"patch": "x"}, "pred_patch.diff")\n'
        '    subprocess.run(["docker", "exec", "box", "python", "agent_run.py"])\n'
        '    subprocess.run("patch -p1 < parent_patch.diff", shell=True)\n\n\n'
        'if __name__ == "__main__":\n'
        "    step()\n"
    ),
}


def test_self_modification_quotes_the_agent_write_and_the_line_making_the_patch(
    tmp_path: Path,
) -> None:
    """The patch written where the model works (not a harness that only carries a
    prediction's patch) is the write side, with the line that makes the diff."""
    draft = draft_files(tmp_path, PATCH_REPO, system="improver")
    loop = next(r for r in draft.records_of_kind("BAP") if r.id.startswith("RT-BAP-self-mod"))
    quoted = [(w.path, w.quote) for w in loop.witnesses]
    assert quoted[0] == (
        "agent_run.py",
        'with open("model_patch.diff", "w") as f: f.write(model_patch)',
    )
    assert (
        "agent_run.py",
        'model_patch = subprocess.run(["git", "diff"], capture_output=True).stdout',
    ) in quoted
    assert any("patch -p1" in q for _, q in quoted), quoted
    assert not any(p == "harness.py" for p, _ in quoted), quoted
    assert all(w.verified for w in draft.witnesses)


LEDGER_REPO = {
    "README.md": "# Tuner\n\nRun `python setup_run.py`, then `python gate.py` each iteration.\n",
    "setup_run.py": (
        'LEDGER = "runs/ledger.tsv"\n\n\n'
        "def init_runs():\n"
        '    with open(LEDGER, "w") as f:\n'
        '        f.write("iteration\\tscore\\n")\n'
        '    with open("runs/notes.md", "w") as f:\n'
        '        f.write("# notes\\n")\n\n\n'
        "def seed(score):\n"
        '    with open(LEDGER, "a") as f:\n'
        '        f.write(f"0\\t{score}\\n")\n\n\n'
        'if __name__ == "__main__":\n'
        "    init_runs()\n"
        "    seed(0.0)\n"
    ),
    "tracker.py": (
        'LEDGER = "runs/ledger.tsv"\n\n\n'
        "def record(row):\n"
        '    with open(LEDGER, "a") as f:\n'
        "        f.write(row)\n\n\n"
        'if __name__ == "__main__":\n'
        '    record("1\\t0.5\\n")\n'
    ),
    "gate.py": (
        'LEDGER = "runs/ledger.tsv"\n\n\n'
        "def best_score():\n"
        "    with open(LEDGER) as f:\n"
        '        scores = [float(line.split("\\t")[1]) for line in f.readlines()[1:]]\n'
        "    return max(scores) if scores else None\n\n\n"
        "def passes(val):\n"
        "    best = best_score()\n"
        "    return best is None or val >= best\n\n\n"
        'if __name__ == "__main__":\n'
        "    print(passes(0.7))\n"
    ),
}


def test_retained_store_quotes_the_append_that_grows_it_and_its_gated_read(
    tmp_path: Path,
) -> None:
    """The store a gate decides from is quoted by the step that appends to it (not the
    setup that creates and seeds it) and by the read beside the decision."""
    draft = draft_files(tmp_path, LEDGER_REPO, system="tuner")
    store = next(
        r
        for r in draft.records_of_kind("OBJ")
        if any("ledger" in w.quote.lower() or "LEDGER" in w.quote for w in r.witnesses)
    )
    quoted = [(w.path, w.quote) for w in store.witnesses]
    assert quoted[0] == ("tracker.py", 'with open(LEDGER, "a") as f: f.write(row)'), quoted
    assert ("gate.py", "with open(LEDGER) as f:") in quoted, quoted
    assert all(w.verified for w in draft.witnesses)


GATE_REPO = {
    "README.md": (
        "# Trainer\n\nRun `python main.py`, `python explore.py`, `python report.py`, then\n"
        "`python promote.py --val 0.7`.\n"
    ),
    "main.py": (
        "import litellm\n\n\n"
        "def main():\n"
        '    out = litellm.completion(model="vendor/m", messages=["go"])\n'
        '    with open("out.txt", "w") as f:\n'
        "        f.write(str(out))\n\n\n"
        'if __name__ == "__main__":\n'
        "    main()\n"
    ),
    **{
        f"{name}.py": (
            "import subprocess\n\nimport litellm\n\n\n"
            f"def {name}():\n"
            f'    out = litellm.completion(model="vendor/m", messages=["{name}"])\n'
            '    subprocess.run(["echo", str(out)], check=True)\n\n\n'
            'if __name__ == "__main__":\n'
            f"    {name}()\n"
        )
        for name in ("explore", "report")
    },
    "promote.py": (
        "import argparse\nimport json\n\nimport litellm\n\n\n"
        "def promote(val, best_score):\n"
        '    note = litellm.completion(model="vendor/m", messages=["judge"])\n'
        "    kept = [note]\n"
        "    if val >= best_score:\n"
        "        kept.append(val)\n"
        "    return kept\n\n\n"
        'if __name__ == "__main__":\n'
        "    ap = argparse.ArgumentParser()\n"
        '    ap.add_argument("--val", type=float)\n'
        "    args = ap.parse_args()\n"
        "    print(json.dumps(promote(args.val, 0.5)))\n"
    ),
}


def test_scores_only_a_secondary_route_reaches_keep_their_record(tmp_path: Path) -> None:
    """A secondary route may be cut by the budget, so it does not stand in for the
    scores object of the file it reaches: the gate stays quoted with a small budget."""
    draft = draft_files(tmp_path, GATE_REPO, system="trainer", max_records=4)
    quotes = [w.quote for w in draft.witnesses]
    assert "if val >= best_score:" in quotes, [r.label for r in draft.records]
    assert all(w.verified for w in draft.witnesses)
