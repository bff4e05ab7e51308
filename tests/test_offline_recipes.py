"""Offline recipes through the real graph, on small repositories built here, including
the noise an analyst should never have to wade through: unresolved path expressions,
a duplicated claim and setup notes, a library module's ``__main__`` self-test,
alternative runners chosen at one call site, and supporting code (baselines,
examples) beside the core."""

from __future__ import annotations

from pathlib import Path

import pytest
from offline_graph import draft_files

from drafter.model import Report
from drafter.sample import materialize
from graph.offline_run import run_offline
from graph.proposers.offline import RECIPES


def _labels(draft: Report, kind: str) -> list[str]:
    return [r.label for r in draft.records_of_kind(kind)]


def _account_text(draft: Report) -> str:
    return " ".join(getattr(b, "text", "") or "" for b in draft.account[0].blocks)


NOISE_REPO = {
    "README.md": (
        "# Bot\n\nRun it with `python main.py --kind alpha`.\n\n"
        "By default, results are always saved in the runs/ directory.\n\n"
        "Install with pip; the bot only supports Python 3.11 on Linux.\n"
    ),
    "docs/usage.md": "# Usage\n\nBy default, results are always saved in the runs/ directory.\n",
    "llm.py": (
        "import litellm\n\n\n"
        "def ask(prompt):\n"
        '    return litellm.completion(model="gpt-x", messages=[prompt])\n\n\n'
        'if __name__ == "__main__":\n'
        '    print(ask("hello"))\n'
    ),
    "runners.py": (
        "import json\nimport os\nimport subprocess\n\nfrom llm import ask\n\n\n"
        "class AlphaRunner:\n"
        "    def __init__(self):\n"
        '        self.out = ask("alpha")\n\n\n'
        "class BetaRunner:\n"
        "    def __init__(self):\n"
        '        subprocess.run(["beta"], check=True)\n\n\n'
        "class GammaRunner:\n"
        "    def __init__(self):\n"
        '        subprocess.run(["gamma"], check=True)\n\n\n'
        "def save(root, dst_path, record):\n"
        '    with open("results.jsonl", "a") as f:\n'
        "        f.write(json.dumps(record))\n"
        '    with open(str(dst_path), "w") as f:\n'
        '        f.write("x")\n'
        '    os.makedirs(os.path.join(root, "domains"), exist_ok=True)\n'
        '    with open(os.path.dirname(root), "w") as f:\n'
        '        f.write("y")\n'
    ),
    "main.py": (
        "import argparse\n\n"
        "from runners import AlphaRunner, BetaRunner, GammaRunner, save\n\n\n"
        "def main():\n"
        "    ap = argparse.ArgumentParser()\n"
        '    ap.add_argument("--kind")\n'
        "    args = ap.parse_args()\n"
        '    if args.kind == "alpha":\n'
        "        runner = AlphaRunner()\n"
        '    elif args.kind == "beta":\n'
        "        runner = BetaRunner()\n"
        "    else:\n"
        "        runner = GammaRunner()\n"
        '    save(".", "out.txt", {"ok": True})\n\n\n'
        'if __name__ == "__main__":\n'
        "    main()\n"
    ),
    "baselines/naive/run.py": (
        "import litellm\n\n\n"
        'if __name__ == "__main__":\n'
        '    print(litellm.completion(model="gpt-x", messages=["base"]))\n'
    ),
    "examples/demo.py": (
        'from llm import ask\n\n\nif __name__ == "__main__":\n    print(ask("demo"))\n'
    ),
}


@pytest.fixture(scope="module")
def noisy(tmp_path_factory: pytest.TempPathFactory) -> Report:
    root = tmp_path_factory.mktemp("noise")
    return draft_files(root, NOISE_REPO, system="bot")


def test_unresolved_path_expressions_name_no_object(noisy: Report) -> None:
    objs = _labels(noisy, "OBJ")
    assert not any(s in label for label in objs for s in ("str(", "os.path", "dirname")), objs
    results = next(r for r in noisy.records_of_kind("OBJ") if "results.jsonl" in r.label)
    first = results.witnesses[0].quote
    assert first == 'with open("results.jsonl", "a") as f: f.write(json.dumps(record))'
    assert all(w.verified for w in noisy.witnesses)


def test_duplicated_claim_is_merged_and_setup_notes_are_not_claims(noisy: Report) -> None:
    claims = noisy.records_of_kind("CLM")
    saved = [c for c in claims if "always saved in the runs/" in c.label]
    assert len(saved) == 1, _labels(noisy, "CLM")
    assert "said again at docs/usage.md:3" in saved[0].body_text()
    assert not any("Python 3.11" in c.label or "pip" in c.label for c in claims)


def test_library_main_block_is_not_a_route(noisy: Report) -> None:
    routes = _labels(noisy, "RTE")
    assert not any("llm.py" in label for label in routes), routes
    assert "treated as self-tests, not routes: llm.py" in _account_text(noisy)


def test_alternative_runners_are_alternatives_not_a_chain(noisy: Report) -> None:
    route = next(r for r in noisy.records_of_kind("RTE") if "main.py" in r.label)
    prog = route.lead["Endpoints/progression"]
    assert "AlphaRunner.__init__() | BetaRunner.__init__() | GammaRunner.__init__()" in prog
    assert "AlphaRunner.__init__() → BetaRunner.__init__()" not in prog
    assert "alternatives the caller chooses among" in route.body_text()


def test_supporting_code_is_summarised_not_routed(noisy: Report) -> None:
    routes = _labels(noisy, "RTE")
    assert routes[0] == "Run python main.py: model calls; writes results.jsonl", routes
    assert not any("baselines/" in r or "examples/" in r for r in routes), routes
    assert not any("baselines/" in c for c in _labels(noisy, "CMP"))
    account = _account_text(noisy)
    assert "not drafted as routes: baselines/naive/run.py and examples/demo.py" in account


def test_account_follows_the_primary_route_with_ids_and_verified_quotes(noisy: Report) -> None:
    text = _account_text(noisy)
    main = noisy.records_of_kind("RTE")[0]
    assert f"The primary route is {main.id}" in text
    comp = noisy.records_of_kind("CMP")[0]
    assert comp.id in text
    inline = [b.witness for b in noisy.account[0].blocks if hasattr(b, "witness")]
    assert inline and all(w.verified for w in inline)
    assert inline[0].quote == main.witnesses[0].quote


SELF_MOD_REPO = {
    "loop.py": (
        "import subprocess\n\nimport litellm\n\n\n"
        "def improve(code):\n"
        '    reply = litellm.completion(model="gpt-x", messages=[code])\n'
        '    with open("agent_impl.py", "w") as f:\n'
        "        f.write(reply)\n\n\n"
        "def evaluate():\n"
        '    return subprocess.run(["python", "agent_impl.py"], capture_output=True)\n\n\n'
        'if __name__ == "__main__":\n'
        "    for _ in range(3):\n"
        '        improve("x")\n'
        "        evaluate()\n"
    ),
}


def test_self_modification_loop_is_a_record_of_its_own(tmp_path: Path) -> None:
    draft = draft_files(tmp_path, SELF_MOD_REPO)
    loop = next(r for r in draft.records_of_kind("BAP") if r.id.startswith("RT-BAP-self-mod"))
    assert "agent_impl.py" in loop.label and "loaded or executed as code" in loop.label
    quotes = [w.quote for w in loop.witnesses]
    assert quotes[0].startswith('with open("agent_impl.py", "w") as f:')
    assert any("subprocess.run" in q for q in quotes)
    assert all(w.verified for w in draft.witnesses)


def test_every_recipe_drafts_on_the_sample_in_the_long_form(tmp_path: Path) -> None:
    """The sample exercises every recipe but those the claims, loop, witness-rule and
    crossing tests cover (the sample is one language: it has no crossing)."""
    sample = materialize(tmp_path / "sample")
    result = run_offline(sample.path, sample.sha, tmp_path / "d", system="t", thorough=True)
    assert result.report is not None
    recipe = {i["id"]: i["recipe"] for i in result.state["plan"]["items"]}
    drafted = {recipe[r.id] for r in result.report.records}
    elsewhere = {"role_model", "external_agent", "model_loop", "pinned_model", "stored_state"}
    elsewhere.add("core_state")  # TypeScript state: tests/test_survey_es_state.py
    elsewhere.add("boundary")  # tests/test_route_crossings.py
    assert set(RECIPES) - elsewhere <= drafted, set(RECIPES) - elsewhere - drafted
    short = run_offline(sample.path, sample.sha, tmp_path / "d", system="t", max_records=5)
    assert short.report is not None and len(short.report.records) <= 5


CLAIM_REPO = {
    "README.md": "# Runner\n\nEvery shell command is always killed after a timeout.\n",
    "runner.py": (
        "import subprocess\n\nTIMEOUT_SECONDS = 30\n\n\n"
        "def run_shell_command(command):\n"
        "    # the deciding line: the timeout is passed on every call\n"
        "    return subprocess.run(command, shell=True, timeout=TIMEOUT_SECONDS)\n\n\n"
        "def unrelated_helper(items):\n"
        "    return sorted(items)\n\n\n"
        'if __name__ == "__main__":\n'
        '    run_shell_command("ls")\n'
    ),
}


def test_claim_is_linked_to_the_deciding_code_by_hybrid_search(tmp_path: Path) -> None:
    draft = draft_files(tmp_path, CLAIM_REPO, use_index=True)
    claim = draft.records_of_kind("CLM")[0]
    assert "hybrid search" in claim.body_text()
    code = [w for w in claim.witnesses if w.path == "runner.py"]
    assert code and code[0].quote.startswith("return subprocess.run(command, shell=True")
    assert all(w.verified for w in draft.witnesses)
