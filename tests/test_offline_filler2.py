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
    assert relabel("Objects: a.json, app.py and c.txt", ["file app.py"]) == (
        "Objects: a.json, c.txt and 1 more"
    )
    # a name inside a phrase is not a list item: the label stays (and is flagged)
    phrase = "Loop: notes.md written by a run, then loaded"
    assert relabel(phrase, ["file notes.md"]) == phrase
