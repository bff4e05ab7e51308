"""Search: hybrid ranking on the shipped sample, path filters, quality, errors."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from drafter.errors import BadInput
from drafter.sample import SAMPLE_SHA, materialize, materialize_v2
from drafter.snapshot import Snapshot
from retrieval.index import Index, open_index
from retrieval.quality import evaluate, load_queries
from retrieval.search import NotIndexed, path_matches, query_terms, search, terms

MODES = ["embedded", pytest.param("server", marks=pytest.mark.server)]


@pytest.fixture(scope="module", params=MODES)
def sample_index(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Index, Snapshot]]:
    """The sample indexed once per mode for the whole module (embedding is the slow part)."""
    root = tmp_path_factory.mktemp("sample-search")
    repo = materialize(root / "sample")
    url = request.getfixturevalue("chroma_server_url") if request.param == "server" else None
    index = open_index(root / "data", url or "", namespace=uuid.uuid4().hex if url else "")
    snap = Snapshot(repo.path, repo.sha)
    index.ensure(snap, progress=False)
    yield index, snap
    snap.close()
    index.close()


def test_sample_is_the_pinned_revision(sample_index) -> None:
    _, snap = sample_index
    assert snap.sha == SAMPLE_SHA


def test_identifier_query_returns_the_line_that_calls_it(sample_index) -> None:
    index, snap = sample_index
    top = search(index, snap, "exec_module", k=5)[0]
    assert (top.path, top.symbol, top.start_line, top.end_line) == (
        "tinkerbot/plugins.py",
        "load_plugins",
        11,
        20,
    )
    assert top.line == 16
    assert top.text.split("\n")[top.line - top.start_line].strip() == (
        "spec.loader.exec_module(module)"
    )
    assert top.lexical_rank == 1


def test_recall_at_5_on_the_labelled_sample_queries(sample_index) -> None:
    index, snap = sample_index
    queries = load_queries()
    assert len(queries) >= 15
    recall, rows = evaluate(index, snap, queries, k=5)
    misses = [r.query.text for r in rows if r.rank is None]
    assert recall >= 0.9, f"recall@5 = {recall:.2f}; missed: {misses}"


def test_path_glob_restricts_both_rankings(sample_index) -> None:
    index, snap = sample_index
    hits = search(index, snap, "tool", k=10, path_glob="tinkerbot/tools.py")
    assert hits and {h.path for h in hits} == {"tinkerbot/tools.py"}
    md = search(index, snap, "prompt", k=10, path_glob="*.md")
    assert md and all(h.path.endswith(".md") for h in md)
    folder = search(index, snap, "register", k=10, path_glob="plugins")
    assert folder and {h.path for h in folder} == {"plugins/word_count.py"}
    assert search(index, snap, "anything", k=3, path_glob="nowhere/*") == []


def test_hits_are_ranked_and_limited(sample_index) -> None:
    index, snap = sample_index
    hits = search(index, snap, "sqlite scores", k=3)
    assert len(hits) == 3
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert len({(h.path, h.start_line) for h in hits}) == 3


def test_bad_queries_and_unindexed_revisions_are_bad_input(sample_index, tmp_path: Path) -> None:
    index, snap = sample_index
    with pytest.raises(BadInput, match="empty"):
        search(index, snap, "   ")
    with pytest.raises(BadInput, match="-k"):
        search(index, snap, "x", k=0)
    repo = tmp_path / "unindexed"
    materialize(repo)
    with Snapshot(repo) as fresh:
        other = open_index(tmp_path / "data")
        try:
            with pytest.raises(NotIndexed, match="not indexed"):
                search(other, fresh, "tool")
        finally:
            other.close()


def test_second_sample_revision_embeds_only_chunks_of_changed_files(
    sample_index, tmp_path: Path
) -> None:
    index, snap = sample_index
    v2 = materialize_v2(tmp_path / "v2")
    with Snapshot(v2.path, v2.sha) as s2:
        changed = set(_changed_files(v2.path, snap.sha, v2.sha))
        st = index.ensure(s2, progress=False)
        assert changed == {"README.md", "tinkerbot/tools.py"}
        assert st.embedded > 0 and st.embedded_ids
        assert {i.split("#")[0] for i in st.embedded_ids} <= changed
        assert st.reused == st.chunks - st.embedded
        hits = search(index, s2, "is_relative_to", k=3)
        assert hits[0].path == "tinkerbot/tools.py"


def _changed_files(repo: Path, a: str, b: str) -> list[str]:
    import subprocess

    r = subprocess.run(
        ["git", "-C", str(repo), "diff", "--name-only", a, b], capture_output=True, check=True
    )
    return r.stdout.decode().split()


def test_terms_split_identifiers_but_keep_them_whole() -> None:
    assert terms("spec.loader.exec_module(module)") == [
        "spec",
        "loader",
        "exec_module",
        "exec",
        "module",
        "module",
    ]
    assert terms("loadPlugins HTTPServer") == [
        "loadplugins",
        "load",
        "plugins",
        "httpserver",
        "http",
        "server",
    ]
    assert query_terms("how is the tool registry built") == ["tool", "registry", "built"]
    assert query_terms("the") == ["the"]


def test_path_matches() -> None:
    assert path_matches("a/b/c.py", "a/b")
    assert path_matches("a/b/c.py", "a/*.py")
    assert path_matches("a/b/c.py", "*.py")
    assert not path_matches("ab/c.py", "a")
