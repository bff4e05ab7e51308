"""Drafts describe the system, not its tests or its examples (#34 point 6).

One small repository holds each trap a large platform showed: an effect paired with an
unrelated one by a shared word (a written ``config.sh`` and a ``git config`` call), a
prompt file whose only consumer is a unit test, a logging ``extra={...}`` dict whose
values share names with repository functions, an in-context example string, and a
helper script that reaches more effects than the package's own main module, which the
project's evaluation harnesses all build on.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from offline_graph import draft_files

from drafter.model import Report
from drafter.snapshot import Snapshot
from graph.proposers.offline.rank import is_test_path
from retrieval.survey.runner import run_survey
from tests.gitrepo import make_repo

REPO = {
    "pkg/__init__.py": "",
    "pkg/core/__init__.py": "",
    "pkg/core/main.py": (
        "import argparse\nimport asyncio\n\n\n"
        "async def run_controller(task):\n"
        "    with open('trajectory.json', 'w') as f:\n"
        "        f.write(task)\n\n\n"
        'if __name__ == "__main__":\n'
        "    p = argparse.ArgumentParser()\n"
        "    p.add_argument('-t')\n"
        "    asyncio.run(run_controller(p.parse_args().t))\n"
    ),
    "pkg/helpers/__init__.py": "",
    # a helper script with many effects: it writes a shell file and calls git
    "pkg/helpers/build.py": (
        "import os\nimport subprocess\n\n\n"
        "def build(folder):\n"
        "    with open(os.path.join(folder, 'config.sh'), 'a') as f:\n"
        "        f.write('export X=1')\n"
        "    with open(os.path.join(folder, 'Dockerfile'), 'w') as f:\n"
        "        f.write('FROM x')\n"
        "    with open(os.path.join(folder, 'notes.txt'), 'w') as f:\n"
        "        f.write('n')\n"
        "    subprocess.run(['docker', 'build', folder])\n\n\n"
        "def commit(repo_dir):\n"
        "    subprocess.run(f'git -C {repo_dir} config user.name', shell=True)\n"
        "    subprocess.run(['git', '-C', repo_dir, 'commit', '-m', 'x'])\n\n\n"
        'if __name__ == "__main__":\n'
        "    build('out')\n"
        "    commit('.')\n"
    ),
    "pkg/ids.py": (
        "CLIENT_ID = 'c'\nCLIENT_SECRET = 's'\n\n\n"
        "def user_id():\n    return 'u'\n\n\ndef id():\n    return 'i'\n"
    ),
    "pkg/worker.py": (
        "import logging\n\nimport torch\n\n"
        "from pkg.ids import CLIENT_ID, CLIENT_SECRET, id, user_id\n\n"
        "logger = logging.getLogger(__name__)\n\n\n"
        "def upgrade(task):\n"
        "    logger.info('upgrading', extra={'task_id': task.id, 'user_id': task.user_id})\n"
        "    payload = {'client_id': CLIENT_ID, 'client_secret': CLIENT_SECRET}\n"
        "    dtypes = {'f32': torch.float32, 'f16': torch.float16}\n"
        "    return id(), user_id(), payload, dtypes\n"
    ),
    "pkg/fn_call.py": (
        "TOOL_EXAMPLES = {\n"
        "    'run_server': '''\n"
        "USER: Please start the server. You must not stop it and you should always keep it\n"
        "running on port 5000. Do not use it in production; respond only with the result.\n"
        "ASSISTANT: The server is running on port 5000 with PID 126. You can now visit it.\n"
        "''',\n"
        "}\n\n\n"
        "def example_for(name):\n"
        "    return TOOL_EXAMPLES[name]\n"
    ),
    "pkg/prompts/system_prompt.j2": "You are a careful agent. You must answer briefly.\n",
    "pkg/prompts/code_review.md": (
        "You are a code reviewer.\n\n"
        "Use the following structure in your output:\n"
        "[src/utils.py, Line 42] Unused import: The 'os' module is imported but never used.\n\n"
        "You must never modify the code while reviewing it.\n"
    ),
    "evaluation/benchmarks/bench_a/run_infer.py": (
        "from pkg.core.main import run_controller\n\n\ndef go():\n    return run_controller('a')\n"
    ),
    "evaluation/benchmarks/bench_b/run_infer.py": (
        "from pkg.core.main import run_controller\n\n\ndef go():\n    return run_controller('b')\n"
    ),
    "tests/unit/test_prompt_manager.py": (
        "import os\n\n\n"
        "def test_prompts(tmp_path):\n"
        "    with open(os.path.join(tmp_path, 'system_prompt.j2'), 'w') as f:\n"
        "        f.write('Test message')\n"
        "    with open(os.path.join(tmp_path, 'system_prompt.j2')) as f:\n"
        "        assert f.read() == 'Test message'\n"
    ),
}


@pytest.fixture(scope="module")
def draft(tmp_path_factory: pytest.TempPathFactory) -> Report:
    return draft_files(tmp_path_factory.mktemp("sysfirst"), REPO, thorough=True)


def _labels(draft: Report) -> dict[str, str]:
    return {r.id: r.label for r in draft.records}


def test_the_main_module_the_harnesses_build_on_is_the_primary_route(draft: Report) -> None:
    routes = [r for r in draft.records_of_kind("RTE") if r.label.startswith("Run python")]
    assert routes and routes[0].label.startswith("Run python pkg/core/main.py"), _labels(draft)
    assert all(w.verified for w in draft.witnesses)


def test_no_record_rests_on_a_test(draft: Report) -> None:
    assert not any(is_test_path(w.path) for w in draft.witnesses), _labels(draft)
    assert not any("system-prompt" in i for i in _labels(draft) if "RT-OBJ-prompt" not in i)


def test_a_shared_word_pairs_no_effects(draft: Report) -> None:
    """A written ``config.sh`` is not run by a ``git config`` call."""
    assert not any(i.startswith("RT-BAP-self-modification-config") for i in _labels(draft))


def test_an_in_context_example_is_not_a_shipped_instruction(draft: Report) -> None:
    assert not any("port 5000" in w.quote for w in draft.witnesses), _labels(draft)


def test_a_sample_output_is_not_a_claim(draft: Report) -> None:
    claims = [w.quote for r in draft.records_of_kind("CLM") for w in r.witnesses]
    assert not any("Line 42" in q for q in claims), claims


def test_a_logging_extra_dict_or_a_dict_of_constants_is_not_a_callable_registry(
    tmp_path: Path,
) -> None:
    with Snapshot(make_repo(tmp_path / "r", REPO)) as snap:
        survey = run_survey(snap)
    registries = [f for f in survey.findings if f.kind == "callable_registry"]
    assert not [f for f in registries if f.path == "pkg/worker.py"], registries
