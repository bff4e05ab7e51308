"""Index: idempotent, incremental, crash-safe, reopenable, in embedded and server mode."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from gitrepo import commit, git

from drafter.cli import main as drafter_main
from drafter.snapshot import Snapshot
from retrieval import index as index_module
from retrieval.chunking import chunk_file
from retrieval.index import Index, IndexModelMismatch, open_index
from retrieval.search import search

LOADER = textwrap.dedent('''\
    """Load plugins."""

    import importlib.util


    def alpha(path):
        spec = importlib.util.spec_from_file_location("p", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module


    def beta(x):
        return x * 2


    def gamma(y):
        """Gamma docs."""
        return y + 1
    ''')


def expected_chunks(snap: Snapshot) -> dict[str, str]:
    out: dict[str, str] = {}
    for path in snap.files():
        tf = snap.read_text(path)
        if tf.binary:
            continue
        for c in chunk_file(path, tf.text).chunks:
            out[c.id] = c.content_hash
    return out


def stored(index: Index, snap: Snapshot) -> list[dict]:
    col = index.client.get_collection(index.name_for(snap))
    got = col.get(include=["metadatas", "documents"])
    return [
        {"id": i, **m, "text": d}
        for i, m, d in zip(got["ids"], got["metadatas"], got["documents"], strict=True)
    ]


MODES = ["embedded", pytest.param("server", marks=pytest.mark.server)]


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def make_index(
    mode: str, request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Callable[..., Index]:
    """Opens indexes of one mode; in server mode a fresh namespace isolates the test."""
    monkeypatch.delenv("DRAFTER_CHROMA_URL", raising=False)
    url = request.getfixturevalue("chroma_server_url") if mode == "server" else None
    namespace = uuid.uuid4().hex if mode == "server" else ""
    opened: list[Index] = []

    def make(**kw: object) -> Index:
        idx = open_index(tmp_path / "data", url, namespace=namespace, **kw)  # type: ignore[arg-type]
        opened.append(idx)
        return idx

    make.url = url  # type: ignore[attr-defined]
    make.namespace = namespace  # type: ignore[attr-defined]
    make.data_dir = tmp_path / "data"  # type: ignore[attr-defined]
    yield make
    for idx in opened:
        idx.close()


def test_index_is_complete_exact_and_idempotent(make_index, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    commit(
        repo,
        {
            "pkg/loader.py": LOADER,
            "README.md": "# Demo\n\nLoads plugins.\n\n## Usage\n\nCall alpha.\n",
            "conf.yaml": "name: demo\nlevel: 3\n",
            "logo.png": b"\x89PNG\r\n\x1a\n\0\0binary",
            "node_modules/x/index.js": "module.exports = 1;\n",
            "bad.py": "def broken(:\n    pass\n",
        },
    )
    idx = make_index()
    with Snapshot(repo) as snap:
        want = expected_chunks(snap)
        st = idx.ensure(snap, progress=False)
        assert st.chunks == len(want) == st.embedded == st.stored
        assert st.files_total == 6 and st.files_indexed == 4
        assert dict(st.skipped) == {}  # nothing read was refused by the chunker
        # the image and the vendored file are listed by role, not read
        assert dict(st.roles) == {
            "code: embedded": 2,
            "docs: embedded": 1,
            "config: embedded": 1,
            "data: skipped": 1,
            "vendored: skipped": 1,
        }
        assert st.syntax_errors == ["bad.py"]
        rows = stored(idx, snap)
        assert {r["id"]: r["content_hash"] for r in rows} == {
            k: v for k, v in want.items() if not k.startswith("node_modules")
        }
        lines = LOADER.split("\n")
        for r in rows:
            if r["path"] == "pkg/loader.py":
                want_text = "\n".join(lines[r["start_line"] - 1 : r["end_line"]]) + "\n"
                assert r["text"] == want_text
        assert {
            (r["path"], r["start_line"], r["end_line"], r["symbol"])
            for r in rows
            if r["path"] == "pkg/loader.py"
        } == {
            ("pkg/loader.py", 1, 3, "<module>"),
            ("pkg/loader.py", 6, 10, "alpha"),
            ("pkg/loader.py", 13, 14, "beta"),
            ("pkg/loader.py", 17, 19, "gamma"),
        }
        again = idx.ensure(snap, progress=False)
        assert again.was_complete and again.embedded == 0 and again.stored == 0
        assert again.chunks == st.chunks
        assert len(stored(idx, snap)) == st.chunks

        hits = search(idx, snap, "exec_module", k=3)
        assert hits[0].path == "pkg/loader.py" and hits[0].symbol == "alpha"
        assert hits[0].line == 9 and "exec_module(module)" in hits[0].snippet


def test_second_revision_embeds_only_changed_chunks(make_index, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    commit(repo, {"pkg/loader.py": LOADER, "notes.md": "# Notes\n\nnothing yet\n"})
    idx = make_index()
    with Snapshot(repo) as s1:
        first = idx.ensure(s1, progress=False)
    assert first.embedded == first.chunks == 5
    # beta's body changes; two blank lines shift alpha, beta and gamma down; a file is added
    v2 = LOADER.replace("import importlib.util\n", "import importlib.util\n\n\n")
    v2 = v2.replace("return x * 2", "return x * 3")
    commit(repo, {"pkg/loader.py": v2, "pkg/extra.py": "def delta():\n    return 4\n"})
    with Snapshot(repo) as s2:
        second = idx.ensure(s2, progress=False)
        assert sorted(second.embedded_ids) == ["pkg/extra.py#L1-L2", "pkg/loader.py#L15-L16"]
        assert second.embedded == 2 and second.reused == 4 and second.chunks == 6
        assert idx.name_for(s1) != idx.name_for(s2)
        assert [h.symbol for h in search(idx, s2, "return x * 3", k=1)] == ["beta"]
    with Snapshot(repo, "HEAD~1") as s1_again:
        assert idx.collection(s1_again) is not None  # the first revision is untouched
        assert len(stored(idx, s1_again)) == 5


def test_crash_mid_index_then_rerun_has_no_duplicates_and_no_gaps(
    make_index, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    files = {
        f"m{i}.py": f"def f{i}():\n    return {i}\n\n\ndef g{i}():\n    return -{i}\n"
        for i in range(5)
    }
    commit(repo, files)
    idx = make_index(batch_size=2)
    real = Index._store_batch
    calls = {"n": 0}
    real_embed = index_module.embed_steps
    embeds = {"n": 0}

    def failing_embed(texts, step):  # type: ignore[no-untyped-def]
        if embeds["n"] == 2:
            raise RuntimeError("injected crash while embedding")
        embeds["n"] += 1
        return real_embed(texts, step)

    def failing(self, col, batch, vectors, stats):  # type: ignore[no-untyped-def]
        if calls["n"] == 2:
            raise RuntimeError("injected crash after two stored batches")
        calls["n"] += 1
        real(self, col, batch, vectors, stats)

    monkeypatch.setattr(index_module, "embed_steps", failing_embed)
    monkeypatch.setattr(Index, "_store_batch", failing)
    with Snapshot(repo) as snap:
        # crash 1: while embedding the third batch; each batch is stored as it is
        # embedded (dense hits arrive as files do), so two batches of two are stored
        with pytest.raises(RuntimeError, match="while embedding"):
            idx.ensure(snap, progress=False)
        assert idx.collection(snap) is None  # not marked complete
        assert len(stored(idx, snap)) == 4
        # crash 2: storing fails at once, after the third batch was embedded and cached
        monkeypatch.setattr(index_module, "embed_steps", real_embed)
        with pytest.raises(RuntimeError, match="two stored batches"):
            idx.ensure(snap, progress=False)
        assert idx.collection(snap) is None
        assert len(stored(idx, snap)) == 4
        monkeypatch.setattr(Index, "_store_batch", real)
        rerun = idx.ensure(snap, progress=False)
        rows = stored(idx, snap)
    assert rerun.already_present == 4 and rerun.stored == 6
    # the third batch's vectors came from the cache; only the last two batches were new
    assert rerun.embedded == 4 and rerun.reused == 2
    want = expected_chunks(snap)
    assert {r["id"]: r["content_hash"] for r in rows} == want  # no gaps, nothing extra
    keys = [(r["path"], r["start_line"]) for r in rows]
    assert len(keys) == len(set(keys)) == 10  # no duplicates
    assert idx.collection(snap) is not None


_KILLER = textwrap.dedent("""\
    import os, sys
    from drafter.snapshot import Snapshot
    from retrieval.index import Index, open_index
    real = Index._store_batch
    n = {"calls": 0}
    def store_then_die(self, col, batch, vectors, stats):
        real(self, col, batch, vectors, stats)
        n["calls"] += 1
        if n["calls"] == 2:
            os._exit(9)  # no cleanup, like kill -9
    Index._store_batch = store_then_die
    idx = open_index(sys.argv[2], sys.argv[3] or None, namespace=sys.argv[4], batch_size=2)
    idx.ensure(Snapshot(sys.argv[1]), progress=False)
    """)


def test_killed_process_then_rerun_completes(make_index, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    commit(repo, {f"k{i}.py": f"def k{i}():\n    return {i}\n" for i in range(6)})
    r = subprocess.run(
        [
            sys.executable,
            "-c",
            _KILLER,
            str(repo),
            str(make_index.data_dir),
            make_index.url or "",
            make_index.namespace,
        ],
        capture_output=True,
        timeout=120,
    )
    assert r.returncode == 9, r.stderr.decode()[-2000:]
    idx = make_index()
    with Snapshot(repo) as snap:
        assert idx.collection(snap) is None
        st = idx.ensure(snap, progress=False)
        rows = stored(idx, snap)
        # the killed run stored two batches; the last batch is embedded now
        assert st.already_present == 4 and st.stored == 2 and st.embedded == 2
        assert {r["id"]: r["content_hash"] for r in rows} == expected_chunks(snap)
        assert len(rows) == 6


_REOPEN = textwrap.dedent("""\
    import json, sys
    import chromadb
    from chromadb.config import Settings
    from drafter.snapshot import Snapshot
    from retrieval.index import open_index
    from retrieval.search import search
    repo, data_dir, url, ns = sys.argv[1:5]
    idx = open_index(data_dir, url or None, namespace=ns)
    snap = Snapshot(repo)
    hit = search(idx, snap, "exec_module", k=1)[0]
    # and with a bare Chroma client: the collection rebuilds its embedding function
    if url:
        host, port = url.rsplit(":", 1)
        client = chromadb.HttpClient(host=host.split("//")[1], port=int(port),
                                     settings=Settings(anonymized_telemetry=False))
    else:
        client = chromadb.PersistentClient(path=data_dir + "/chroma",
                                           settings=Settings(anonymized_telemetry=False))
    col = client.get_collection(idx.name_for(snap))
    # query_texts are embedded by the function rebuilt from the collection's config
    raw = col.query(query_texts=["exec_module loader"], n_results=1)
    ef = type(col.configuration.get("embedding_function")).__name__
    print(json.dumps({"path": hit.path, "line": hit.line, "ef": ef,
                      "raw": raw["ids"][0][0], "meta": col.metadata}))
    """)


def test_collection_reopens_in_a_fresh_process(make_index, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    commit(repo, {"pkg/loader.py": LOADER})
    idx = make_index()
    with Snapshot(repo) as snap:
        idx.ensure(snap, progress=False)
    r = subprocess.run(
        [
            sys.executable,
            "-c",
            _REOPEN,
            str(repo),
            str(make_index.data_dir),
            make_index.url or "",
            make_index.namespace,
        ],
        capture_output=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr.decode()[-2000:]
    out = json.loads(r.stdout.decode().strip().splitlines()[-1])
    assert out["path"] == "pkg/loader.py" and out["line"] == 9
    assert out["ef"] == "MiniLMEmbeddingFunction"
    assert out["raw"] == "pkg/loader.py#L6-L10"
    assert out["meta"]["embedding_model"].startswith("all-MiniLM-L6-v2-onnx-int8@")
    assert out["meta"]["status"] == "complete"


def test_mixing_embedding_models_is_refused(make_index, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    commit(repo, {"a.py": "def a():\n    return 1\n"})
    idx = make_index()
    with Snapshot(repo) as snap:
        idx.ensure(snap, progress=False)
        col = idx.client.get_collection(idx.name_for(snap))
        col.modify(metadata={**col.metadata, "embedding_model": "other-model@9"})
        with pytest.raises(IndexModelMismatch, match="other-model@9.*refusing to mix"):
            idx.ensure(snap, progress=False)
        with pytest.raises(IndexModelMismatch):
            search(idx, snap, "a", k=1)


def test_empty_repository_indexes_to_nothing(make_index, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    commit(repo, {}, "empty")
    idx = make_index()
    with Snapshot(repo) as snap:
        st = idx.ensure(snap, progress=False)
        assert (st.files_total, st.chunks, st.embedded) == (0, 0, 0)
        assert idx.collection(snap) is not None
        assert search(idx, snap, "anything", k=5) == []


def test_cli_index_search_and_bad_input_exit_codes(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.delenv("DRAFTER_CHROMA_URL", raising=False)
    repo = tmp_path / "repo"
    commit(repo, {"pkg/loader.py": LOADER})
    data = str(tmp_path / "data")
    assert drafter_main(["index", str(repo), "--data-dir", data, "-q"]) == 0
    out = capsys.readouterr().out
    assert "chunks" in out and "4" in out
    assert (
        drafter_main(["search", str(repo), "exec_module", "--data-dir", data, "--json", "-k", "2"])
        == 0
    )
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert (first["path"], first["symbol"], first["line"]) == ("pkg/loader.py", "alpha", 9)

    assert drafter_main(["index", str(repo), "--rev", "no-such-rev", "--data-dir", data]) == 2
    assert "no-such-rev" in capsys.readouterr().err
    assert drafter_main(["search", str(repo), "x", "--rev", "0" * 40, "--data-dir", data]) == 2
    unborn = tmp_path / "unborn"
    unborn.mkdir()
    git(unborn, "init", "-q")
    assert drafter_main(["index", str(unborn), "--data-dir", data]) == 2
    assert drafter_main(["index", str(tmp_path / "missing"), "--data-dir", data]) == 2
    assert drafter_main(["index", str(repo), "--chroma-url", "ftp://x", "--data-dir", data]) == 2
    err = capsys.readouterr().err
    assert err.count("drafter: error:") == 4


def test_chunker_change_rebuilds_in_place_without_reembedding(
    make_index, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    commit(repo, {"pkg/loader.py": LOADER})
    idx = make_index()
    with Snapshot(repo) as snap:
        first = idx.ensure(snap, progress=False)
        monkeypatch.setattr("retrieval.index.CHUNKER_VERSION", "test-next")
        again = idx.ensure(snap, progress=False)
        assert not again.was_complete
        assert again.already_present == first.chunks and again.embedded == 0
        col = idx.collection(snap)
        assert col is not None and col.metadata["chunker"] == "test-next"


@pytest.mark.server
def test_cli_server_mode_via_env(tmp_path: Path, capsys, monkeypatch, chroma_server_url) -> None:
    repo = tmp_path / "repo"
    commit(repo, {"pkg/loader.py": LOADER, "uniq.txt": f"{uuid.uuid4().hex}\n"})
    monkeypatch.setenv("DRAFTER_CHROMA_URL", chroma_server_url)
    data = tmp_path / "data"
    args = ["search", str(repo), "exec_module", "--json", "--data-dir", str(data)]
    assert drafter_main(args) == 0
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert (first["path"], first["line"]) == ("pkg/loader.py", 9)
    assert not (data / "chroma").exists()  # nothing went to the embedded store
    monkeypatch.setenv("DRAFTER_CHROMA_URL", "http://127.0.0.1:9")  # nothing listens there
    assert drafter_main(["index", str(repo), "--data-dir", str(data)]) == 2
    assert "cannot reach the Chroma server" in capsys.readouterr().err
