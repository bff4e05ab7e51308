"""What every tool answer tells the model, and what a refused call costs.

Relay runs showed a ``grep`` the schema refused still counted against the budget, no
answer said how much budget was left, ``check_quotes`` called a quote ambiguous when
it was also the tail of a longer name (``random.seed(`` inside ``np.random.seed(``)
without saying which occurrence was which, ``grep`` hits were crowded out by tests
next to the sources, and ``grep`` suggested ``read_file`` for a large binary.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from claude_investigation import tool_results
from fakes import MODEL, FakeAPI, tool, use
from gitrepo import commit

from graph.proposer import PlanContext
from graph.proposers.agent.tools import GREP_MAX_BYTES, SnapshotTools
from graph.proposers.claude import ToolBudgets
from graph.resources import Resources

SEEDS = "import numpy as np\nimport random\n\nnp.random.seed(0)\nrandom.seed(0)\n"


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    path = tmp_path_factory.mktemp("answers") / "repo"
    files: dict[str, str | bytes] = {
        "README.md": "# r\n",
        "seeds.py": SEEDS,
        "src/agent.ts": "export function step() {\n  return callModel();\n}\n",
        "src/agent.test.ts": "test('step', () => callModel());\n",
        "src/__snapshots__/agent.test.ts.snap": "exports[`x`] = `callModel()`;\n",
        "tests/test_agent.py": "callModel()\n",
        "aaa/rg": b"\x7fELF" + b"\0" * (GREP_MAX_BYTES + 10),
        "big.txt": "callModel()\n" * (GREP_MAX_BYTES // 12 + 10),
    }
    sha = commit(path, files)
    return path, sha


@pytest.fixture()
def tools(repo):
    path, sha = repo
    res = Resources(repo=str(path), rev=sha, use_index=False)
    yield SnapshotTools(res)
    res.close()


def test_check_quotes_says_which_occurrence_stands_on_its_own(tools) -> None:
    out, err = tools.run(
        "check_quotes", {"witnesses": [{"quote": "random.seed(0)", "path": "seeds.py"}]}
    )
    assert not err and "ambiguous" in out
    assert "line 4: np.random.seed(0) (the quote is the tail of a longer name here)" in out
    assert "line 5: random.seed(0)\n" in out
    assert "only line 5 holds the quote on its own: add start_line=5" in out
    # with the hint the answer names, the quote verifies
    out, _ = tools.run(
        "check_quotes",
        {"witnesses": [{"quote": "random.seed(0)", "path": "seeds.py", "start_line": 5}]},
    )
    assert out.startswith("1 of 1 verified")


def test_grep_searches_code_before_tests_and_takes_an_exclude_glob(tools) -> None:
    out, err = tools.run("grep", {"pattern": "callModel"})
    assert not err
    hits = [
        ln.split(":", 1)[0]
        for ln in out.splitlines()
        if ln.endswith(("callModel();", "callModel());", "callModel()`;", "callModel()"))
    ]
    assert hits[0] == "src/agent.ts"
    assert hits.index("src/agent.ts") < hits.index("src/agent.test.ts")
    assert hits.index("src/agent.ts") < hits.index("src/__snapshots__/agent.test.ts.snap")
    assert hits.index("src/agent.ts") < hits.index("tests/test_agent.py")
    out, _ = tools.run("grep", {"pattern": "callModel", "exclude_glob": "*.test.ts"})
    assert "src/agent.test.ts:" not in out and "src/agent.ts:" in out
    # a large binary is named as not readable; a large text file with how to read it
    out, _ = tools.run("grep", {"pattern": "nothing-here"})
    assert "aaa/rg: larger than" in out and "likely binary; not readable as text" in out
    assert "big.txt: larger than" in out and "read it with read_file" in out
    rg_row = next(ln for ln in out.splitlines() if ln.startswith("aaa/rg"))
    assert "read_file" not in rg_row


def test_a_refused_call_leaves_the_budget_and_every_answer_says_what_is_left(repo) -> None:
    path, sha = repo
    fake = FakeAPI()
    fake.script(
        "plan",
        use(("grep", {"pattern": "x", "max_hits": 9999})),  # refused by the schema
        use(("read_file", {"path": "seeds.py"})),
        use(("read_file", {"path": "README.md"})),
        tool({"system": "answers", "items": []}),
    )
    prop = fake.proposer(MODEL, budgets=ToolBudgets(plan=2))
    res = Resources(repo=str(path), rev=sha, use_index=False)
    try:
        prop.bind_resources(res)
        prop.plan(PlanContext(system="s", repository="r", revision=sha, files=[]))
    finally:
        res.close()
    calls = fake.calls("plan")
    (refused,) = tool_results(calls[1])
    assert refused["is_error"] and "refused by the schema: not counted" in refused["content"]
    assert refused["content"].endswith("[budget: 2 of 2 investigation tool calls left]")
    (first,) = tool_results(calls[2])
    assert not first.get("is_error") and first["content"].endswith(
        "[budget: 1 of 2 investigation tool calls left]"
    )
    (second,) = tool_results(calls[3])
    assert not second.get("is_error")  # the refused call did not spend the second call
    assert "[budget: 0 of 2 investigation tool calls left]" in second["content"]
    assert prop.transcripts["plan"].tool_calls == 2


def test_the_account_request_carries_record_summaries_not_whole_records() -> None:
    from drafter.model import Bullet, Paragraph, Record, Witness, WitnessBlock
    from graph.proposers.agent.requests import PARAGRAPH_CHARS, account_data

    long = "word " * 400
    blocks = [
        Paragraph(text="Endpoints/progression: a → b. " + long),
        Paragraph(text=long),
        Bullet(name="implementation conclusion status", value="wired"),
        *(WitnessBlock(witness=Witness(quote=f"x = {i}", path="a.py")) for i in range(7)),
    ]
    rec = Record(id="RT-RTE-a", label="a", blocks=blocks)
    text = account_data([rec])
    assert "Endpoints/progression: a → b." in text
    assert "- implementation conclusion status: wired" in text
    assert "(and 3 more witnesses)" in text and 'a.py: "x = 3"' in text
    assert len(text) < 2 * len(long)  # two 2,000-character paragraphs, clipped
    assert any(len(ln) == PARAGRAPH_CHARS for ln in text.splitlines())


def test_the_account_data_fits_its_budget_and_names_every_record() -> None:
    """The account's first request reached 66 KB on a relay run (15 records beside the
    shared block): the summaries shrink to the room the ceiling leaves."""
    from drafter.model import Paragraph, Record, Witness, WitnessBlock
    from graph.proposers.agent.requests import account_data

    def rec(i: int) -> Record:
        quotes = (WitnessBlock(witness=Witness(quote="q" * 150, path=f"m{j}.py")) for j in range(5))
        return Record(
            id=f"RT-RTE-r{i}", label=f"r{i}", blocks=[Paragraph(text="step " * 200), *quotes]
        )

    records = [rec(i) for i in range(15)]
    whole = account_data(records)
    fewer = account_data(records, len(whole.encode()) * 2 // 3)
    assert len(fewer.encode()) <= len(whole.encode()) * 2 // 3
    assert all(f'id="RT-RTE-r{i}"' in fewer for i in range(15))  # each still summarised
    assert "witness (" in fewer and "more witnesses)" in fewer
    tight = account_data(records, 3_000)
    assert len(json.dumps(tight, ensure_ascii=False).encode()) <= 3_000
    # the records that did not fit are named, in order, to be read in the draft
    assert "not summarised for want of room" in tight and "RT-RTE-r14" in tight
    assert account_data(records, None) == whole


def test_a_universal_statement_without_a_witnessed_call_is_flagged() -> None:
    from drafter.model import Paragraph, Record, Witness, WitnessBlock
    from graph.universal import PREFIX, universal_flag

    claim = Paragraph(text="Every tool call reaches the policy engine through the message bus.")
    declared = WitnessBlock(witness=Witness(quote="class MessageBus:", path="bus.ts"))
    called = WitnessBlock(witness=Witness(quote="await this.engine.check(call)", path="s.ts"))
    bare = Record(id="RT-RTE-a", label="a", blocks=[claim, declared])
    flag = universal_flag(bare)
    assert flag is not None and flag.text.startswith(PREFIX) and "Every tool call" in flag.text
    assert universal_flag(bare.model_copy(update={"blocks": [claim, declared, called]})) is None
    plain = Paragraph(text="The scheduler sends one request to the engine.")
    assert universal_flag(bare.model_copy(update={"blocks": [plain, declared]})) is None
    # flagged once, however often the record is verified again
    assert universal_flag(bare.model_copy(update={"flags": [flag]})) is None
