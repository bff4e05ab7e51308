"""Precision rules of the offline drafter, through the real graph on repositories built
here: what a scores object may quote, prompts loaded from data files, and the IDs of
stored-state objects."""

from __future__ import annotations

from pathlib import Path

from offline_graph import draft_files

SCORE_REPO = {
    "README.md": "# Grader\n\nRun it with `python run_eval.py`.\n",
    "metrics.py": (
        "import random\nimport string\n\nimport numpy as np\n\n\n"
        "def make_id(length=8):\n"
        "    characters = string.ascii_letters\n"
        "    run_id = ''.join(random.choices(characters, k=length))\n"
        "    return run_id\n\n\n"
        "def spread(data, rounds=100):\n"
        "    means = []\n"
        "    for _ in range(rounds):\n"
        "        resample = np.random.choice(data, size=len(data), replace=True)\n"
        "        means.append(resample.mean())\n"
        "    return means\n\n\n"
        "def pick_one(items):\n"
        "    chosen = random.choice(items)\n"
        "    picked = []\n"
        "    picked.append(chosen)\n"
        "    return picked\n\n\n"
        "def grade(preds, golds, workers):\n"
        "    n_workers = min(len(preds), workers)\n"
        "    score_table = np.zeros([len(golds), len(preds)])\n"
        "    correct = sum(1 for p, g in zip(preds, golds) if p == g)\n"
        "    accuracy_score = correct / len(golds)\n"
        "    if accuracy_score >= 0.8:\n"
        "        return accuracy_score, score_table, n_workers\n"
        "    return 0.0, score_table, n_workers\n"
    ),
    "ids.py": (
        "import random\nimport re\n\nimport numpy as np\n\n\n"
        "def token(chars, length):\n"
        "    return ''.join(random.choices(chars, k=length))\n\n\n"
        "def boot(data):\n"
        "    return np.random.choice(data, size=len(data), replace=True)\n\n\n"
        "def parse(text):\n"
        "    answer = re.search(r'= (\\d+)', text).group(1)\n"
        "    return answer\n"
    ),
    "run_eval.py": (
        "import litellm\n\n\n"
        "def main():\n"
        '    out = litellm.completion(model="vendor/m", messages=["solve"])\n'
        "    print(out)\n\n\n"
        'if __name__ == "__main__":\n'
        "    main()\n"
    ),
}

#: Lines of SCORE_REPO that draw, allocate or size things without any score in them.
NOT_SCORES = (
    "random.choices(",
    "np.random.choice(",
    "random.choice(items)",
    "picked.append(chosen)",
    "means.append(",
    "n_workers = min(",
    "score_table = np.zeros(",
)


def test_scores_object_quotes_only_lines_that_compute_or_compare_a_score(
    tmp_path: Path,
) -> None:
    """Identifier draws, bootstrap resamples, an unweighted pick and what it is stored
    into, an allocation and a ``min`` of sizes are not a score's witnesses; the check,
    the aggregation and the threshold are.  A file with nothing but such draws and an
    answer pulled from an output (no score formed from it) has no scores object."""
    draft = draft_files(tmp_path, SCORE_REPO, system="grader", thorough=True)
    scores = [r for r in draft.records_of_kind("OBJ") if r.id.startswith("RT-OBJ-scores")]
    quotes = [(w.path, w.quote) for r in scores for w in r.witnesses]
    assert ("metrics.py", "accuracy_score = correct / len(golds)") in quotes, quotes
    assert ("metrics.py", "if accuracy_score >= 0.8:") in quotes, quotes
    bad = [q for q in quotes if any(b in q[1] for b in NOT_SCORES)]
    assert not bad, bad
    assert not any("ids.py" in r.label for r in scores), [r.label for r in scores]
    assert all(w.verified for w in draft.witnesses)
