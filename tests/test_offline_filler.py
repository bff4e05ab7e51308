"""Offline drafts without filler (issue 26): every witness decides something, every
label matches its witnesses, sibling copies are drafted once, a file written and read
back is an object of its own, claims are whole sentences, and the prose templates do
not garble.  Each test builds its own small repository; none names a real project."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gitrepo import make_repo
from offline_graph import draft_files

from drafter.model import Paragraph, Report
from graph.epistemic.workflow import run_epistemic
from graph.proposers.offline.deciding import deciding_quote, size_bound
from graph.proposers.offline.labels import unsupported
from graph.proposers.offline.sentences import in_example, whole_sentence

# -- 1. the deciding-line rule ---------------------------------------------------------

FRAMING = {
    "agent.py": (
        "import backoff\nimport openai\n\nclient = openai.OpenAI()\n\n\n"
        "@backoff.on_exception(backoff.expo, openai.RateLimitError)\n"
        "def ask_many(prompt, model, n):\n"
        "    out = []\n"
        "    for _ in range(n):\n"
        "        response = client.chat.completions.create(model=model, messages=prompt)\n"
        "        out.append(response)\n"
        "    return out\n\n\n"
        "def run(items, model):\n"
        "    results = []\n"
        "    current_idx = 0\n"
        "    if current_idx < len(items):\n"
        "        print(current_idx)\n"
        "    workers = min(len(items), 8)\n"
        "    for item in items:\n"
        "        results.append(ask_many(item, model, workers))\n"
        "    return results\n\n\n"
        'if __name__ == "__main__":\n'
        '    run(["q"], "m")\n'
    ),
}


@pytest.mark.parametrize(
    ("quote", "decides"),
    [
        ("return {", False),
        ("return output_infos", False),
        ('print(f"score: {s}")', False),
        ("@backoff.on_exception(backoff.expo, openai.RateLimitError)", False),
        ("for _ in range(n_responses):", False),
        ('"name": "bash",', False),
        ("def tool_info():", False),
        ("if current_idx < len(eval_archive):", False),
        ('assert len(response_json) == len(self.output_fields), "not enough"', False),
        ("max_workers = min(len(questions), args.max_workers) if args.mp else 1", False),
        ("return tools_dict[name]['function'](**tool_input)", True),
        ("if np.mean(acc_list) < 0.01 and SEARCHING_MODE:", True),
        ("suite_passed = pass_rate >= threshold", True),
        ("MODEL = 'some-model-name'", True),
        ("role='assistant', model='some-model', temperature=0.5) -> None:", True),
        ('return f"Interval: ({lo:.1f}%, {hi:.1f}%)"', True),
    ],
)
def test_deciding_quote(quote: str, decides: bool) -> None:
    assert deciding_quote(quote) is decides


def test_size_bounds_are_not_score_gates() -> None:
    assert size_bound("if i >= max_steps:")
    assert not size_bound("if score > best_score:")


def test_no_witness_in_a_draft_is_framing(tmp_path: Path) -> None:
    """Decorators, loop headers, prints, bare returns and size bounds are never quoted;
    without the rule the model loop quotes its decorator and its ``for`` header."""
    draft = draft_files(tmp_path, FRAMING, thorough=True)
    code = [w for w in draft.witnesses if w.path.endswith(".py")]
    assert code, "the draft quotes the model call"
    assert all(deciding_quote(w.quote) for w in code), [w.quote for w in code]
    assert all(w.verified for w in draft.witnesses)


# -- 2. labels from the record's own witnesses --------------------------------------------

TWO_SDKS = {
    "llm.py": (
        "import anthropic\nimport openai\n\n\n"
        "def ask(client, model, msgs, system):\n"
        "    if 'claude' in model:\n"
        "        r = client.messages.create(model=model, system=system, messages=msgs)\n"
        "        return r.content[0].text\n"
        "    r = client.chat.completions.create(model=model, messages=msgs)\n"
        "    return r.choices[0].message.content\n"
    ),
    "main.py": (
        "import openai\nfrom llm import ask\n\n\n"
        "def main():\n"
        "    print(ask(openai.OpenAI(), 'gpt-x', [], 'be brief'))\n\n\n"
        'if __name__ == "__main__":\n'
        "    main()\n"
    ),
}


def test_no_label_names_what_its_witnesses_do_not_show(tmp_path: Path) -> None:
    """A file importing two SDKs: the OpenAI-shaped call is an openai endpoint, the
    Messages call an anthropic one (the survey's provider comes from the imports)."""
    draft = draft_files(tmp_path, TWO_SDKS, thorough=True)
    assert all(not unsupported(r) for r in draft.records), [
        (r.label, unsupported(r)) for r in draft.records if unsupported(r)
    ]
    cmps = {r.label: r for r in draft.records_of_kind("CMP")}
    openai_ = [r for label, r in cmps.items() if label.startswith("openai")]
    assert openai_ and all(
        "chat.completions" in w.quote for r in openai_ for w in r.witnesses if "create(" in w.quote
    )


def test_label_check_flags_a_provider_its_quotes_do_not_show() -> None:
    from drafter.model import LineRange, Record, Witness, WitnessBlock

    w = Witness(quote="r = client.chat.completions.create(model=m)", path="x.py")
    rec = Record(
        id="RT-CMP-x", label="anthropic model endpoint: m", blocks=[WitnessBlock(witness=w)]
    )
    assert unsupported(rec) == ["provider anthropic"]
    w2 = Witness(
        quote="subprocess.run(['git', 'clone', url])", path="y.py", lines=LineRange(start=1, end=1)
    )
    rec2 = Record(
        id="RT-BAP-x",
        label="Self-modification loop: notes.md written by a run, then loaded or executed as code",
        blocks=[WitnessBlock(witness=w2)],
    )
    assert "file notes.md" in unsupported(rec2)


# -- 3. sibling folding, 4. stored state -------------------------------------------------

_SEARCH = (
    "import json\nimport os\nimport openai\nimport numpy as np\n"
    "from {d}_prompt import get_prompt\n\n"
    "client = openai.OpenAI()\n\n\n"
    "def get_json_response(msg, model):\n"
    "    r = client.chat.completions.create(model=model, messages=msg)\n"
    "    return json.loads(r.choices[0].message.content)\n\n\n"
    "def evaluate(code):\n"
    "    acc_list = [1, 0]\n"
    "    if np.mean(acc_list) < 0.01:\n"
    "        raise Exception('zero accuracy')\n"
    "    return acc_list\n\n\n"
    "def search(args):\n"
    '    file_path = os.path.join(args.save_dir, f"{{args.name}}_run_archive.json")\n'
    "    if os.path.exists(file_path):\n"
    "        with open(file_path, 'r') as json_file:\n"
    "            archive = json.load(json_file)\n"
    "    else:\n"
    "        archive = []\n"
    "    for n in range(args.generations):\n"
    "        nxt = get_json_response(get_prompt(archive), args.model)\n"
    "        nxt['fitness'] = evaluate(nxt['code'])\n"
    "        archive.append(nxt)\n"
    "        with open(file_path, 'w') as json_file:\n"
    "            json.dump(archive, json_file, indent=4)\n\n\n"
    'if __name__ == "__main__":\n'
    "    import argparse\n"
    "    p = argparse.ArgumentParser()\n"
    "    search(p.parse_args())\n"
)
_PROMPT = (
    "def get_prompt(archive):\n"
    '    return "You are a designer. Propose a new agent. " + str(archive)\n\n\n'
    "def get_init_archive():\n"
    "    return []\n"
)
SIBLINGS = {
    **{f"_{d}/search.py": _SEARCH.format(d=d) for d in ("alpha", "beta", "gamma")},
    **{f"_{d}/{d}_prompt.py": _PROMPT for d in ("alpha", "beta", "gamma")},
    "README.md": "# Demo\n\nRun `python {DOMAIN}/search.py` in a domain folder.\n",
}


@pytest.fixture(scope="module")
def sibling_draft(tmp_path_factory: pytest.TempPathFactory) -> Report:
    return draft_files(tmp_path_factory.mktemp("sib"), SIBLINGS)


def test_sibling_copies_are_drafted_once_naming_the_others(sibling_draft: Report) -> None:
    routes = [r for r in sibling_draft.records_of_kind("RTE") if "search.py" in r.label]
    assert len(routes) == 1, [r.label for r in routes]
    shown = routes[0].witnesses[0].path.split("/")[0]
    others = sorted({"_alpha", "_beta", "_gamma"} - {shown})
    assert f"same in `{others[0]}` and `{others[1]}`" in routes[0].label
    text = " ".join(b.text for b in routes[0].blocks if isinstance(b, Paragraph))
    assert "sibling folders" in text
    # one stored-state object, not three
    stores = [r for r in sibling_draft.records if r.label.startswith("Stored state")]
    assert len(stores) == 1


def test_a_file_written_and_read_back_is_an_object(sibling_draft: Report) -> None:
    store = next(r for r in sibling_draft.records if r.label.startswith("Stored state"))
    assert "_run_archive.json" in store.label
    quotes = [w.quote for w in store.witnesses]
    assert any(q.startswith("file_path = os.path.join(") for q in quotes), quotes
    assert any("json.dump(archive" in q for q in quotes), quotes
    assert any("json.load(json_file)" in q for q in quotes), quotes
    assert all(w.verified for w in store.witnesses)
    # ranked high: it is among the first objects of the draft
    objs = sibling_draft.records_of_kind("OBJ")
    assert store in objs[:2]


# -- 5. claims are whole sentences; few-shot answers are not quoted ------------------------

CLAIMS = {
    "README.md": (
        "# Tool\n\n"
        "Outputs are always saved in the results directory.\n\n"
        "- `agent/` — templates that are never edited by a run\n"
    ),
    "run.py": (
        "def report(patch):\n"
        '    """Write the patch to disk.\n\n'
        "    This is to ensure that the patch never disturbs the repo's\n"
        "    state between runs\n"
        '    """\n'
        '    with open("results/patch.diff", "w") as f:\n'
        "        f.write(patch)\n\n\n"
        'if __name__ == "__main__":\n'
        '    report("x")\n'
    ),
}


def test_claims_are_whole_sentences(tmp_path: Path) -> None:
    draft = draft_files(tmp_path, CLAIMS, thorough=True)
    claims = [r.label for r in draft.records_of_kind("CLM")]
    assert any("Outputs are always saved" in c for c in claims), claims
    assert not any("templates that are never edited" in c for c in claims), claims
    assert not any("This is to ensure" in c for c in claims), claims
    for r in draft.records_of_kind("CLM"):
        lead = next(b.text for b in r.blocks if isinstance(b, Paragraph))
        assert ". Source:" in lead or "! Source:" in lead or "? Source:" in lead, lead


def test_sentence_rules() -> None:
    assert whole_sentence("The code never runs untrusted input.")
    assert not whole_sentence("This is to ensure that the model_patch does not disturb the repo's")
    assert not whole_sentence("**`agent/`** — starting-point templates (read-only)")
    lines = ["Question: how far?", "Explanation [Not provided]:", "It is far.", "So it must be 4."]
    assert in_example(lines, 4)
    assert not in_example(["Rules:", "", "You must answer in JSON."], 3)


# -- epistemic: the same rule, and copies folded ------------------------------------------

_QUERY = (
    "import json\n\n\n"
    "class Agent:\n"
    "    def query(self, response_json, fields):\n"
    "        assert len(response_json) == len(fields), 'not returning enough fields'\n"
    "        output_infos = [response_json[k] for k in fields]\n"
    "        return output_infos\n\n\n"
    "def score_answers(preds, answers):\n"
    "    acc_list = []\n"
    "    for pred, answer in zip(preds, answers):\n"
    "        acc_list.append(1 if pred == answer else 0)\n"
    "    with open('scores.json', 'w') as f:\n"
    "        json.dump({'accuracy': sum(acc_list) / len(acc_list)}, f)\n"
    "    return acc_list\n"
)


def test_epistemic_witnesses_decide_and_copies_fold(tmp_path: Path) -> None:
    files = {"a/run.py": _QUERY, "b/run.py": _QUERY, "main.py": "print(1)\n"}
    repo = make_repo(tmp_path / "r", files)
    runtime = draft_files(tmp_path / "rt", files)
    rt_path = tmp_path / "rt.json"
    rt_path.write_text(json.dumps(runtime.model_dump(mode="json")))
    epi = run_epistemic(str(repo), "HEAD", rt_path, data_dir=tmp_path / "data").report
    assert epi is not None
    quotes = [w.quote for w in epi.witnesses]
    assert "return output_infos" not in quotes, quotes
    assert not any(q.startswith("assert len(") for q in quotes), quotes
    checks = [r for r in epi.records_of_kind("RTE") if "score_answers" in r.label]
    assert len(checks) == 1 and "copy" in checks[0].label, [r.label for r in epi.records]


# -- issue 24 point 12: prose templates ---------------------------------------------------

LOADER = {
    "plugins.py": (
        "import importlib.util\n\n\n"
        "def load(f):\n"
        '    spec = importlib.util.spec_from_file_location("plugin", f)\n'
        "    module = importlib.util.module_from_spec(spec)\n"
        "    spec.loader.exec_module(module)\n"
        "    return module.run()\n\n\n"
        'if __name__ == "__main__":\n'
        '    load("p.py")\n'
    ),
}


def test_loaded_code_channel_reads_as_a_sentence(tmp_path: Path) -> None:
    draft = draft_files(tmp_path, LOADER, thorough=True)
    bap = next(r for r in draft.records_of_kind("BAP") if r.label.startswith("Loaded code"))
    lead = next(b.text for b in bap.blocks if isinstance(b, Paragraph))
    assert "module from spec and spec from file of" not in lead, lead
    assert "a module made from the spec, then the module executed" in lead, lead
    assert " of spec" not in lead and "(module)" not in lead, lead
