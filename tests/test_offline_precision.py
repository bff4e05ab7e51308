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
        "    top = max(zip(preds, golds), key=lambda pg: len(pg[0]))\n"
        "    score_table = np.zeros([len(golds), len(preds)])\n"
        "    correct = sum(1 for p, g in zip(preds, golds) if p == g)\n"
        "    accuracy_score = correct / len(golds)\n"
        "    if accuracy_score >= 0.8:\n"
        "        return accuracy_score, score_table, n_workers, top\n"
        "    return 0.0, score_table, n_workers, top\n"
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
    the aggregation, the threshold and a ``max`` by a key are.  A file with nothing
    but such draws and an answer pulled from an output (no score formed from it) has
    no scores object."""
    draft = draft_files(tmp_path, SCORE_REPO, system="grader", thorough=True)
    scores = [r for r in draft.records_of_kind("OBJ") if r.id.startswith("RT-OBJ-scores")]
    quotes = [(w.path, w.quote) for r in scores for w in r.witnesses]
    assert ("metrics.py", "accuracy_score = correct / len(golds)") in quotes, quotes
    assert ("metrics.py", "if accuracy_score >= 0.8:") in quotes, quotes
    # a pick by a key ranks by merit even with no score named
    assert ("metrics.py", "top = max(zip(preds, golds), key=lambda pg: len(pg[0]))") in quotes
    bad = [q for q in quotes if any(b in q[1] for b in NOT_SCORES)]
    assert not bad, bad
    assert not any("ids.py" in r.label for r in scores), [r.label for r in scores]
    assert all(w.verified for w in draft.witnesses)


PROMPT_REPO = {
    "README.md": "# Agentlib\n\nA library: `from agentlib.agents import Agent`.\n",
    "agentlib/__init__.py": "",
    "agentlib/prompts/agent.yaml": (
        "system_prompt: |-\n"
        "  You are an assistant who solves tasks step by step. You must answer in JSON.\n"
        "  Always explain your reasoning before you give the final answer.\n"
    ),
    "agentlib/prompts/structured_agent.yaml": (
        "system_prompt: |-\n"
        "  You are an assistant who answers with structured output only. You must not chat.\n"
        "  Always return one JSON object that follows the schema you are given.\n"
    ),
    "agentlib/models.py": (
        "import litellm\n\n\n"
        "class Model:\n"
        "    def __init__(self, model_id):\n"
        "        self.model_id = model_id\n\n"
        "    def generate(self, messages):\n"
        "        return litellm.completion(model=self.model_id, messages=messages)\n"
    ),
    "agentlib/agents.py": (
        "import importlib.resources\n\nimport yaml\n\n\n"
        "class BaseAgent:\n"
        "    def __init__(self, model, prompt_templates=None):\n"
        "        self.model = model\n"
        "        self.prompt_templates = prompt_templates or {}\n\n"
        "    def step(self, task):\n"
        '        system = self.prompt_templates["system_prompt"]\n'
        '        messages = [{"role": "system", "content": system}, '
        '{"role": "user", "content": task}]\n'
        "        return self.model.generate(messages)\n\n\n"
        "class Agent(BaseAgent):\n"
        "    def __init__(self, model, structured=False):\n"
        "        if structured:\n"
        "            prompt_templates = yaml.safe_load(\n"
        '                importlib.resources.files("agentlib.prompts")'
        '.joinpath("structured_agent.yaml").read_text()\n'
        "            )\n"
        "        else:\n"
        "            prompt_templates = yaml.safe_load(\n"
        '                importlib.resources.files("agentlib.prompts")'
        '.joinpath("agent.yaml").read_text()\n'
        "            )\n"
        "        super().__init__(model, prompt_templates=prompt_templates)\n"
    ),
    "tests/test_agent.py": (
        "from agentlib.agents import Agent\nfrom agentlib.models import Model\n\n\n"
        "def test_agent():\n"
        '    model = Model("vendor/tiny")\n'
        '    assert Agent(model).step("2+2") is not None\n'
    ),
}


def test_prompt_file_read_into_an_attribute_is_followed_to_the_model_that_gets_it(
    tmp_path: Path,
) -> None:
    """A YAML prompt read in a constructor, handed on as ``prompt_templates`` and used by
    a method that calls the model object is sent to a model: its prompt object and its
    authority path say where, not a test's model and not "read by code".  A file whose
    name ends another's (``structured_agent.yaml``) is read at its own line."""
    draft = draft_files(tmp_path, PROMPT_REPO, system="agentlib", thorough=True)
    text = {r.label: " ".join(getattr(b, "text", "") for b in r.blocks) for r in draft.records}
    for name in ("agent.yaml", "structured_agent.yaml"):
        bap = f"Prompt file agentlib/prompts/{name} to the model"
        assert bap in text, sorted(text)
        assert "BaseAgent.step() in agentlib/agents.py:14" in text[bap], text[bap]
        assert "tests/" not in text[bap], text[bap]
    obj = next(label for label in text if label.startswith("Shipped prompt files in agentlib/"))
    assert "sends it to a model: BaseAgent.step()" in text[obj], text[obj]
    bap_ = next(r for r in draft.records if r.label.endswith("structured_agent.yaml to the model"))
    assert any('"structured_agent.yaml"' in w.quote for w in bap_.witnesses), bap_.witnesses
    assert not any('"agent.yaml"' in w.quote for w in bap_.witnesses), bap_.witnesses
    assert all(w.verified for w in draft.witnesses)


def _search_py(extra: str = "") -> str:
    return (
        "import argparse\nimport json\nimport os\n\nimport litellm\n\n\n"
        "def search(args):\n"
        '    file_path = os.path.join(args.save_dir, f"{args.expr_name}_run_archive.json")\n'
        "    if os.path.exists(file_path):\n"
        '        with open(file_path, "r") as json_file:\n'
        "            archive = json.load(json_file)\n"
        "    else:\n"
        "        archive = []\n"
        '    out = litellm.completion(model="vendor/m", messages=[str(archive)])\n'
        "    archive.append(str(out))\n"
        f"{extra}"
        '    with open(file_path, "w") as json_file:\n'
        "        json.dump(archive, json_file, indent=4)\n\n\n"
        "def parse():\n"
        "    ap = argparse.ArgumentParser()\n"
        '    ap.add_argument("--save_dir", default="results")\n'
        '    ap.add_argument("--expr_name", default="run")\n'
        "    return ap.parse_args()\n\n\n"
        'if __name__ == "__main__":\n'
        "    search(parse())\n"
    )


STORE_REPO = {
    "README.md": (
        "# Searcher\n\nRun `python _a/search.py`, `python _b/search.py` or `python _c/search.py`.\n"
    ),
    # the first copy in path order is the odd one out: the copy kept is planned second
    "_a/search.py": _search_py('    with open("notes.txt", "w") as f:\n        f.write("x")\n'),
    "_b/search.py": _search_py(),
    "_c/search.py": _search_py(),
}


def test_stored_state_id_names_its_file_without_a_plan_order_suffix(tmp_path: Path) -> None:
    """The run archive every sibling copy writes and reads back is one object whose ID
    comes from the file it names, whichever copy the folding kept."""
    draft = draft_files(tmp_path, STORE_REPO, system="searcher")
    stores = [r for r in draft.records_of_kind("OBJ") if r.label.startswith("Stored state")]
    assert [r.id for r in stores] == ["RT-OBJ-run-archive-json"], [
        (r.id, r.label) for r in draft.records
    ]
    ids = [r.id for r in draft.records]
    assert len(ids) == len(set(ids)), ids


def _state_py(step: str) -> str:
    return (
        "import json\nimport os\n\nimport litellm\n\n\n"
        f"def {step}(out_dir):\n"
        '    path = os.path.join(out_dir, "state.json")\n'
        "    state = {}\n"
        "    if os.path.exists(path):\n"
        "        with open(path) as f:\n"
        "            state = json.load(f)\n"
        f'    state["{step}"] = str(litellm.completion(model="vendor/m", messages=["{step}"]))\n'
        '    with open(path, "w") as f:\n'
        "        json.dump(state, f)\n\n\n"
        'if __name__ == "__main__":\n'
        f'    {step}("out")\n'
    )


def test_stored_states_of_one_name_are_told_apart_by_their_file(tmp_path: Path) -> None:
    """Two scripts keeping a file of the same name get IDs that say which script's it
    is, not a number that says which was planned first."""
    files = {
        "README.md": "# Two\n\nRun `python train.py`, then `python tune.py`.\n",
        "train.py": _state_py("train"),
        "tune.py": _state_py("tune"),
    }
    draft = draft_files(tmp_path, files, system="two")
    stores = sorted(r.id for r in draft.records_of_kind("OBJ") if r.label.startswith("Stored"))
    assert stores == ["RT-OBJ-state-json", "RT-OBJ-state-json-tune"], stores
