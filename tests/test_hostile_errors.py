"""One-line errors and honest messages: exit 2, one line on stderr, naming the path.

Read-only data dirs (a real read-only tmpfs mount, when the test may mount one), a data
dir or output path under a regular file, a corrupt checkpoint on ``--resume``, an
ambiguous short SHA (said to be ambiguous, not missing), a repository git refuses for
its ownership (said so), and a folder given as REPORT.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from gitrepo import commit, git

from drafter.cli import main
from drafter.sample import gold_path

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")


def one_line_exit_2(code: int, capsys: pytest.CaptureFixture[str], *needles: str) -> str:
    out = capsys.readouterr()
    assert code == 2, out.err
    assert out.err.count("\n") == 1 and out.err.startswith("drafter: error: "), out.err
    assert "Traceback" not in out.err
    for n in needles:
        assert n in out.err, (n, out.err)
    return out.err


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("small")
    return root / "r", commit(root / "r", {"a.py": "import os\nos.system('ls')\n"})


@pytest.fixture()
def regular_file(tmp_path: Path) -> Path:
    f = tmp_path / "afile"
    f.write_text("x")
    return f


@pytest.mark.parametrize("cmd", ["index", "search", "draft"])
def test_data_dir_under_a_regular_file(small, regular_file: Path, cmd: str, capsys) -> None:
    repo, sha = small
    data = str(regular_file / "data")
    args = {
        "index": ["index", str(repo), "--rev", sha, "-q", "--data-dir", data],
        "search": ["search", str(repo), "x", "--rev", sha, "--data-dir", data],
        "draft": ["draft", str(repo), "--rev", sha, "--offline", "--no-index",
                  "--out", str(regular_file.parent / "o.json"), "--data-dir", data],
    }[cmd]  # fmt: skip
    one_line_exit_2(main(args), capsys, data)


@pytest.fixture()
def read_only_dir(tmp_path: Path) -> Iterator[Path]:
    """A read-only folder even for root: a read-only tmpfs mount (skipped if not allowed)."""
    mnt = tmp_path / "ro"
    mnt.mkdir()
    r = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(mnt)], capture_output=True
    )
    if r.returncode != 0:
        if os.geteuid() == 0:
            pytest.skip("cannot mount a read-only tmpfs here")
        mnt.chmod(0o555)  # an ordinary user is refused by permissions alone
        yield mnt
        mnt.chmod(0o755)
        return
    try:
        yield mnt
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)


@pytest.mark.parametrize("cmd", ["index", "draft"])
def test_read_only_data_dir(small, read_only_dir: Path, tmp_path: Path, cmd: str, capsys) -> None:
    repo, sha = small
    args = {
        "index": ["index", str(repo), "--rev", sha, "-q", "--data-dir", str(read_only_dir)],
        "draft": ["draft", str(repo), "--rev", sha, "--offline", "--out",
                  str(tmp_path / "o.json"), "--data-dir", str(read_only_dir)],
    }[cmd]  # fmt: skip
    one_line_exit_2(main(args), capsys, str(read_only_dir), "not writable")


def test_read_only_output_folder(read_only_dir: Path, tmp_path: Path, capsys) -> None:
    draft = tmp_path / "d.json"
    assert main(["parse", str(gold_path()), "-o", str(draft), "-q"]) == 0
    capsys.readouterr()
    out = read_only_dir / "x.txt"
    one_line_exit_2(main(["render", str(draft), "-o", str(out)]), capsys, str(out))


@pytest.mark.parametrize("cmd", ["parse -o", "render -o", "draft --out", "draft --text"])
def test_output_path_under_a_regular_file(
    small, regular_file: Path, tmp_path: Path, cmd: str, capsys
) -> None:
    repo, sha = small
    target = str(regular_file / "sub" / "x.out")
    ok_out = str(tmp_path / "ok.json")
    args = {
        "parse -o": ["parse", str(gold_path()), "-q", "-o", target],
        "render -o": ["render", str(gold_path()), "-q", "-o", target],
        "draft --out": ["draft", str(repo), "--rev", sha, "--offline", "--no-index",
                        "--out", target],
        "draft --text": ["draft", str(repo), "--rev", sha, "--offline", "--no-index",
                         "--out", ok_out, "--text", target],
    }[cmd]  # fmt: skip
    one_line_exit_2(main(args), capsys, target, "parent is a file")


@pytest.mark.parametrize("cmd", ["parse", "render", "verify", "eval"])
def test_a_folder_given_as_report(small, tmp_path: Path, cmd: str, capsys) -> None:
    repo, sha = small
    folder = tmp_path / "folder"
    folder.mkdir()
    args = {
        "parse": ["parse", str(folder)],
        "render": ["render", str(folder)],
        "verify": ["verify", str(folder), "--repo", str(repo)],
        "eval": ["eval", "--gold", str(folder), "--draft", str(folder), "--repo", str(repo),
                 "--rev", sha],
    }[cmd]  # fmt: skip
    one_line_exit_2(main(args), capsys, str(folder))


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty-file"])
def test_corrupt_checkpoint_on_resume(small, tmp_path: Path, damage: str, capsys) -> None:
    repo, sha = small
    data = tmp_path / "data"
    args = ["draft", str(repo), "--rev", sha, "--offline", "--no-index"]
    assert main([*args, "--out", str(tmp_path / "o.json"), "--data-dir", str(data)]) == 0
    capsys.readouterr()
    ckpt = next(p for p in (data / "runs").glob("*.sqlite") if ".calls." not in p.name)
    tid = ckpt.stem
    if damage == "garbage":
        ckpt.write_bytes(os.urandom(4096) + b"not sqlite")
    elif damage == "truncated":
        with ckpt.open("r+b") as f:
            f.truncate(max(1024, ckpt.stat().st_size // 3))
    else:
        ckpt.write_bytes(b"")
    code = main(["draft", "--resume", tid, "--data-dir", str(data)])
    one_line_exit_2(code, capsys, tid)


def _ambiguous_repo(root: Path) -> tuple[Path, str]:
    """A repository with 1,000 commits, two of which share a 4-digit SHA prefix."""
    repo = root / "amb"
    repo.mkdir()
    git(repo, "init", "-q")
    stream = "".join(
        f"commit refs/heads/main\ncommitter t <t@t> 1700000000 +0000\ndata {len(f'c{i}')}\nc{i}\n"
        for i in range(1000)
    )
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=stream.encode(), check=True)
    shas = git(repo, "log", "main", "--format=%H").split()
    seen: dict[str, str] = {}
    for s in shas:
        if s[:4] in seen:
            return repo, s[:4]
        seen[s[:4]] = s
    pytest.fail("no shared 4-digit prefix among 1,000 commits")


def test_ambiguous_short_sha_is_called_ambiguous(tmp_path: Path, capsys) -> None:
    repo, prefix = _ambiguous_repo(tmp_path)
    err = one_line_exit_2(main(["survey", str(repo), "--rev", prefix]), capsys, prefix)
    assert "ambiguous" in err and "not found" not in err
    one_line_exit_2(main(["survey", str(repo), "--rev", "ffffff0"]), capsys, "not found")


def test_repository_git_refuses_for_ownership_says_so(small, tmp_path: Path, capsys) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to give the repository to another user")
    repo, sha = small
    other = tmp_path / "owned"
    subprocess.run(["cp", "-r", str(repo), str(other)], check=True)
    subprocess.run(["chown", "-R", "54321:54321", str(other)], check=True)
    err = one_line_exit_2(main(["survey", str(other), "--rev", sha]), capsys, "owned")
    assert "safe.directory" in err and "another user" in err
    assert "not a git repository" not in err


def test_review_store_that_is_not_sqlite(tmp_path: Path, capsys) -> None:
    from review_material import tiny_draft

    d, repo = tiny_draft(tmp_path)
    store = tmp_path / "s.sqlite"
    store.write_bytes(b"not a database" * 100)
    args = ["review", str(d), "--repo", str(repo), "--store", str(store), "--accept-verified"]
    one_line_exit_2(main(args), capsys, str(store))
