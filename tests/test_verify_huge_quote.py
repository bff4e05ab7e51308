"""A megabytes-long witness quote gets its verdict at once: every search is bounded by
the sizes of the quote and of the file (a needle longer than the text is not looked
for, the markup rules skip a quote's over-long paragraph as they skip a file's, and
the nearest-passage hints read a bounded opening of the quote)."""

from __future__ import annotations

import time
from pathlib import Path

from gitrepo import commit

from drafter.model import VerifyStatus
from drafter.snapshot import Snapshot
from drafter.verify import MAX_HINT_QUOTE, QuoteForms, Verifier

CODE = "".join(
    f"def step_{i}(agent):\n    return agent.call('tool_{i}', retries={i})\n" for i in range(400)
)


def _verifier(tmp_path: Path) -> Verifier:
    sha = commit(tmp_path / "r", {"agent.py": CODE, "README.md": "# *Agent* `loop`\n"})
    return Verifier(Snapshot(tmp_path / "r", sha))


def test_a_five_megabyte_quote_is_answered_at_once(tmp_path: Path) -> None:
    v = _verifier(tmp_path)
    for quote in ((CODE * 200)[:5_000_000], ("*x_ `y " * 800_000)[:5_000_000]):
        t = time.monotonic()
        got = v.check(quote, "agent.py")
        took = time.monotonic() - t
        assert got.status == VerifyStatus.not_found
        assert "longer than the file" in (got.message or "")
        assert took < 5, f"{took:.1f} s"  # minutes before the bounds
        assert all(len(p.text) <= 2_000 for p in got.nearest)


def test_a_quote_longer_than_its_file_still_finds_hints_from_its_opening(tmp_path: Path) -> None:
    v = _verifier(tmp_path)
    quote = "def step_7(agent):\n    return agent.call('tool_7', retries=7)\n" + "zz " * 2_000_000
    got = v.check(quote, "agent.py")
    assert got.status == VerifyStatus.not_found
    assert got.nearest and got.nearest[0].lines.start == 15


def test_markup_form_of_a_huge_paragraph_is_not_made_but_short_quotes_keep_it() -> None:
    assert QuoteForms("a " * 20_000 + "`b`").form("markup", True) is None
    assert QuoteForms("*Agent* `loop`").form("markup", True) == "Agent loop"
    assert MAX_HINT_QUOTE <= 4_000


def test_true_quotes_still_verify_at_every_level(tmp_path: Path) -> None:
    v = _verifier(tmp_path)
    assert (
        v.check("return agent.call('tool_3', retries=3)", "agent.py").status
        == VerifyStatus.verified
    )
    assert v.check("Agent loop", "README.md").status == VerifyStatus.verified
