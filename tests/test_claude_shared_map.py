"""The shared block of a Claude run is a bounded, deterministic map of the repository.

It is re-read from the prompt cache on every turn of every conversation, so it must
stay small on any survey, give the same bytes every time, always show how the system
starts, and tell the model where the rest of the survey is.
"""

from __future__ import annotations

import random

from graph.proposers.agent.map import (
    ENTRY_BYTES,
    KEY_BYTES,
    MAX_ENTRY_UNITS,
    MAX_FILE_LINES,
    PER_CATEGORY,
    file_map,
)
from graph.proposers.agent.prompts import shared_context
from retrieval.survey.index import EFFECT_CATEGORIES, SurveyIndex
from retrieval.survey.model import CATEGORIES, CallGraph, Finding, FunctionNode, Survey

#: A cap no survey may push the block past (characters); the old block was ~115k on
#: a mid-sized repository and grew with the survey.
BLOCK_CAP = 60_000


def _finding(cat: str, kind: str, path: str, line: int, symbol: str = "f") -> Finding:
    return Finding.model_validate(
        {
            "id": f"{cat}:{path}:{line}",
            "category": cat,
            "kind": kind,
            "path": path,
            "start_line": line,
            "end_line": line,
            "symbol": symbol,
            "snippet": f"{kind}_call({line})  # " + "x" * 200,
        }
    )


def _big_survey(seed: int = 0, entries: int = 8) -> tuple[Survey, list[str]]:
    """Thousands of findings over hundreds of files, a handful of entry scripts whose
    ``<main>`` calls into the library, and a bulky data folder."""
    rng = random.Random(seed)
    lib = [f"pkg/mod{i}.py" for i in range(300)]
    findings: list[Finding] = []
    for n in range(6000):
        cat = CATEGORIES[1 + n % (len(CATEGORIES) - 1)]
        path = lib[rng.randrange(len(lib))]
        findings.append(_finding(cat, f"kind{n % 7}", path, 1 + n))
    functions: dict[str, FunctionNode] = {}
    edges: dict[str, list[str]] = {}
    for i in range(entries):
        path = f"scripts/run{i}.py"
        findings.append(_finding("entry_point", "main_guard", path, 10, "<main>"))
        main = f"{path}::<main>"
        functions[main] = FunctionNode(
            id=main, path=path, symbol="<main>", start_line=10, end_line=12
        )
        edges[main] = [f"{lib[i]}::f"]
    for p in lib:
        functions[f"{p}::f"] = FunctionNode(
            id=f"{p}::f", path=p, symbol="f", start_line=1, end_line=9
        )
    survey = Survey(
        repository="r",
        revision="0" * 40,
        findings=findings,
        call_graph=CallGraph(functions=functions, edges=edges),
    )
    paths = [*lib, *(f"scripts/run{i}.py" for i in range(entries))]
    paths += [f"data/runs/r{i}/out{j}.json" for i in range(100) for j in range(30)]
    return survey, paths


def _block(survey: Survey, paths: list[str]) -> str:
    return shared_context("sys", "r", "0" * 40, paths, survey)


def test_block_is_deterministic() -> None:
    a = _block(*_big_survey(seed=1))
    b = _block(*_big_survey(seed=1))
    assert a == b
    survey, paths = _big_survey(seed=1)
    assert _block(survey, list(reversed(paths))) == a  # the file list does not follow input order


def test_block_is_bounded_on_a_huge_survey() -> None:
    survey, paths = _big_survey()
    text = _block(survey, paths)
    assert len(survey.findings) > 6000 and len(paths) > 3000
    assert len(text) < BLOCK_CAP
    files = text.split('kind="file_list"')[1].split("</repository_data>")[0]
    assert len(files.strip().splitlines()) <= MAX_FILE_LINES + 2  # the tag line and a cut line
    body = text.split('kind="survey_summary"')[1]
    # every category lists as many findings as the map's byte allowance leaves each
    # (between two and PER_CATEGORY), the same number for all
    per = {sum(1 for ln in body.splitlines() if ln.startswith(f"{cat}:")) for cat in CATEGORIES[1:]}
    assert len(per) == 1 and 2 <= per.pop() <= PER_CATEGORY
    key = body.split("## Findings most of the code leads to")[1].split("## ")[0]
    assert len(key.encode()) <= KEY_BYTES + 2_000  # the rows and the "more" lines


def test_block_names_the_survey_tool_and_the_counts() -> None:
    text = _block(*_big_survey())
    assert "`survey(category=...)`" in text and "`survey(path=...)`" in text
    assert "A summary of the static survey (6008 findings)" in text
    assert "entry_point 8: main_guard ×8" in text


def test_entry_points_are_always_listed_with_what_they_reach() -> None:
    survey, paths = _big_survey(entries=MAX_ENTRY_UNITS)
    body = _block(survey, paths).split('kind="survey_summary"')[1]
    listed = [i for i in range(MAX_ENTRY_UNITS) if f"entry_point:scripts/run{i}.py:10 " in body]
    # as many as the entry allowance holds, the rest counted
    entries = body.split("## Entry units")[1].split("## ")[0]
    assert listed and len(entries.encode()) <= ENTRY_BYTES + 2_000
    if len(listed) < MAX_ENTRY_UNITS:
        assert f"... {MAX_ENTRY_UNITS - len(listed)} more entry units, not listed" in body
    for i in listed:
        row = next(
            ln for ln in body.splitlines() if ln.startswith(f"entry_point:scripts/run{i}.py:10 ")
        )
        lib = survey.index().by_path[f"pkg/mod{i}.py"]
        assert ("| reaches " in row) == any(f.category in EFFECT_CATEGORIES for f in lib)
    # past the cap the rest are counted, never silently dropped
    survey, paths = _big_survey(entries=MAX_ENTRY_UNITS + 5)
    body = _block(survey, paths).split('kind="survey_summary"')[1]
    assert f"... {MAX_ENTRY_UNITS + 5 - len(listed)} more entry units, not listed" in body


def test_key_findings_prefer_what_entry_points_reach() -> None:
    """Of many equal findings, the one an entry point's code reaches is listed."""
    findings = [_finding("persistence", "write", f"lib/m{i}.py", 5) for i in range(40)]
    findings.append(_finding("entry_point", "main_guard", "main.py", 3, "<main>"))
    graph = CallGraph(
        functions={
            "main.py::<main>": FunctionNode(
                id="main.py::<main>", path="main.py", symbol="<main>", start_line=3, end_line=4
            ),
            "lib/m37.py::f": FunctionNode(
                id="lib/m37.py::f", path="lib/m37.py", symbol="f", start_line=1, end_line=9
            ),
        },
        edges={"main.py::<main>": ["lib/m37.py::f"]},
    )
    survey = Survey(repository="r", revision="0" * 40, findings=findings, call_graph=graph)
    body = _block(survey, ["main.py"]).split('kind="survey_summary"')[1]
    assert "persistence:lib/m37.py:5 " in body
    assert "persistence:lib/m39.py:5 " not in body
    assert "reaches persistence ×1" in body


def test_file_map_folds_bulky_folders_and_says_so() -> None:
    src = [f"src/pkg/m{i}.py" for i in range(40)]
    data = [f"results/run{i}/log{j}.json" for i in range(50) for j in range(10)]
    readme = ["README.md"]
    lines, folded, hidden = file_map(src + data + readme, keep=set(src), budget=60)
    assert set(src) <= set(lines)  # the source the survey points into stays listed
    assert folded == 1 and hidden == 500
    assert "results/ (500 files: .json ×500)" in lines
    assert lines == sorted(lines)
    text = shared_context("s", "r", "0" * 40, src + data + readme, None)
    assert "The repository's files (541 paths)" in text
    # within budget nothing is folded
    assert file_map(src, budget=60) == (sorted(src), 0, 0)


def test_file_map_extensions_are_tallied_and_capped() -> None:
    data = [f"d/x{i}.{ext}" for ext in ("a", "b", "c", "d", "e") for i in range(3)]
    lines, folded, _ = file_map(data + ["top.py"], budget=5)
    assert folded == 1
    assert lines == ["d/ (15 files: .a ×3, .b ×3, .c ×3, .d ×3, other ×3)", "top.py"]


def test_no_survey_still_gives_a_block() -> None:
    text = shared_context("s", "r", "0" * 40, ["a.py"], None)
    assert "(the survey found nothing)" in text
    assert 'kind="file_list" count="1">\na.py\n' in text


def test_the_plan_id_index_keeps_central_files_whole_within_its_budget() -> None:
    """On a survey far past the budget the index fits it, lists whole files, puts
    the files the entry units reach first, and gives the same bytes every time."""
    from graph.proposers.agent.map import CORE_ID_BUDGET, ID_INDEX_BUDGET, id_index

    survey, _ = _big_survey()
    text, missing, files = id_index(survey)
    assert 0 < len(text) <= ID_INDEX_BUDGET + CORE_ID_BUDGET and missing > 0 and files > 0
    assert id_index(survey) == (text, missing, files)
    rows = text.splitlines()
    assert rows == sorted(rows)
    listed = [r.split(": ", 1)[0] for r in rows]
    ix = survey.index()
    shown_ids = code_map_shown(ix)
    busiest = min(ix.by_path, key=lambda p: (-len(ix.by_path[p]), p))
    assert busiest in listed  # central files first (here: by how many findings they hold)
    for path in listed:  # whole: every finding of a listed file not shown in the map
        want = {f.id for f in ix.by_path[path] if f.id not in shown_ids}
        row = next(r for r in rows if r.startswith(path + ": "))
        got = {
            f"{part.split(' ')[0]}:{path}:{t}"
            for part in row.split(": ", 1)[1].split("; ")
            for t in part.split(" ")[1:]
        }
        assert got == want


def code_map_shown(ix: SurveyIndex) -> set[str]:
    from graph.proposers.agent.map import shown_ids

    return shown_ids(ix)


def _examples_survey(examples: int = 50) -> Survey:
    """A package with one entry point (its CLI) and ``examples`` example scripts that
    each start alphabetically before it and reach more findings than it does."""
    findings = [
        _finding("entry_point", "main_guard", "pkg/cli.py", 40, "<main>"),
        _finding("model_call", "chat", "pkg/agent.py", 12, "step"),
        _finding("persistence", "write", "pkg/store.py", 8, "save"),
    ]
    functions = {
        "pkg/cli.py::<main>": FunctionNode(
            id="pkg/cli.py::<main>", path="pkg/cli.py", symbol="<main>", start_line=40, end_line=44
        ),
        "pkg/agent.py::step": FunctionNode(
            id="pkg/agent.py::step", path="pkg/agent.py", symbol="step", start_line=10, end_line=20
        ),
    }
    edges = {"pkg/cli.py::<main>": ["pkg/agent.py::step"]}
    for i in range(examples):
        path = f"examples/ex{i:02d}.py"
        main = f"{path}::<main>"
        findings.append(_finding("entry_point", "main_guard", path, 5, "<main>"))
        for k in range(3):
            findings.append(_finding("model_call", "chat", path, 10 + k, "<main>"))
        functions[main] = FunctionNode(
            id=main, path=path, symbol="<main>", start_line=5, end_line=20
        )
        edges[main] = ["pkg/agent.py::step"]
    return Survey(
        repository="r",
        revision="0" * 40,
        findings=findings,
        call_graph=CallGraph(functions=functions, edges=edges),
    )


def test_a_packages_entry_point_comes_before_fifty_example_scripts() -> None:
    """The entry units list the package's CLI and summarise the 50 example scripts in
    one line; the findings "most of the code leads to" and the busy files start with
    the package; every core finding ID is citable from the plan's first turn."""
    from graph.proposers.agent.map import id_index, shown_ids, survey_summary
    from graph.proposers.agent.prompts import finding_line

    survey = _examples_survey()
    text, _, _ = survey_summary(survey, finding_line)
    entries = text.split("## Entry units")[1].split("## Findings most")[0]
    listed = [ln for ln in entries.splitlines() if ln.startswith("entry_point:")]
    assert listed and listed[0].startswith("entry_point:pkg/cli.py:40 ")
    assert not any("examples/" in ln for ln in listed)
    assert "examples/ 50 entry unit(s) (tests, examples, docs)" in entries
    leads = text.split("## Findings most of the code leads to")[1].split("## Files")[0]
    first_model = next(ln for ln in leads.splitlines() if ln.startswith("model_call:"))
    assert first_model.startswith("model_call:pkg/agent.py:12 ")
    busy = text.split("## Files with the most findings")[1].strip().splitlines()
    assert busy[0].startswith("pkg/")
    ix = survey.index()
    index_text, _, _ = id_index(survey)
    cited = shown_ids(ix) | {
        f"{part.split(' ')[0]}:{row.split(': ', 1)[0]}:{t}"
        for row in index_text.splitlines()
        for part in row.split(": ", 1)[1].split("; ")
        for t in part.split(" ")[1:]
    }
    assert all(f.id in cited for f in survey.findings if f.path.startswith("pkg/"))
