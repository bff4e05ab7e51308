"""Operative objects as an analyst groups them: artifacts by family, read-backs found,
prompt files by the function that composes them, instruction constants by directory."""

from __future__ import annotations

from pathlib import Path

from offline_graph import draft_files, survey_and_draft

STATE_REPO = {
    "prepare.py": (
        "import json\nimport os\nimport shutil\nimport sqlite3\n\n"
        'SUITE_FILE = "state/suite.json"\n'
        'HISTORY_FILE = "state/history.tsv"\n'
        'DB_FILE = "state/runs.db"\n\n\n'
        "def prepare(tmp, scratch):\n"
        '    with open(SUITE_FILE, "w") as f:\n'
        '        json.dump({"tasks": []}, f)\n'
        '    with open(HISTORY_FILE, "w") as f:\n'
        '        f.write("iteration\\tscore\\n")\n'
        '    with open("a/split.json", "w") as f:\n'
        "        json.dump([], f)\n"
        '    with open("b/split.json", "w") as f:\n'
        "        json.dump([], f)\n"
        "    shutil.rmtree(tmp)\n"
        "    os.rename(scratch, tmp)\n"
        "    db = sqlite3.connect(DB_FILE)\n"
        "    return db\n\n\n"
        'if __name__ == "__main__":\n'
        '    prepare("t", "s")\n'
    ),
    "gate.py": (
        "import json\n"
        "from prepare import HISTORY_FILE, SUITE_FILE\n\n\n"
        "def best():\n"
        "    with open(HISTORY_FILE) as f:\n"
        "        rows = f.read().splitlines()[1:]\n"
        "    return max(float(r.split()[1]) for r in rows)\n\n\n"
        "def suite():\n"
        "    with open(SUITE_FILE) as f:\n"
        "        return json.load(f)\n\n\n"
        'if __name__ == "__main__":\n'
        "    print(best(), suite())\n"
    ),
}


def _draft(tmp_path: Path, files: dict[str, str]):
    return draft_files(tmp_path, files, thorough=True)


def test_artifacts_group_by_family_and_quote_their_read_backs(tmp_path: Path) -> None:
    draft = _draft(tmp_path, STATE_REPO)
    objs = {r.id: r for r in draft.records_of_kind("OBJ")}
    labels = sorted(r.label for r in objs.values())
    # files kept side by side in state/ are one object; the database stays alone
    state = objs["RT-OBJ-state"]
    assert state.label == "Persisted artifacts in state/: history.tsv and suite.json"
    assert any(label.startswith("Persisted artifact: state/runs.db") for label in labels)
    # one file name in two directories is one object
    assert "Persisted artifacts named split.json in a/ and b/" in labels
    # scratch space moved and deleted under computed names is housekeeping, not an object
    assert not any("run-time paths" in label for label in labels), labels
    # the gate's reads of the state files are found and quoted
    quotes = [(w.path, w.quote) for w in state.witnesses]
    assert ("gate.py", "with open(HISTORY_FILE) as f:") in quotes
    assert ("gate.py", "with open(SUITE_FILE) as f:") in quotes
    text = " ".join(b.text for b in state.blocks if hasattr(b, "text"))
    assert "Later read-back: best() in gate.py" in text, text
    assert all(w.verified for w in draft.witnesses)


def test_artifact_without_read_back_says_what_was_searched(tmp_path: Path) -> None:
    draft = _draft(tmp_path, STATE_REPO)
    split = next(r for r in draft.records_of_kind("OBJ") if "split.json" in r.label)
    text = " ".join(b.text for b in split.blocks if hasattr(b, "text"))
    assert "Later read-back: none found by the survey" in text


PROMPT_REPO = {
    "prompts/base.md": "# Base\n\nYou are a careful agent. You must never edit the tests.\n",
    "prompts/alpha.md": "# Alpha\n\nYou must only use the alpha tools in this benchmark.\n",
    "prompts/beta.md": "# Beta\n\nYou must only use the beta tools in this benchmark.\n",
    "prompts/review.md": "# Review\n\nYou are a strict reviewer. Only approve passing work.\n",
    "compose.py": (
        "def compose(bench):\n"
        "    extra = {\n"
        '        "alpha": "prompts/alpha.md",\n'
        '        "beta": "prompts/beta.md",\n'
        "    }[bench]\n"
        '    with open("prompts/base.md") as f:\n'
        "        base = f.read()\n"
        "    with open(extra) as f:\n"
        "        return base + f.read()\n\n\n"
        "def review_prompt():\n"
        '    with open("prompts/review.md") as f:\n'
        "        return f.read()\n"
    ),
    "agents/one.py": (
        'AGENT_INSTRUCTION = """You are a helpful agent. Always answer with the final '
        "result only, and never guess when the tools can tell you. Use the tools given to "
        'you, read every observation carefully and stop when the task is done."""\n'
    ),
    "agents/two.py": (
        'AGENT_INSTRUCTION = """You are a terminal agent. Always run the tests before '
        "you finish, and never delete files outside the work directory. Use the tools given "
        'to you, read every observation carefully and stop when the task is done."""\n'
    ),
}


def test_prompts_group_by_composing_function_and_instructions_by_directory(
    tmp_path: Path,
) -> None:
    draft = _draft(tmp_path, PROMPT_REPO)
    labels = sorted(r.label for r in draft.records_of_kind("OBJ") if "Shipped" in r.label)
    assert labels == [
        "Shipped instructions in agents/: AGENT_INSTRUCTION (2 definitions in 2 files)",
        "Shipped prompt file: prompts/review.md",
        "Shipped prompt files in prompts/: alpha.md, base.md and beta.md",
    ], labels
    family = next(
        r for r in draft.records_of_kind("OBJ") if r.label.startswith("Shipped prompt files")
    )
    text = " ".join(b.text for b in family.blocks if hasattr(b, "text"))
    assert "3 instruction texts reviewed together: prompts/alpha.md" in text, text
    # every text of the family is quoted, not only the first
    assert {w.path for w in family.witnesses} == {
        "prompts/alpha.md",
        "prompts/base.md",
        "prompts/beta.md",
    }
    assert all(w.verified for w in draft.witnesses)


GATE_REPO = {
    "gate.py": (
        "import json\n\n\n"
        "def run_gate(results, suite, threshold, best):\n"
        "    passed = sum(1 for r in results.values() if r >= 0.5)\n"
        "    rate = passed / len(results)\n"
        "    suite_ok = rate >= threshold\n"
        "    score_ok = rate >= best\n"
        "    fixed = sorted(t for t, r in results.items() if r >= 0.5)\n"
        "    total = 0\n"
        '    suite["tasks"] = sorted(set(suite["tasks"]) | set(fixed))\n'
        '    suite["seen"] = total\n'
        '    with open("suite.json", "w") as f:\n'
        "        json.dump(suite, f)\n"
        "    return suite_ok and score_ok\n\n\n"
        'if __name__ == "__main__":\n'
        "    run_gate({}, {}, 0.8, 0.0)\n"
    ),
}


def test_gate_promotion_is_found_and_quoted_first_in_its_route(tmp_path: Path) -> None:
    survey, draft = survey_and_draft(tmp_path, GATE_REPO, system="x", thorough=True)
    promos = [f for f in survey.by_category("gating") if f.kind == "promotion"]
    # the store of a selected value is a promotion; storing an unselected one is not
    assert [(f.start_line, f.detail["selected"]) for f in promos] == [(11, "fixed")]
    (route,) = draft.records_of_kind("RTE")
    # the label says what the route decides and produces
    assert (
        route.label
        == 'Run python gate.py: score gate and promotion into suite["tasks"]; writes suite.json'
    )
    quotes = [w.quote for w in route.witnesses]
    assert 'suite["tasks"] = sorted(set(suite["tasks"]) | set(fixed))' in quotes
    # a comparison between named values outranks one with a literal
    assert "suite_ok = rate >= threshold" in quotes
    assert "passed = sum(1 for r in results.values() if r >= 0.5)" not in quotes
    predicate = route.fields["Selection predicate"]
    assert predicate.index("suite[") < predicate.index("rate >= threshold")
    assert all(w.verified for w in draft.witnesses)


HISTORY_REPO = {
    "record.py": (
        'HISTORY = "state/history.tsv"\n\n\n'
        "def record(score):\n"
        '    with open(HISTORY, "a") as f:\n'
        '        f.write(f"{score}\\n")\n\n\n'
        'if __name__ == "__main__":\n'
        "    record(0.5)\n"
    ),
    "gate.py": (
        "from record import HISTORY\n\n\n"
        "def load_best():\n"
        "    with open(HISTORY) as f:\n"
        "        return [float(x) for x in f]\n\n\n"
        "def gate(score):\n"
        "    best = max(load_best())\n"
        "    passed = score >= best\n"
        "    return passed\n\n\n"
        'if __name__ == "__main__":\n'
        "    gate(0.7)\n"
    ),
}


def test_state_read_back_into_a_gate_is_a_behavioral_authority_path(tmp_path: Path) -> None:
    draft = _draft(tmp_path, HISTORY_REPO)
    bap = draft.record("RT-BAP-state-to-gate")
    assert bap is not None, [r.id for r in draft.records_of_kind("BAP")]
    assert bap.label == "Retained state to the gate in gate()"
    # the deciding line first (the gate), then the read-back it decides from
    assert [(w.path, w.quote) for w in bap.witnesses] == [
        ("gate.py", "passed = score >= best"),
        ("gate.py", "with open(HISTORY) as f:"),
        ("gate.py", "best = max(load_best())"),
    ]
    text = " ".join(b.text for b in bap.blocks if hasattr(b, "text"))
    assert "Consumer: gate() in gate.py" in text and "state/history.tsv" in text
    assert all(w.verified for w in draft.witnesses)


def test_files_named_only_by_variables_yield_no_object(tmp_path: Path) -> None:
    """A write whose target is a computed expression names no object: with no named
    file from the same writer to join, it is dropped rather than listed."""
    files = {
        f"mod{i}.py": (
            f"def save{i}(path_{i}, text):\n"
            f'    with open(path_{i}, "w") as f:\n'
            "        f.write(text)\n"
        )
        for i in range(3)
    }
    draft = _draft(tmp_path, files)
    labels = [r.label for r in draft.records_of_kind("OBJ")]
    assert labels == [], labels


#: A loop that appends its archive each generation and, on resume, reads it back through
#: two repository helpers and a local path variable — as most code reads its own state.
RESUME_REPO = {
    "util/io.py": (
        "def read_file(file_path):\n    with open(file_path, 'r') as f:\n        return f.read()\n"
    ),
    "util/archive.py": (
        "import json\n"
        "from util.io import read_file\n\n\n"
        "def load_archive(archive_path, last_only=False):\n"
        "    rows = [json.loads(x) for x in read_file(archive_path).splitlines()]\n"
        "    return rows[-1] if last_only else rows\n"
    ),
    "outer.py": (
        "import json\nimport os\n"
        "from util.archive import load_archive\n\n\n"
        "def start(out_dir, prev_dir=None):\n"
        "    if not prev_dir:\n"
        "        return ['initial']\n"
        '    archive_path = os.path.join(prev_dir, "archive.jsonl")\n'
        "    state = load_archive(archive_path, last_only=True)\n"
        "    return state['archive']\n\n\n"
        "def main(out_dir, prev_dir=None):\n"
        "    archive = start(out_dir, prev_dir)\n"
        "    for gen in range(3):\n"
        '        with open(os.path.join(out_dir, "archive.jsonl"), "a") as f:\n'
        "            f.write(json.dumps({'generation': gen, 'archive': archive}))\n\n\n"
        'if __name__ == "__main__":\n'
        "    main('out')\n"
    ),
}


def test_a_read_back_through_helpers_and_a_local_path_is_found(tmp_path: Path) -> None:
    survey, draft = survey_and_draft(tmp_path, RESUME_REPO, thorough=True)
    reads = [f for f in survey.findings if f.category == "read_back"]
    assert [(f.path, f.start_line) for f in reads] == [("outer.py", 10)], reads
    assert reads[0].detail["written_as"] == 'os.path.join(out_dir, "archive.jsonl")'
    assert reads[0].detail["file"] == "archive.jsonl"
    obj = next(r for r in draft.records_of_kind("OBJ") if "archive.jsonl" in r.label)
    text = " ".join(b.text for b in obj.blocks if hasattr(b, "text"))
    assert "Later read-back: start() in outer.py" in text, text
    assert ("outer.py", "state = load_archive(archive_path, last_only=True)") in [
        (w.path, w.quote) for w in obj.witnesses
    ]
