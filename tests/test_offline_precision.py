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
        '        messages = [{"role": "system", "content": system}, {"role": "user", "content": task}]\n'
        "        return self.model.generate(messages)\n\n\n"
        "class Agent(BaseAgent):\n"
        "    def __init__(self, model, structured=False):\n"
        "        if structured:\n"
        "            prompt_templates = yaml.safe_load(\n"
        '                importlib.resources.files("agentlib.prompts").joinpath("structured_agent.yaml").read_text()\n'
        "            )\n"
        "        else:\n"
        "            prompt_templates = yaml.safe_load(\n"
        '                importlib.resources.files("agentlib.prompts").joinpath("agent.yaml").read_text()\n'
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

