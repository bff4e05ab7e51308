"""The verifier accepts a quote only when it is in the file under the format's
normalisations, and says where; misses come back with real passages for repair."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from gitrepo import commit, git

from drafter.model import (
    AccountSection,
    LineRange,
    MatchKind,
    Paragraph,
    Record,
    RecordSection,
    Report,
    ReportType,
    VerifyStatus,
    Witness,
    WitnessBlock,
)
from drafter.snapshot import Snapshot
from drafter.verify import Verifier, report_summary, verify_report

APP_PY = '''\
"""Agent loop for the tiny system."""
import subprocess

MAX_STEPS = 12


def run_loop(client, task):
    history = [task]
    for step in range(MAX_STEPS):
        reply = client.complete(history)
        if reply.tool is None:
            return reply.text
        history.append(dispatch(reply.tool, reply.args))
    return None


def dispatch(tool, args):
    """Run a tool.  Only `shell` is known."""
    if tool == "shell":
        return subprocess.run(args, capture_output=True, timeout=30).stdout
    raise KeyError(tool)
'''

GUIDE_MD = """\
# Operator guide

**Only edit files under `agent/`.** Never touch the [scoring script](scripts/score.py)
while a run is active; *really* never.

Steps before each run:

- Reset the workspace with `make clean`.
- Check the _baseline_ score.
* Record the commit hash.

Numbered:

1. First numbered step.
2. Second numbered step.
"""

PROMPT_PY = '''\
SYSTEM = """You are a careful agent.
- When you finish, send a final text message summarizing the work.
- Never call tools after the final message.
"""
'''

DUP_PY = """\
def a():
    retries = 3
    return retries


def b():
    retries = 3
    return retries * 2
"""


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    r = tmp_path_factory.mktemp("verify") / "repo"
    r.mkdir()
    git(r, "init", "-q")
    first = commit(
        r,
        {
            "src/app.py": APP_PY,
            "docs/guide.md": GUIDE_MD,
            "src/prompt.py": PROMPT_PY,
            "src/dup.py": DUP_PY,
            "notes/old.txt": "legacy threshold is 0.75 for admission\n",
            "blob.bin": b"\x00\x00binary retries = 3",
            "latin.txt": "caf\xe9 menu: retries = 3 here\n".encode("latin-1"),
        },
        "first",
    )
    os.symlink("src/app.py", r / "link.py")
    git(r, "add", "link.py")
    second = commit(r, {"notes/old.txt": "threshold is now 0.9 for admission\n"}, "second")
    return r, first, second


@pytest.fixture(scope="module")
def verifier(repo: tuple[Path, str, str]) -> Verifier:
    return Verifier(Snapshot(repo[0], repo[2]))


def check(v: Verifier, quote: str, path: str, lines: tuple[int, int] | None = None):
    lr = LineRange(start=lines[0], end=lines[1]) if lines else None
    return v.check(quote, path, lr)


def found(v: Verifier, quote: str, path: str):
    """(status, match kind, (first line, last line)) of one check: what most cases assert."""
    r = v.check(quote, path, None)
    span = (r.lines.start, r.lines.end) if r.lines else None
    return r.status, r.match_kind, span


def test_exact_single_line(verifier: Verifier) -> None:
    r = check(verifier, "reply = client.complete(history)", "src/app.py")
    assert r.status == VerifyStatus.verified
    assert r.match_kind == MatchKind.exact
    assert (r.lines.start, r.lines.end) == (10, 10)
    assert r.occurrences == 1
    assert r.revision == verifier.snapshot.sha


def test_multi_line_quote_collapsed(verifier: Verifier) -> None:
    q = (
        "for step in range(MAX_STEPS): reply = client.complete(history) "
        "if reply.tool is None: return reply.text"
    )
    assert found(verifier, q, "src/app.py") == (
        VerifyStatus.verified,
        MatchKind.whitespace,
        (9, 12),
    )


def test_whitespace_is_not_optional(verifier: Verifier) -> None:
    """Collapsing means one space per run, not zero: "a b" never matches "ab"."""
    r = check(
        verifier, "for step in range(MAX_STEPS):reply = client.complete(history)", "src/app.py"
    )
    assert r.status == VerifyStatus.not_found


def test_markup_dropped(verifier: Verifier) -> None:
    q = (
        "Only edit files under agent/. Never touch the scoring script while a run is "
        "active; really never."
    )
    assert found(verifier, q, "docs/guide.md") == (VerifyStatus.verified, MatchKind.markup, (3, 4))


def test_code_span_in_python_docstring(verifier: Verifier) -> None:
    assert found(verifier, "Run a tool. Only shell is known.", "src/app.py") == (
        VerifyStatus.verified,
        MatchKind.markup,
        (18, 18),
    )


def test_markup_kept_verbatim_is_exact(verifier: Verifier) -> None:
    r = check(verifier, "Check the _baseline_ score.", "docs/guide.md")
    assert (r.status, r.match_kind) == (VerifyStatus.verified, MatchKind.exact)


def test_list_item_as_bullet(verifier: Verifier) -> None:
    r = check(
        verifier,
        "• When you finish, send a final text message summarizing the work.",
        "src/prompt.py",
    )
    assert r.status == VerifyStatus.verified
    assert (r.lines.start, r.lines.end) == (2, 2)
    # the source's own marker still matches, and a bullet where no list item is does not
    assert check(verifier, "- When you finish, send", "src/prompt.py").status == "verified"
    assert check(verifier, "careful • agent", "src/prompt.py").status == "not_found"
    assert check(verifier, "• You are a careful agent.", "src/prompt.py").status == "not_found"


def test_quote_spanning_a_markdown_list(verifier: Verifier) -> None:
    q = (
        "Steps before each run: • Reset the workspace with make clean. "
        "• Check the baseline score. • Record the commit hash."
    )
    assert found(verifier, q, "docs/guide.md") == (VerifyStatus.verified, MatchKind.markup, (6, 10))
    # the same list with the markers dropped is not what the source says
    r2 = check(verifier, q.replace("• ", ""), "docs/guide.md")
    assert r2.status == VerifyStatus.not_found


def test_numbered_list_kept_as_written(verifier: Verifier) -> None:
    q = "1. First numbered step. 2. Second numbered step."
    assert found(verifier, q, "docs/guide.md") == (
        VerifyStatus.verified,
        MatchKind.whitespace,
        (14, 15),
    )


def test_quote_occurring_twice(verifier: Verifier) -> None:
    r = check(verifier, "retries = 3", "src/dup.py")
    assert r.status == VerifyStatus.ambiguous
    assert r.occurrences == 2
    assert [(p.lines.start, p.lines.end) for p in r.nearest] == [(2, 2), (7, 7)]
    picked = check(verifier, "retries = 3", "src/dup.py", (6, 8))
    assert picked.status == VerifyStatus.verified
    assert (picked.lines.start, picked.lines.end) == (7, 7)
    assert picked.occurrences == 2
    both = check(verifier, "retries = 3", "src/dup.py", (1, 9))
    assert both.status == VerifyStatus.ambiguous
    wrong = check(verifier, "retries = 3", "src/dup.py", (4, 5))
    assert wrong.status == VerifyStatus.not_found
    assert "2-2, 7-7" in wrong.message
    assert [(p.lines.start, p.lines.end) for p in wrong.nearest] == [(2, 2), (7, 7)]


def test_quote_present_only_in_another_revision(repo: tuple[Path, str, str]) -> None:
    r, first, second = repo
    q = "legacy threshold is 0.75 for admission"
    old = Verifier(Snapshot(r, first)).check(q, "notes/old.txt")
    assert old.status == VerifyStatus.verified and old.revision == first
    new = Verifier(Snapshot(r, second)).check(q, "notes/old.txt")
    assert new.status == VerifyStatus.not_found and new.revision == second
    assert new.nearest and new.nearest[0].text == "threshold is now 0.9 for admission"


@pytest.mark.parametrize(
    "path", ["../repo/src/app.py", "/etc/passwd", "src/../../x.py", "/tmp/src/app.py"]
)
def test_escaping_paths_never_looked_up(repo: tuple[Path, str, str], path: str) -> None:
    snap = Snapshot(repo[0])

    def boom(*_a: object, **_k: object) -> None:
        raise AssertionError("filesystem or repository touched")

    for name in ("entry", "read_text", "read_bytes", "files", "is_dir", "_load_tree"):
        setattr(snap, name, boom)
    r = Verifier(snap).check("import subprocess", path)
    assert r.status == VerifyStatus.path_missing
    assert "absolute or leaves" in r.message


def test_missing_path_points_elsewhere(verifier: Verifier) -> None:
    r = check(
        verifier,
        "return subprocess.run(args, capture_output=True, timeout=30).stdout",
        "src/tools.py",
    )
    assert r.status == VerifyStatus.path_missing
    assert [(p.path, p.lines.start) for p in r.nearest] == [("src/app.py", 20)]


def test_symlink_directory_binary_and_lossy(verifier: Verifier) -> None:
    assert check(verifier, "import subprocess", "link.py").status == VerifyStatus.path_missing
    assert "symlink" in check(verifier, "import subprocess", "link.py").message
    assert "directory" in check(verifier, "import subprocess", "src").message
    b = check(verifier, "binary retries", "blob.bin")
    assert b.status == VerifyStatus.not_found and "binary" in b.message
    lossy = check(verifier, "menu: retries = 3 here", "latin.txt")
    assert lossy.status == VerifyStatus.verified and "not valid UTF-8" in lossy.message
    assert check(verifier, "caf\ufffd menu", "latin.txt").status == VerifyStatus.not_found


def test_nearest_passages_for_a_miss(verifier: Verifier) -> None:
    r = check(verifier, "history.append(dispatch(reply.tool, reply.argz))", "src/app.py")
    assert r.status == VerifyStatus.not_found
    assert 1 <= len(r.nearest) <= 3
    top = r.nearest[0]
    assert (top.lines.start, top.lines.end) == (13, 13)
    assert top.text == "        history.append(dispatch(reply.tool, reply.args))"
    assert 0.9 < top.score < 1.0
    assert top.score == max(p.score for p in r.nearest)


def _report(witnesses: list[Witness]) -> Report:
    return Report(
        system="tiny",
        type=ReportType.runtime,
        account=[
            AccountSection(
                title="Runtime account",
                blocks=[Paragraph(text="intro"), WitnessBlock(witness=witnesses[0])],
            )
        ],
        sections=[
            RecordSection(
                title="Routes",
                records=[
                    Record(
                        id="RT-RTE-loop",
                        label="Loop",
                        blocks=[WitnessBlock(witness=w) for w in witnesses[1:]],
                    )
                ],
            )
        ],
    )


def test_verify_report_returns_verified_copy(repo: tuple[Path, str, str]) -> None:
    ws = [
        Witness(quote="MAX_STEPS = 12", path="src/app.py"),
        Witness(quote="retries = 3", path="src/dup.py"),
        Witness(quote="retries = 3", path="src/dup.py", lines=LineRange(start=2, end=2)),
        Witness(quote="• Record the commit hash.", path="docs/guide.md"),
        Witness(quote="Only edit files under agent/.", path="docs/guide.md"),
        Witness(quote="nothing like this", path="src/app.py"),
        Witness(quote="x", path="../x"),
    ]
    report = _report(ws)
    out = verify_report(report, Snapshot(repo[0]))
    assert all(w.verification is None for w in report.witnesses)
    got = [(w.verification.status.value, w.verification.match_kind) for w in out.witnesses]
    assert got == [
        ("verified", "exact"),
        ("ambiguous", "exact"),
        ("verified", "exact"),
        ("verified", "whitespace"),
        ("verified", "markup"),
        ("not_found", None),
        ("path_missing", None),
    ]
    s = report_summary(out)
    assert s.total == 7 and not s.ok
    assert s.by_status == {"verified": 4, "ambiguous": 1, "not_found": 1, "path_missing": 1}
    assert s.by_match == {"exact": 2, "whitespace": 1, "markup": 1}
    same = verify_report(report, Snapshot(repo[0]), in_place=True)
    assert same is report and report.witnesses[0].verified


def test_threads_agree_with_serial(repo: tuple[Path, str, str]) -> None:
    quotes = [
        (line.strip(), p)
        for p, text in [("src/app.py", APP_PY), ("docs/guide.md", GUIDE_MD)]
        for line in text.splitlines()
        if line.strip()
    ] * 3
    serial = [Verifier(Snapshot(repo[0])).check(q, p) for q, p in quotes]
    shared = Verifier(Snapshot(repo[0]))
    with ThreadPoolExecutor(max_workers=6) as pool:
        parallel = list(pool.map(lambda qp: shared.check(*qp), quotes))
    assert parallel == serial


def test_verify_many_matches_one_by_one(repo: tuple[Path, str, str]) -> None:
    ws = [
        Witness(quote=line.strip(), path=p)
        for p, text in [("src/app.py", APP_PY), ("docs/guide.md", GUIDE_MD), ("src/dup.py", DUP_PY)]
        for line in text.splitlines()
        if line.strip()
    ]
    ws += [Witness(quote="x", path="nope.py"), Witness(quote="x", path="link.py")]
    batch = Verifier(Snapshot(repo[0])).verify_many(ws)
    single = Verifier(Snapshot(repo[0]))
    assert batch == [single.verify(w) for w in ws]
    assert sum(v.status == VerifyStatus.verified for v in batch) >= 20


def test_nearest_for_a_one_word_typo(verifier: Verifier) -> None:
    r = check(verifier, "MAX_STEBS", "src/app.py")
    assert r.status == VerifyStatus.not_found
    assert r.nearest and (r.nearest[0].lines.start, r.nearest[0].lines.end) == (4, 4)


def test_nearest_finds_the_definition_behind_a_mistyped_name(tmp_path: Path) -> None:
    """Only `def` and `(` of the quote are in the file, and `def` is on every function
    line; the mistyped name's 4-grams are what point at the real definition."""
    body = "".join(f"def step_{i}(state):\n    return state + {i}\n\n\n" for i in range(20))
    body += "def generate_loop(root, out):\n    return root\n"
    r = tmp_path / "repo"
    r.mkdir()
    git(r, "init", "-q")
    sha = commit(r, {"loop.py": body}, "one")
    v = Verifier(Snapshot(r, sha))
    res = check(v, "def generate_lop(", "loop.py")
    assert res.status == VerifyStatus.not_found
    want = body.splitlines().index("def generate_loop(root, out):") + 1
    assert res.nearest and (res.nearest[0].lines.start, res.nearest[0].lines.end) == (want, want)
