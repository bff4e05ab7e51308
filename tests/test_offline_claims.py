"""Claims from instruction files: rule sentences that name code identifiers are mined,
ranked first, and related to the code that uses those identifiers (both quoted)."""

from __future__ import annotations

from pathlib import Path

from test_survey import make_repo

from drafter.snapshot import Snapshot
from drafter.verify import verify_report
from graph.proposers.offline import draft_offline
from retrieval.survey import run_survey

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
    repo = make_repo(tmp_path / "r", REPO)
    with Snapshot(repo, "HEAD") as snap:
        survey = run_survey(snap)
        draft = verify_report(draft_offline(snap, survey, "x"), snap)
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
