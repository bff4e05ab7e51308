"""File roles on built repositories: what is embedded, what is searchable by its words
only, what is listed, each with its reason; and the survey and the index following them."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from gitrepo import commit

from drafter.model import LineRange, Verification
from drafter.snapshot import Snapshot
from drafter.verify import Verifier
from retrieval.index import make_plan
from retrieval.roles import Role, Treatment, classify, classify_revision, corpus_groups
from retrieval.survey.runner import run_survey

AGENT = """\
import json
import subprocess


def load_settings():
    with open("conf/agent_settings.json") as fh:
        return json.load(fh)


def main():
    settings = load_settings()
    subprocess.run(["python", "solve.py", settings["task"]])


if __name__ == "__main__":
    main()
"""

RUN_LOG = """\
#!/bin/bash
# eval script kept from a run
python -m agent.run --task 17
You are a helpful assistant. Your task is to fix the failing test.
"""


def _dataset(n_bytes: int) -> str:
    rows: list[str] = []
    size = 0
    while size < n_bytes:
        i = len(rows)
        rows.append(json.dumps({"id": i, "question": f"what is {i} + {i}?", "answer": 2 * i}))
        size += len(rows[-1]) + 2
    return "[\n" + ",\n".join(rows) + "\n]\n"


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("roles") / "repo"
    one_line = json.dumps([{"k": i, "v": "x" * 40} for i in range(100_000)])[:5_000_000]
    assert "\n" not in one_line and len(one_line) == 5_000_000
    commit(
        path,
        {
            "agent.py": AGENT,
            "README.md": "# Agent\n\nRun `python agent.py` to solve a task.\n",
            "conf/agent_settings.json": json.dumps({"task": "t1", "retries": 3}, indent=2),
            "benchmarks/questions.json": _dataset(2_000_000),
            "results/run_1/eval.sh": RUN_LOG,
            "results/run_1/run_instance.log": "INFO starting\nINFO model call 1\n" * 200,
            "results/run_1/summary.md": "# Run 1\n\nYou are a careful agent.\n",
            "dump/state.json": one_line,
            "prompts/system.md": "You are an agent. Your task is to solve the issue.\n",
            # one 5 MB line of text whose emphasis markers never close
            "dump/notes.txt": ("word _a " * 625_000)[:5_000_000],
        },
    )
    return path


def test_roles_of_a_built_repository_each_with_its_reason(repo: Path) -> None:
    with Snapshot(repo) as snap:
        roles = classify_revision(snap)
    got = {p: (f.role, f.treatment) for p, f in roles.files.items()}
    assert got == {
        "agent.py": (Role.code, Treatment.embed),
        "README.md": (Role.docs, Treatment.embed),
        # the code names it: configuration, read whole
        "conf/agent_settings.json": (Role.config, Treatment.embed),
        # 2 MB of records: data, searchable by its opening part only
        "benchmarks/questions.json": (Role.data, Treatment.lexical),
        "results/run_1/eval.sh": (Role.results, Treatment.lexical),
        "results/run_1/run_instance.log": (Role.results, Treatment.lexical),
        "results/run_1/summary.md": (Role.results, Treatment.lexical),
        "dump/state.json": (Role.data, Treatment.lexical),
        "prompts/system.md": (Role.prompt, Treatment.embed),
        # plain text of 5 MB is a dump, not documentation: its opening part is searchable
        "dump/notes.txt": (Role.data, Treatment.lexical),
    }
    assert all(f.reason for f in roles.files.values())
    assert "named by" in roles.files["conf/agent_settings.json"].reason
    assert "results/" in roles.files["results/run_1/eval.sh"].reason
    left = roles.left_out()
    assert sum(n for n, _ in left.values()) == 6
    assert "plain text over" in roles.files["dump/notes.txt"].reason
    assert "not embedded" in roles.summary_line()


def test_the_same_json_unnamed_by_code_and_large_is_data() -> None:
    small = classify("conf/settings.json", 300, '{"a": 1}')
    assert small.role is Role.config and small.embedded
    big = classify("conf/settings.json", 200_000, '{"a": 1}')
    assert big.role is Role.data and not big.embedded
    records = classify("misc/items.json", 20_000, "[" + '{"a": 1}, ' * 20)
    assert records.role is Role.data
    named = classify("misc/items.json", 200_000, "[", read_by_code=frozenset({"items.json"}))
    assert named.role is Role.config and named.embedded
    # a package folder called like run output is still code
    pkg = frozenset({"lib/logs/__init__.py", "lib/logs/handler.py"})
    assert classify("lib/logs/handler.py", 900, "", paths=pkg).role is Role.code
    assert classify("runs/a/handler.py", 900, "", paths=pkg).role is Role.logs
    # names a run writes: a date-time stamp, a log or transcript
    assert classify("papers/x/20240731_205208_idea_aider.txt", 900).role is Role.logs
    assert classify("papers/x/log.txt", 900).role is Role.logs
    assert classify("papers/x/notes.txt", 900).role is Role.docs
    # fifty parsed papers in one folder are a corpus; the folder's README stays docs
    corpus = [f"bench/parsed/p{i}.txt" for i in range(50)] + ["bench/parsed/README.md"]
    groups = corpus_groups(corpus)
    assert classify("bench/parsed/p1.txt", 900, corpora=groups).role is Role.data
    assert classify("bench/parsed/README.md", 900, corpora=groups).role is Role.docs
    assert corpus_groups(corpus[:49]) == frozenset()


def test_index_plan_embeds_only_what_is_read_and_bounds_the_rest(repo: Path) -> None:
    with Snapshot(repo) as snap:
        plan = make_plan(snap)
    embedded = {c.path for c in plan.chunks}
    assert embedded == {"agent.py", "README.md", "conf/agent_settings.json", "prompts/system.md"}
    lexical = {c.path for c in plan.lexical_chunks}
    assert {"benchmarks/questions.json", "dump/state.json", "results/run_1/eval.sh"} <= lexical
    for path in ("benchmarks/questions.json", "dump/state.json"):
        size = sum(len(c.text) for c in plan.lexical_chunks if c.path == path)
        assert 0 < size <= 4096  # the opening part, bounded
    (head,) = [c for c in plan.lexical_chunks if c.path == "dump/state.json"]
    assert head.start_line == head.end_line == 1 and head.text.startswith('[{"k": 0')


def test_survey_reads_no_run_output(repo: Path) -> None:
    with Snapshot(repo) as snap:
        survey = run_survey(snap)
    paths = {f.path for f in survey.findings}
    assert not any(p.startswith("results/") for p in paths)
    assert "agent.py" in paths
    entry_points = {f.path for f in survey.findings if f.category == "entry_point"}
    assert entry_points == {"agent.py"}
    assert any("not surveyed by file role" in n and "results" in n for n in survey.notices)


def test_a_witness_in_a_5_mb_one_line_file_is_answered_in_bounded_time(repo: Path) -> None:
    with Snapshot(repo) as snap:
        ver = Verifier(snap)
        found = ver.check('{"k": 70000, "v": "', "dump/state.json", LineRange(start=1, end=1))
        assert found.status == "verified" and found.lines == LineRange(start=1, end=1)
        t = time.perf_counter()
        miss = ver.check('{"k": 70000, "v": "y_*`z', "dump/state.json", None)
        spent = time.perf_counter() - t
    assert miss.status == "not_found"
    # the repair hint is the part of the line around the match, not the 5 MB line
    assert miss.nearest and all(len(p.text) <= 2000 for p in miss.nearest)
    assert spent < 30


_CHECK = """\
import sys
from drafter.snapshot import Snapshot
from drafter.verify import Verifier
with Snapshot(sys.argv[1]) as snap:
    print(Verifier(snap).check(sys.argv[2], sys.argv[3]).model_dump_json())
"""


def test_markup_rules_do_not_scan_a_huge_line_once_per_marker(repo: Path) -> None:
    """Each unclosed ``_`` made the emphasis rule scan to the end of the paragraph: on a
    5 MB line that is hours.  The verdict must come back (a generous ceiling for a
    loaded machine; the real figure is in benchmarks/bench_cold.py)."""
    with Snapshot(repo) as snap:
        ver = Verifier(snap)
        # in a child process: the regular expression engine holds the interpreter lock,
        # so a verdict that never comes could not be timed out from a thread
        try:
            child = subprocess.run(
                [sys.executable, "-c", _CHECK, str(repo), "no such *quote* here", "dump/notes.txt"],
                capture_output=True,
                timeout=60,
            )
        except subprocess.TimeoutExpired:
            pytest.fail("verify of a quote in a 5 MB one-line file took over 60 s")
        assert child.returncode == 0, child.stderr.decode()[-2000:]
        miss = Verification.model_validate_json(child.stdout)
        hit = ver.check("word _a word _a word", "dump/notes.txt", None)
    assert miss.status == "not_found" and "markup was not normalised" in miss.message
    assert hit.status == "ambiguous"  # the exact level still finds every occurrence
