"""Offline drafts without filler, second round (issue 26): labels rewritten from their
witnesses (a hard rule, not only a flag), recipe caps counted after sibling folding,
tool records quoting the dispatch that uses the tool, prompts only for text sent to a
model, and stored state only on a primary route.  Each test builds its own small
repository; none names a real project."""

from __future__ import annotations

from pathlib import Path

from offline_graph import draft_files

from graph.proposers.offline.labels import relabel, unsupported

# -- 1. labels rewritten from the record's witnesses -----------------------------------

VARIANTS = {
    "agent/templates/__init__.py": "",
    "agent/templates/alpha.py": (
        "from google.adk.agents import Agent\n\n"
        "MODEL = 'some-model'\n\n\n"
        "def build(tools):\n"
        "    return Agent(\n"
        "        model=MODEL,\n"
        "        instruction='You are a careful agent.',\n"
        "        tools=tools,\n"
        "    )\n\n\n"
        "def build_other(tools):\n"
        "    return Agent(\n"
        "        model=MODEL,\n"
        "        instruction='You are a helpful agent.',\n"
        "        tools=tools,\n"
        "    )\n"
    ),
    "agent/templates/beta.py": (
        "import litellm\n\n"
        "MODEL = 'other-model'\n\n\n"
        "class Runner:\n"
        "    def __init__(self, model_name=None):\n"
        "        self.model_name = model_name\n\n"
        "    async def step(self, messages):\n"
        "        model = self.model_name or MODEL\n"
        "        response = await litellm.acompletion(model=model, messages=messages)\n"
        "        return response\n"
    ),
    "run.py": (
        "import json\nimport subprocess\n\n\n"
        "def main(cmd):\n"
        "    result = subprocess.run(cmd, capture_output=True, text=True, timeout=60)\n"
        "    if result.returncode != 0:\n"
        "        raise SystemExit(1)\n"
        "    with open('train_results.json', 'w') as f:\n"
        "        json.dump({'out': result.stdout}, f)\n"
        "    with open('trace.json', 'w') as f:\n"
        "        json.dump({'err': result.stderr}, f)\n\n\n"
        'if __name__ == "__main__":\n'
        "    main(['echo', 'x'])\n"
    ),
}


def test_labels_name_only_what_their_witnesses_show(tmp_path: Path) -> None:
    """Agent variants on two SDKs (one call's line does not show its SDK) and a route
    whose label lists files its three deciding lines do not quote: every label holds to
    its quotes, and no record is left flagged for it."""
    draft = draft_files(tmp_path, VARIANTS)
    assert draft.records
    assert all(not unsupported(r) for r in draft.records), [
        (r.label, unsupported(r)) for r in draft.records if unsupported(r)
    ]
    assert not [f for r in draft.records for f in r.flags if "label names" in f]
    agents = [r for r in draft.records if r.label.startswith("Agent model")]
    assert agents, [r.label for r in draft.records]
    # the litellm call is quoted, so the label names it; the other SDK is counted
    assert "litellm" in agents[0].label and "google" not in agents[0].label.lower()
    assert any("litellm.acompletion" in w.quote for w in agents[0].witnesses)


def test_relabel_takes_unwitnessed_names_out_of_lists() -> None:
    assert (
        relabel("Agent model (x-sdk, litellm) in a/", ["provider x-sdk"])
        == "Agent model (litellm and 1 more) in a/"
    )
    assert relabel("Run a.py: writes a.json, b.json and 1 more", ["file a.json"]) == (
        "Run a.py: writes b.json and 2 more"
    )
    assert relabel("Run a.py: writes a.json", ["file a.json"]) == "Run a.py: writes 1 file"
    assert relabel("Persisted artifact: a.txt", ["file a.txt"]) == "Persisted artifact: 1 file"
    assert relabel("Objects: a.json, app.py and c.txt", ["file app.py"]) == (
        "Objects: a.json, c.txt and 1 more"
    )
    # a name inside a phrase is not a list item: the label stays (and is flagged)
    phrase = "Loop: notes.md written by a run, then loaded"
    assert relabel(phrase, ["file notes.md"]) == phrase


#: with the primary loop of :data:`PREP`, the helper's file is an artifact, not state
_LOOP = ("README.md", "loop.py")
NAMED_BY_VARIABLE = {
    "data/prepare.py": (
        "import os\nimport requests\n\n"
        "input_file_path = os.path.join(os.path.dirname(__file__), 'input.txt')\n"
        "if not os.path.exists(input_file_path):\n"
        "    with open(input_file_path, 'w') as f:\n"
        "        f.write(requests.get('https://example.invalid/data.txt').text)\n"
        "with open(input_file_path, 'r') as f:\n"
        "    data = f.read()\n"
        "print(len(data))\n"
    ),
}


def test_an_artifact_named_through_a_variable_quotes_its_name(tmp_path: Path) -> None:
    """The label names the file; the write opens it through a variable, so the line that
    names it is quoted too (else the label rule would have to take the name out)."""
    draft = draft_files(tmp_path, {**NAMED_BY_VARIABLE, **{k: PREP[k] for k in _LOOP}})
    art = [r for r in draft.records if "input.txt" in r.label]
    assert art, [r.label for r in draft.records]
    assert any("'input.txt')" in w.quote for w in art[0].witnesses), art[0].witnesses
    assert not unsupported(art[0])


# -- 2. recipe caps counted after sibling folding --------------------------------------

_DOMAINS = ("alpha", "beta", "gamma", "delta", "epsilon")
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
    '    seen_path = os.path.join(args.save_dir, "seen_codes.json")\n'
    "    if os.path.exists(seen_path):\n"
    "        with open(seen_path, 'r') as fh:\n"
    "            seen = json.load(fh)\n"
    "    else:\n"
    "        seen = []\n"
    "    for n in range(args.generations):\n"
    "        nxt = get_json_response(get_prompt(archive), args.model)\n"
    "        nxt['fitness'] = evaluate(nxt['code'])\n"
    "        archive.append(nxt)\n"
    "        seen.append(nxt['code'])\n"
    "        with open(file_path, 'w') as json_file:\n"
    "            json.dump(archive, json_file, indent=4)\n"
    "        with open(seen_path, 'w') as fh:\n"
    "            json.dump(seen, fh)\n\n\n"
    'if __name__ == "__main__":\n'
    "    import argparse\n"
    "    p = argparse.ArgumentParser()\n"
    "    search(p.parse_args())\n"
)
_PROMPT = (
    'SYSTEM = """You are a careful designer of agents. Always answer in JSON."""\n\n\n'
    "def get_prompt(archive):\n"
    '    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": '
    "str(archive)}]\n\n\n"
    "def get_init_archive():\n"
    "    return []\n"
)
FIVE = {
    **{f"_{d}/search.py": _SEARCH.format(d=d) for d in _DOMAINS},
    **{f"_{d}/{d}_prompt.py": _PROMPT for d in _DOMAINS},
    "README.md": "# Demo\n\nRun `python {DOMAIN}/search.py` in a domain folder.\n",
}


def test_caps_count_structures_not_copies(tmp_path: Path) -> None:
    """Five sibling folders, two stored-state files and a prompt in each: every folded
    object names all four other folders (a cap applied before folding lets the copies
    use up its places, and the last folder is named nowhere)."""
    draft = draft_files(tmp_path, FIVE)
    folded = [r for r in draft.records if "same in" in r.label]
    assert folded, [r.label for r in draft.records]
    stores = [r for r in draft.records if r.label.startswith("Stored state")]
    assert len(stores) == 2, [r.label for r in stores]
    prompts = [r for r in draft.records if r.label.startswith("Shipped")]
    assert prompts, [r.label for r in draft.records]
    for r in [*stores, *prompts]:
        shown = r.witnesses[0].path.split("/")[0]
        named = [f"`_{d}`" for d in _DOMAINS if f"_{d}" != shown]
        assert all(n in r.label for n in named), (r.label, named)


# -- 4. stored state only on a primary route ----------------------------------------------

PREP = {
    "README.md": "# Loop\n\nRun the loop with `python loop.py`.\n",
    "loop.py": (
        "import json\nimport os\nimport openai\n\n"
        "client = openai.OpenAI()\n\n\n"
        "def step(archive):\n"
        "    r = client.chat.completions.create(model='m', messages=[{'role': 'user', "
        "'content': str(archive)}])\n"
        "    return r.choices[0].message.content\n\n\n"
        "def main(out):\n"
        '    path = os.path.join(out, "archive.json")\n'
        "    archive = []\n"
        "    if os.path.exists(path):\n"
        "        with open(path) as fh:\n"
        "            archive = json.load(fh)\n"
        "    archive.append(step(archive))\n"
        "    with open(path, 'w') as fh:\n"
        "        json.dump(archive, fh)\n\n\n"
        'if __name__ == "__main__":\n'
        "    main('out')\n"
    ),
    "prepare_data.py": (
        "import json\nimport os\nimport subprocess\n\n\n"
        "def fetch(out):\n"
        '    cache = os.path.join(out, "commits_cache.json")\n'
        "    if os.path.exists(cache):\n"
        "        with open(cache) as fh:\n"
        "            return json.load(fh)\n"
        "    rows = subprocess.run(['git', 'log'], capture_output=True, text=True).stdout\n"
        "    with open(cache, 'w') as fh:\n"
        "        json.dump(rows.splitlines(), fh)\n"
        "    return rows\n\n\n"
        'if __name__ == "__main__":\n'
        "    fetch('data')\n"
    ),
}


def test_stored_state_is_what_a_primary_route_reaches(tmp_path: Path) -> None:
    """The loop the README starts writes and reads back its archive: an object.  A data
    preparation script (a route, ranked below the loop) caches its download the same
    way: not the system's state, no object."""
    draft = draft_files(tmp_path, PREP)
    stores = [r.label for r in draft.records if r.label.startswith("Stored state")]
    assert any("archive.json" in s for s in stores), [r.label for r in draft.records]
    assert not any("commits_cache" in s for s in stores), stores


# -- 3. tools quote the dispatch that runs them; prompts are text sent to a model ---------

AGENT = {
    "tools/__init__.py": "",
    "tools/shell.py": (
        "import subprocess\n\n\n"
        "def tool_info():\n"
        "    return {\n"
        '        "name": "shell",\n'
        '        "description": "Run a shell command in the sandbox and return its output.",\n'
        '        "input_schema": {"type": "object", "properties": {"command": {}}},\n'
        "    }\n\n\n"
        "def tool_function(command):\n"
        "    result = subprocess.run(command, shell=True, capture_output=True, text=True)\n"
        "    return result.stdout\n"
    ),
    "prompts.py": (
        'SYSTEM_PROMPT = """You are a careful coding agent working in a sandbox.\n'
        "You must run the tests before you answer. Never edit files outside the repository.\n"
        'Always explain each change you make in one sentence."""\n'
    ),
    "env_text.py": (
        'SETUP_SH = """#!/bin/bash\n'
        "set -e\n"
        "# You must install the dependencies before you run the tests.\n"
        "pip install -r requirements.txt\n"
        "# Always run the tests from the repository root.\n"
        'python -m pytest -q\n"""\n'
    ),
    "agent.py": (
        "import importlib\n\nimport anthropic\n\n"
        "from env_text import SETUP_SH\nfrom prompts import SYSTEM_PROMPT\n\n"
        "client = anthropic.Anthropic()\n\n\n"
        "def load_tools():\n"
        "    tools_dict = {}\n"
        "    for name in ['shell']:\n"
        "        mod = importlib.import_module(f'tools.{name}')\n"
        "        info = mod.tool_info()\n"
        "        tools_dict[info['name']] = {'info': info, 'function': mod.tool_function}\n"
        "    return tools_dict\n\n\n"
        "def process_tool_call(tools_dict, tool_name, tool_input):\n"
        "    return tools_dict[tool_name]['function'](**tool_input)\n\n\n"
        "def chat(msg, tools_dict):\n"
        "    response = client.messages.create(\n"
        "        model='some-model', system=SYSTEM_PROMPT, max_tokens=100,\n"
        "        messages=[{'role': 'user', 'content': msg}],\n"
        "        tools=[t['info'] for t in tools_dict.values()],\n"
        "    )\n"
        "    for block in response.content:\n"
        "        if block.type == 'tool_use':\n"
        "            process_tool_call(tools_dict, block.name, block.input)\n"
        "    return response\n\n\n"
        "def build_env(path):\n"
        "    with open(path, 'w') as f:\n"
        "        f.write(SETUP_SH)\n\n\n"
        'if __name__ == "__main__":\n'
        "    build_env('setup.sh')\n"
        "    chat('hi', load_tools())\n"
    ),
}


def test_tool_file_quotes_what_runs_it_and_what_it_runs(tmp_path: Path) -> None:
    """A tool file that only declares its tool (a schema, ``def`` lines) is drafted from
    its schema's name, the command it runs and the dispatch that calls it, never from
    ``return {`` or a ``def`` line."""
    draft = draft_files(tmp_path, AGENT)
    tool = next(r for r in draft.records if r.label.endswith("tools/shell.py"))
    quotes = [w.quote for w in tool.witnesses]
    assert any("subprocess.run(command" in q for q in quotes), quotes
    assert any("tools_dict[tool_name]['function']" in q for q in quotes), quotes
    assert not any(q.strip() in ("return {", "def tool_info():") for q in quotes), quotes
    assert all(w.verified for w in tool.witnesses)


def test_only_text_sent_to_a_model_is_a_prompt(tmp_path: Path) -> None:
    """A shell script kept in a constant and written to a file is shipped text no model
    reads: no prompt object quotes it.  The system prompt the model call passes is one."""
    draft = draft_files(tmp_path, AGENT)
    prompts = [r for r in draft.records if r.label.startswith("Shipped instruction")]
    assert prompts, [r.label for r in draft.records]
    assert not any("SETUP_SH" in r.label for r in prompts), [r.label for r in prompts]
    assert not any(w.path == "env_text.py" for r in prompts for w in r.witnesses)
    assert any("SYSTEM_PROMPT" in r.label for r in prompts)


def test_a_tool_schema_opening_is_not_its_text() -> None:
    """A tool schema's name and words are text a model reads; the ``return {`` that opens
    the schema's dict and the ``def`` that declares it are framing."""
    from graph.proposers.offline.deciding import deciding
    from retrieval.survey import Finding
    from retrieval.survey.model import Category

    def schema(snippet: str) -> Finding:
        return Finding(
            id=f"s:{snippet}",
            category=Category.TOOL_DISPATCH,
            kind="tool_schema",
            path="llm_tools.py",
            start_line=3,
            end_line=3,
            symbol="convert_tool_info",
            snippet=snippet,
        )

    assert not deciding(schema("return {"), "return {")
    assert not deciding(schema("def tool_info():"), "def tool_info():")
    assert deciding(schema('"name": "shell",'), '"name": "shell",')


_LONG = " ".join(
    f"Rule {i}: you must check that change {i} keeps every earlier test passing." for i in range(12)
)
RANKED = {
    **AGENT,
    "review_prompts/texts.py": (
        f'REVIEW_SYSTEM = """You are a strict reviewer of patches. {_LONG}"""\n\n'
        f'REVIEW_PROMPT = """Review the patch below and answer in JSON. {_LONG}"""\n'
    ),
    "review.py": (
        "import anthropic\n\n"
        "from review_prompts.texts import REVIEW_PROMPT, REVIEW_SYSTEM\n\n"
        "client = anthropic.Anthropic()\n\n\n"
        "def review(patch):\n"
        "    return client.messages.create(\n"
        "        model='some-model', system=REVIEW_SYSTEM, max_tokens=100,\n"
        "        messages=[{'role': 'user', 'content': REVIEW_PROMPT + patch}],\n"
        "    )\n\n\n"
        'if __name__ == "__main__":\n'
        "    review('diff')\n"
    ),
}


def test_prompts_rank_by_the_text_they_send(tmp_path: Path) -> None:
    """Of two prompt objects the budget serves in turn, the one holding the most text the
    code sends to a model comes first (path order would put the short one first)."""
    draft = draft_files(tmp_path, RANKED)
    prompts = [r for r in draft.records_of_kind("OBJ") if r.label.startswith("Shipped")]
    assert len(prompts) >= 2, [r.label for r in draft.records]
    assert "REVIEW_" in prompts[0].label, [r.label for r in prompts]


_UTILS = (
    "import random\n\n\n"
    "def normalize(text):\n"
    "    return text.strip().lower()\n\n\n"
    "def f1_score(pred, gold):\n"
    "    common = set(normalize(pred).split()) & set(normalize(gold).split())\n"
    "    return 2 * len(common) / max(1, len(pred.split()) + len(gold.split()))\n\n\n"
    "def passes(pred, gold, threshold):\n"
    "    score = f1_score(pred, gold)\n"
    "    if score >= threshold:\n"
    "        return True\n"
    "    return False\n\n\n"
    "def best_of(preds, gold):\n"
    "    best = max(preds, key=lambda p: f1_score(p, gold))\n"
    "    return best\n"
)
RENAMED_COPY = {
    "_alpha/utils.py": _UTILS,
    "_transfer/alpha_utils.py": _UTILS,
    "main.py": (
        "from _alpha.utils import passes\n\n\n"
        "def main():\n"
        "    ok = passes('a b', 'a b c', 0.5)\n"
        "    print(ok)\n\n\n"
        'if __name__ == "__main__":\n'
        "    main()\n"
    ),
}


def test_a_copy_renamed_for_its_folder_is_folded(tmp_path: Path) -> None:
    """The same file copied into another folder under a name of that folder's: every
    definition the same, so it is one object naming the other folder, not two."""
    draft = draft_files(tmp_path, RENAMED_COPY, thorough=True)
    scores = [r for r in draft.records if r.label.startswith("Scores")]
    assert len(scores) == 1, [r.label for r in draft.records]
    assert "same in" in scores[0].label, scores[0].label
