"""The snapshot reader reads one commit from git objects only, and refuses clearly."""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

import pytest
from gitrepo import commit, git

from drafter.errors import NotAFile, PathMissing, RepoError, UnknownRevision
from drafter.snapshot import BinaryFile, Snapshot, safe_relpath


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str, str]:
    """A work tree with two commits; the first one carries tags and odd entries."""
    r = tmp_path / "wt"
    r.mkdir()
    git(r, "init", "-q")
    first = commit(
        r,
        {
            "a.py": "print('one')\n",
            "pkg/b.md": "# B\n\n- item\n",
            "bin.dat": b"\x00\x01\x02binary",
            "latin.txt": "caf\xe9 cr\xe8me\n".encode("latin-1"),
        },
    )
    os.symlink("a.py", r / "link.py")
    git(r, "add", "link.py")
    git(r, "update-index", "--add", "--cacheinfo", f"160000,{first},sub")
    git(r, "commit", "-q", "-m", "odd entries")
    git(r, "tag", "light")
    git(r, "tag", "-a", "annotated", "-m", "msg")
    second = commit(r, {"a.py": "print('two')\n"}, "second")
    return r, first, second


def test_opens_work_tree_git_dir_and_bare(repo: tuple[Path, str, str], tmp_path: Path) -> None:
    r, _, second = repo
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(r), str(bare)], check=True)
    for where in (r, r / ".git", bare):
        with Snapshot(where, "main") as s:
            assert s.sha == second
            assert s.read_str("a.py") == "print('two')\n"


def test_resolves_branch_tags_short_and_full_sha(repo: tuple[Path, str, str]) -> None:
    r, first, second = repo
    odd = git(r, "rev-parse", "light")
    with Snapshot(r) as head:
        assert head.sha == second
    for rev, want in [
        ("main", second),
        ("light", odd),
        ("annotated", odd),
        (second[:7], second),
        (second, second),
        ("HEAD~1", odd),
    ]:
        assert Snapshot(r, rev).sha == want
    assert Snapshot(r, first).read_str("a.py") == "print('one')\n"


@pytest.mark.parametrize("rev", ["nope", "0" * 40, "-x", "a b", "", "main:a.py"])
def test_unknown_revision(repo: tuple[Path, str, str], rev: str) -> None:
    with pytest.raises(UnknownRevision):
        Snapshot(repo[0], rev)


def test_not_a_repository(tmp_path: Path) -> None:
    with pytest.raises(RepoError, match="does not exist"):
        Snapshot(tmp_path / "missing")
    with pytest.raises(RepoError, match="not a git repository"):
        Snapshot(tmp_path)


def test_reads_git_objects_never_the_work_tree(repo: tuple[Path, str, str]) -> None:
    r, _, _ = repo
    (r / "a.py").write_text("edited in the work tree\n")
    (r / "untracked.py").write_text("x = 1\n")
    with Snapshot(r) as s:
        assert s.read_str("a.py") == "print('two')\n"
        assert "untracked.py" not in s.files()
        with pytest.raises(PathMissing):
            s.read_bytes("untracked.py")


def test_entries_and_kinds(repo: tuple[Path, str, str]) -> None:
    with Snapshot(repo[0]) as s:
        kinds = {e.path: e.kind for e in s.entries()}
        assert kinds == {
            "a.py": "file",
            "pkg/b.md": "file",
            "bin.dat": "file",
            "latin.txt": "file",
            "link.py": "symlink",
            "sub": "submodule",
        }
        assert s.files() == ["a.py", "bin.dat", "latin.txt", "pkg/b.md"]
        assert s.exists("pkg/b.md") and not s.exists("sub") and not s.exists("link.py")
        assert s.is_dir("pkg") and not s.is_dir("a.py")


def test_errors_for_missing_submodule_symlink_binary_dir(repo: tuple[Path, str, str]) -> None:
    with Snapshot(repo[0]) as s:
        with pytest.raises(PathMissing, match="does not exist"):
            s.read_bytes("nope.py")
        with pytest.raises(NotAFile, match="submodule"):
            s.read_bytes("sub")
        with pytest.raises(NotAFile, match="symlink"):
            s.read_text("link.py")
        with pytest.raises(NotAFile, match="directory"):
            s.read_text("pkg")
        with pytest.raises(BinaryFile, match="binary"):
            s.read_str("bin.dat")
        tf = s.read_text("bin.dat")
        assert tf.binary and tf.text == ""
        assert [t.path for t in s.iter_text()] == ["a.py", "latin.txt", "pkg/b.md"]


@pytest.mark.parametrize("path", ["../a.py", "/etc/passwd", "pkg/../../x", "C:/x", "\\x", ""])
def test_escaping_paths_refused(repo: tuple[Path, str, str], path: str) -> None:
    assert safe_relpath(path) is None
    with Snapshot(repo[0]) as s:
        with pytest.raises(PathMissing):
            s.read_bytes(path)


def test_safe_relpath_cleans() -> None:
    assert safe_relpath("./pkg//b.md") == "pkg/b.md"
    assert safe_relpath("pkg\\b.md") == "pkg/b.md"


def test_non_utf8_flagged(repo: tuple[Path, str, str]) -> None:
    with Snapshot(repo[0]) as s:
        tf = s.read_text("latin.txt")
        assert tf.lossy and not tf.binary
        assert tf.text == "caf\ufffd cr\ufffdme\n"
        assert not s.read_text("a.py").lossy


def test_threads_share_one_snapshot(tmp_path: Path) -> None:
    r = tmp_path / "many"
    r.mkdir()
    git(r, "init", "-q")
    commit(r, {f"f{i}.txt": f"file {i}\n" * (i + 1) for i in range(60)})
    errors: list[str] = []
    with Snapshot(r) as s:

        def work(offset: int) -> None:
            for i in range(60):
                j = (i + offset) % 60
                if s.read_bytes(f"f{j}.txt") != f"file {j}\n".encode() * (j + 1):
                    errors.append(f"f{j}")

        threads = [threading.Thread(target=work, args=(k * 7,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert errors == []


def test_identity(repo: tuple[Path, str, str]) -> None:
    r = repo[0]
    assert Snapshot(r).identity == "wt"
    git(r, "remote", "add", "origin", "git@github.com:owner/name.git")
    assert Snapshot(r).identity == "github:owner/name"


def test_prefetch_pipelines_large_files(tmp_path: Path) -> None:
    """Far more bytes than a pipe buffer holds, requested in one go, arrive intact."""
    r = tmp_path / "big"
    r.mkdir()
    git(r, "init", "-q")
    files = {f"d/f{i}.txt": (f"{i:03d} " * 20 + "\n") * (200 + i * 37) for i in range(40)}
    commit(r, dict(files))
    with Snapshot(r) as s:
        s.prefetch([*files, "missing.txt", "../x"])  # bad paths are skipped, not fatal
        assert {p: s.read_str(p) for p in files} == files
        blobs = s.read_blobs([e.oid for e in s.entries()] + ["f" * 40])
        assert blobs[-1] is None
        assert [b.decode() for b in blobs[:-1]] == [files[p] for p in sorted(files)]
        with pytest.raises(RepoError, match="missing"):
            s.read_blob("e" * 40)
        assert s.read_str("d/f0.txt") == files["d/f0.txt"]  # still usable afterwards


def test_dead_cat_file_process_is_restarted(repo: tuple[Path, str, str]) -> None:
    with Snapshot(repo[0]) as s:
        assert s.read_bytes("a.py") == b"print('two')\n"
        assert s._proc is not None
        s._proc.kill()
        s._proc.wait()
        assert s.read_bytes("pkg/b.md") == b"# B\n\n- item\n"
