"""Claims from instruction files (rule sentences naming code identifiers, ranked first and
related to the code that uses those names, both quoted), and components by model role
(a user-simulator model named only in settings, agent variants in sibling modules, an
external agent addressed by a program file)."""

from __future__ import annotations

from pathlib import Path

from offline_graph import draft_files, survey_and_draft

REPO = {
    "README.md": "# Tool\n\nThis tool is always pleasant to use for everyone.\n",
    "program/base.md": (
        "# Program\n\n"
        "You are an autonomous coding agent improving the solver.\n\n"
        "- Tasks without a result count as failures in `val_score`.\n"
        "- The weather must always be nice on the weekend.\n"
        "- Never edit `gate.py` or any file other than the solver.\n"
    ),
    "gate.py": (
        "def val_score(results):\n"
        "    mean_score = sum(r or 0.0 for r in results.values()) / len(results)\n"
        "    return mean_score\n\n\n"
        "def gate(results, best):\n"
        "    val = val_score(results)\n"
        "    return val >= best\n\n\n"
        'if __name__ == "__main__":\n'
        '    with open("score.txt", "w") as f:\n'
        "        f.write(str(gate({}, 0.0)))\n"
    ),
}


def test_instruction_rules_are_claims_related_to_the_code_they_name(tmp_path: Path) -> None:
    survey, draft = survey_and_draft(tmp_path, REPO, system="x", thorough=True)
    rules = [f for f in survey.by_category("claim") if f.kind == "instruction_rule"]
    assert [f.start_line for f in rules] == [5, 6, 7]
    claims = draft.records_of_kind("CLM")
    # rules naming code identifiers come before prose that names none
    labels = [c.label for c in claims]
    assert labels[0].startswith("Claim: Tasks without a result count as failures in val_score")
    assert labels[1].startswith("Claim: Never edit gate.py")
    first = claims[0]
    quotes = [(w.path, w.quote) for w in first.witnesses]
    assert quotes[0] == (
        "program/base.md",
        "Tasks without a result count as failures in `val_score`.",
    )
    # the aggregation inside val_score() is the code the rule is about
    assert (
        "gate.py",
        "mean_score = sum(r or 0.0 for r in results.values()) / len(results)",
    ) in quotes, quotes
    text = " ".join(b.text for b in first.blocks if hasattr(b, "text"))
    assert "a rule in an instruction file in program/base.md:5" in text
    assert "found by the names it shares with the claim (val_score)" in text
    assert all(w.verified for w in draft.witnesses)


ROLE_REPO = {
    "agent.py": (
        "import os\n\nimport litellm\n\n"
        'AGENT_MODEL = os.environ.get("AGENT_MODEL", "gpt-x")\n\n\n'
        "def step(messages):\n"
        "    return litellm.completion(model=AGENT_MODEL, messages=messages)\n"
    ),
    "runner.py": (
        "import os\n\n\n"
        "class Runner:\n"
        "    def __init__(self, agent_model=None, user_model=None):\n"
        '        self.agent_model = agent_model or os.getenv("AGENT_MODEL", "gpt-x")\n'
        "        self.user_model = user_model or self.agent_model\n\n"
        "    def argv(self):\n"
        '        return ["bench", "--agent-llm", self.agent_model, "--user-llm", self.user_model]\n'
    ),
}


def test_a_user_simulator_model_passed_on_by_name_is_its_own_component(tmp_path: Path) -> None:
    draft = draft_files(tmp_path, ROLE_REPO, system="x", thorough=True)
    comps = {c.id: c for c in draft.records_of_kind("CMP")}
    assert any(i.startswith("RT-CMP-litellm-") for i in comps), list(comps)
    user = comps["RT-CMP-user-simulator-model"]
    assert user.label == "User simulator model: self.user_model"
    assert [(w.path, w.quote) for w in user.witnesses] == [
        ("runner.py", "self.user_model = user_model or self.agent_model")
    ]
    text = " ".join(b.text for b in user.blocks if hasattr(b, "text"))
    assert "No model call in the repository uses this setting directly" in text
    # the agent's own setting is not a second role
    assert len(comps) == 2
    assert all(w.verified for w in draft.witnesses)


VARIANT_REPO = {
    "templates/alpha.py": (
        "import litellm\n\n\n"
        "def run(messages):\n"
        '    return litellm.completion(model="gpt-x", messages=messages)\n'
    ),
    "templates/beta.py": (
        "import anthropic\n\n\n"
        "def run(messages):\n"
        "    client = anthropic.Anthropic()\n"
        '    return client.messages.create(model="claude-x", max_tokens=10, messages=messages)\n'
    ),
    "tools/judge.py": (
        "import litellm\n\n\n"
        "def grade(answer):\n"
        '    return litellm.completion(model="judge-x", messages=[answer])\n'
    ),
    "program/base.md": (
        "# Program\n\nYou are an autonomous coding agent improving templates/alpha.py.\n"
    ),
    "prepare.py": (
        "def compose():\n"
        '    with open("program/base.md") as f:\n'
        "        text = f.read()\n"
        '    with open("PROGRAM.md", "w") as f:\n'
        "        f.write(text)\n\n\n"
        'if __name__ == "__main__":\n'
        "    compose()\n"
    ),
}


def test_agent_variants_merge_and_an_addressed_external_agent_is_a_component(
    tmp_path: Path,
) -> None:
    draft = draft_files(tmp_path, VARIANT_REPO, system="x", thorough=True)
    labels = sorted(c.label for c in draft.records_of_kind("CMP"))
    assert labels == [
        "Agent model (anthropic, litellm) in templates/",
        "External agent model addressed by program/base.md",
        "litellm model endpoint: judge-x",
    ], labels
    ext = draft.record("RT-CMP-external-agent-base")
    assert ext is not None
    assert [(w.path, w.quote) for w in ext.witnesses] == [
        ("program/base.md", "You are an autonomous coding agent improving templates/alpha.py."),
        ("prepare.py", 'with open("program/base.md") as f:'),
        ("prepare.py", 'with open("PROGRAM.md", "w") as f: f.write(text)'),
    ]
    assert all(w.verified for w in draft.witnesses)
    # the program file is the source of PROGRAM.md, reviewed as one object with it
    objs = {o.label: o for o in draft.records_of_kind("OBJ")}
    assert "Shipped prompt file: program/base.md" not in objs, list(objs)
    program = objs["Persisted artifact: PROGRAM.md, composed from prompt files in program/"]
    assert (
        "program/base.md",
        "You are an autonomous coding agent improving templates/alpha.py.",
    ) in [(w.path, w.quote) for w in program.witnesses]
