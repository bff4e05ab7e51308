"""The index on a Chroma server for a team: ``--chroma URL`` on index and search, a
collection embedded by another model refused in one line, a server that is down one
line and exit 2.  Real Chroma server (the ``chroma_server_url`` fixture)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import chromadb
import pytest
from gitrepo import commit

from drafter.cli import main

SRC = "def load(path):\n    return open(path).read()\n"


@pytest.mark.server
def test_chroma_option_shares_one_collection_and_refuses_another_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], chroma_server_url: str
) -> None:
    repo = tmp_path / "repo"
    commit(repo, {"pkg/io.py": SRC, "uniq.txt": f"{uuid.uuid4().hex}\n"})
    one, two = tmp_path / "analyst-1", tmp_path / "analyst-2"
    assert main(["index", str(repo), "--chroma", chroma_server_url, "--data-dir", str(one)]) == 0
    capsys.readouterr()
    # a second analyst's search on another machine uses the same collection
    args = ["search", str(repo), "load", "--json", "--data-dir", str(two)]
    assert main([*args, "--chroma", chroma_server_url]) == 0
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert first["path"] == "pkg/io.py"
    assert not (one / "chroma").exists() and not (two / "chroma").exists()
    # the collection as another embedder version would have left it
    host, port = chroma_server_url.removeprefix("http://").split(":")
    client = chromadb.HttpClient(host=host, port=int(port))
    mine = [c for c in client.list_collections() if c.name.startswith("drafter-rev-")]
    for col in mine:
        meta = dict(col.metadata or {})
        if meta.get("status") == "complete" and "uniq.txt" in json.dumps(
            col.get(include=["metadatas"], limit=50)["metadatas"]
        ):
            col.modify(metadata={**meta, "embedding_model": "another-model@0"})
    assert main([*args, "--chroma", chroma_server_url]) == 2
    err = capsys.readouterr().err.strip()
    assert "refusing to mix models" in err and len(err.splitlines()) == 1


def test_a_chroma_server_that_is_down_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "repo"
    commit(repo, {"pkg/io.py": SRC})
    for cmd in (["index", str(repo)], ["search", str(repo), "load"]):
        assert main([*cmd, "--chroma", "http://127.0.0.1:9", "--data-dir", str(tmp_path)]) == 2
        err = capsys.readouterr().err.strip()
        assert "cannot reach the Chroma server at http://127.0.0.1:9" in err
        assert len(err.splitlines()) == 1 and "Traceback" not in err
