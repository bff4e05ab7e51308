"""Read a repository at a pinned revision from git objects only.

Why git objects and not the work tree: a witness is a claim about a revision, and the
work tree may hold uncommitted edits, ignored files or another checkout.  Nothing here
runs any code of the repository; git itself is called with hooks, fsmonitor and
pagers switched off.  Blobs are streamed through one long-lived ``git cat-file
--batch`` process, which is far faster than one process per file.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from drafter.errors import NotAFile, PathMissing, RepoError, UnknownRevision
from drafter.repo_name import shown_name

# Settings that keep git from running anything configured by the analysed repository.
_SAFE_GIT = [
    "git",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.pager=cat",
    "-c",
    "protocol.allow=never",
]
_ENV = {
    **os.environ,
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_OPTIONAL_LOCKS": "0",
    "LC_ALL": "C",
}
_HEX40 = re.compile(r"^[0-9a-f]{40}$")
# A relative path with no backslash, no "." or ".." component and no trailing slash.
_PLAIN_PATH = re.compile(r"^(?!\.{1,2}(?:/|$))(?![A-Za-z]:)[^/\\]+(?:/(?!\.{1,2}(?:/|$))[^/\\]+)*$")

BINARY_SNIFF_BYTES = 8000


@dataclass(frozen=True, slots=True)
class FileEntry:
    """One entry of the revision's tree."""

    path: str
    mode: str
    kind: str  # "file", "executable", "symlink", "submodule"
    oid: str
    size: int

    @property
    def is_regular(self) -> bool:
        return self.kind in ("file", "executable")


@dataclass(frozen=True, slots=True)
class TextFile:
    """A decoded file.  ``lossy`` is set when bytes were not valid UTF-8."""

    path: str
    text: str
    lossy: bool
    binary: bool


class BinaryFile(NotAFile):
    """A path that names a binary blob where text was asked for."""


def is_binary(data: bytes) -> bool:
    """Git's own heuristic: a NUL byte in the first few kilobytes."""
    return b"\0" in data[:BINARY_SNIFF_BYTES]


def safe_relpath(path: str) -> str | None:
    """Normalise a repository-relative path, or None if it escapes the tree.

    Absolute paths and any ``..`` component are refused outright: a report must not
    be able to make drafter look outside the revision.
    """
    if _PLAIN_PATH.match(path) and "//" not in path and "/./" not in path:
        return path  # the common case, without building a PurePosixPath
    if not path or path.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", path):
        return None
    parts = PurePosixPath(path.replace("\\", "/")).parts
    if any(p == ".." for p in parts):
        return None
    clean = "/".join(p for p in parts if p not in (".", ""))
    return clean or None


def _decode(path: str, data: bytes) -> TextFile:
    """Text of a blob: binary flagged with no text, invalid UTF-8 replaced and flagged."""
    if is_binary(data):
        return TextFile(path, "", lossy=False, binary=True)
    try:
        return TextFile(path, data.decode("utf-8"), lossy=False, binary=False)
    except UnicodeDecodeError:
        return TextFile(path, data.decode("utf-8", errors="replace"), lossy=True, binary=False)


def _git(
    git_dir: str | None, *args: str, cwd: str | None = None
) -> subprocess.CompletedProcess[bytes]:
    cmd = list(_SAFE_GIT)
    if git_dir:
        cmd.append(f"--git-dir={git_dir}")
    cmd.extend(args)
    return subprocess.run(cmd, capture_output=True, env=_ENV, cwd=cwd, check=False)


def resolve_git_dir(repo: str | os.PathLike[str]) -> str:
    """The absolute git directory of a work tree, a ``.git`` dir or a bare repository."""
    p = Path(repo)
    if not p.exists():
        raise RepoError(f"repository {str(repo)!r} does not exist")
    if not p.is_dir():
        raise RepoError(f"repository {str(repo)!r} is not a directory")
    r = _git(None, "-C", str(p), "rev-parse", "--absolute-git-dir")
    if r.returncode != 0:
        if b"dubious ownership" in r.stderr or b"safe.directory" in r.stderr:
            raise RepoError(
                f"git refuses {str(repo)!r}: it is owned by another user (dubious ownership); "
                "if you trust it, add it with: git config --global --add safe.directory "
                f"{p.resolve()}"
            )
        raise RepoError(f"{str(repo)!r} is not a git repository")
    return r.stdout.decode().strip()


class Snapshot:
    """The files of one commit, read-only.  Use as a context manager or call close()."""

    def __init__(self, repo: str | os.PathLike[str], rev: str = "HEAD"):
        self.repo = str(repo)
        self.git_dir = resolve_git_dir(repo)
        self.rev = rev
        self.sha = self._resolve(rev)
        self._entries: dict[str, FileEntry] | None = None
        self._dirs: frozenset[str] | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self._text_cache: dict[str, TextFile] = {}

    # -- revision ---------------------------------------------------------------

    def _resolve(self, rev: str) -> str:
        if not rev or rev.startswith("-") or any(c.isspace() for c in rev):
            raise UnknownRevision(f"revision {rev!r} is not a valid name")
        spec = f"{rev}^{{commit}}"
        r = _git(self.git_dir, "rev-parse", "--verify", "--quiet", "--end-of-options", spec)
        out = r.stdout.decode().strip()
        if r.returncode != 0 or not _HEX40.match(out):
            n = self._prefix_matches(rev)
            if n > 1:
                raise UnknownRevision(
                    f"revision {rev!r} is ambiguous in {self.repo}: {n} objects start with it; "
                    "give more hex digits"
                )
            raise UnknownRevision(f"revision {rev!r} not found in {self.repo}")
        return out

    def _prefix_matches(self, rev: str) -> int:
        """How many objects a short hex name could mean (2+ means ambiguous, not missing)."""
        if not re.fullmatch(r"[0-9a-fA-F]{4,39}", rev):
            return 0
        r = _git(self.git_dir, "rev-parse", f"--disambiguate={rev.lower()}")
        return len(r.stdout.split()) if r.returncode == 0 else 0

    @property
    def identity(self) -> str:
        """A stable key for the repository: its origin URL if any, else its folder name.
        Caches and index collections are keyed on it; reports show :attr:`name`."""
        r = _git(self.git_dir, "config", "--get", "remote.origin.url")
        url = r.stdout.decode().strip() if r.returncode == 0 else ""
        m = re.search(r"github\.com[:/]([^/]+)/([^/]+?)(?:\.git)?/?$", url)
        if m:
            return f"github:{m.group(1)}/{m.group(2)}"
        if url:
            return url
        gd = Path(self.git_dir)
        base = gd.parent if gd.name == ".git" else gd
        return base.name.removesuffix(".git")

    @property
    def name(self) -> str:
        """The repository as a report names it (``drafter.repo_name``): ``identity``
        unless that is a generic folder name such as ``repo``.  Never a storage key:
        caches and indexes stay keyed on ``identity``."""
        return shown_name(self.identity, self.git_dir)

    # -- tree -------------------------------------------------------------------

    def _load_tree(self) -> dict[str, FileEntry]:
        if self._entries is None:
            r = _git(self.git_dir, "ls-tree", "-r", "-z", "--long", "--full-tree", self.sha)
            if r.returncode != 0:
                raise RepoError(f"cannot list tree of {self.sha}: {r.stderr.decode().strip()}")
            entries: dict[str, FileEntry] = {}
            for rec in r.stdout.split(b"\0"):
                if not rec:
                    continue
                meta, _, raw_path = rec.partition(b"\t")
                mode, otype, oid, size = meta.split(None, 3)
                path = raw_path.decode("utf-8", errors="surrogateescape")
                m = mode.decode()
                if otype == b"commit":
                    kind = "submodule"
                elif m == "120000":
                    kind = "symlink"
                elif m == "100755":
                    kind = "executable"
                else:
                    kind = "file"
                # "-" for submodules, "BAD" for blobs absent from a partial clone
                sz = int(size) if size.strip().isdigit() else 0
                entries[path] = FileEntry(path, m, kind, oid.decode(), sz)
            self._entries = entries
        return self._entries

    def entries(self) -> list[FileEntry]:
        """All tree entries, sorted by path (files, symlinks and submodules)."""
        return sorted(self._load_tree().values(), key=lambda e: e.path)

    def files(self) -> list[str]:
        """Paths of regular files, sorted."""
        return [e.path for e in self.entries() if e.is_regular]

    def entry(self, path: str) -> FileEntry | None:
        clean = safe_relpath(path)
        return None if clean is None else self._load_tree().get(clean)

    def is_dir(self, path: str) -> bool:
        """True when ``path`` names a directory of the revision's tree."""
        clean = safe_relpath(path)
        if clean is None:
            return False
        if self._dirs is None:
            dirs: set[str] = set()
            for p in self._load_tree():
                parts = p.split("/")[:-1]
                for i in range(1, len(parts) + 1):
                    dirs.add("/".join(parts[:i]))
            self._dirs = frozenset(dirs)
        return clean in self._dirs

    def exists(self, path: str) -> bool:
        e = self.entry(path)
        return e is not None and e.is_regular

    # -- blobs ------------------------------------------------------------------

    def _batch(self) -> subprocess.Popen[bytes]:
        # No poll() per read: a dead process shows up as a broken pipe or an empty
        # header, after which _reset() starts a fresh one on the next call.
        if self._proc is None:
            cmd = [*_SAFE_GIT, f"--git-dir={self.git_dir}", "cat-file", "--batch"]
            self._proc = subprocess.Popen(
                cmd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=_ENV,
            )
        return self._proc

    def _reset(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.kill()
            proc.wait()

    @staticmethod
    def _read_reply(proc: subprocess.Popen[bytes], oid: str) -> bytes | None:
        """One ``cat-file --batch`` reply; None when git reports the object missing."""
        assert proc.stdout is not None
        header = proc.stdout.readline()
        if not header:
            raise OSError("git cat-file stopped unexpectedly")
        parts = header.split()
        if len(parts) != 3:
            return None
        size = int(parts[2])
        data = proc.stdout.read(size)
        if len(data) != size or proc.stdout.read(1) != b"\n":
            raise OSError(f"short read of object {oid}")
        return data

    def read_blob(self, oid: str) -> bytes:
        data = self.read_blobs([oid])[0]
        if data is None:
            raise RepoError(f"object {oid} is missing from the repository")
        return data

    def read_blobs(self, oids: list[str]) -> list[bytes | None]:
        """Many blobs in one pipelined exchange with ``git cat-file --batch``.

        Requests are written by a helper thread while replies are read here, so
        neither side can fill its pipe and wait on the other.  Missing objects
        come back as None.
        """
        if not oids:
            return []
        payload = "".join(o + "\n" for o in oids).encode()
        with self._lock:
            for attempt in (1, 2):
                fresh = self._proc is None
                try:
                    return self._exchange(oids, payload)
                except (OSError, ValueError) as exc:
                    self._reset()
                    # a process that died while idle is restarted once, transparently
                    if fresh or attempt == 2:
                        raise RepoError(
                            f"reading objects from {self.git_dir} failed: {exc}"
                        ) from None
        raise AssertionError("unreachable")  # pragma: no cover

    def _exchange(self, oids: list[str], payload: bytes) -> list[bytes | None]:
        proc = self._batch()
        assert proc.stdin is not None
        stdin = proc.stdin
        failed: list[OSError] = []

        def write() -> None:
            try:
                stdin.write(payload)
                stdin.flush()
            except OSError as exc:  # git died; the reader sees it too
                failed.append(exc)

        writer = None
        if len(payload) < 4096:
            write()
        else:
            writer = threading.Thread(target=write, daemon=True)
            writer.start()
        try:
            if failed:
                raise failed[0]
            out = [self._read_reply(proc, o) for o in oids]
        except BaseException:
            self._reset()  # also unblocks a writer stuck on a full pipe
            raise
        finally:
            if writer is not None:
                writer.join()
        if failed:
            raise failed[0]
        return out

    def prefetch(self, paths: list[str]) -> None:
        """Read many regular files into the text cache in one exchange with git.

        Paths that are missing, unsafe or not regular files are skipped here; reading
        them later raises the usual error.
        """
        tree = self._load_tree()
        todo: list[FileEntry] = []
        seen: set[str] = set()
        for p in paths:
            clean = safe_relpath(p)
            if clean is None or clean in seen or clean in self._text_cache:
                continue
            seen.add(clean)
            e = tree.get(clean)
            if e is not None and e.is_regular:
                todo.append(e)
        for e, data in zip(todo, self.read_blobs([e.oid for e in todo]), strict=True):
            if data is not None:
                self._text_cache[e.path] = _decode(e.path, data)

    def _regular_entry(self, path: str) -> FileEntry:
        clean = safe_relpath(path)
        if clean is None:
            raise PathMissing(f"path {path!r} is absolute or leaves the repository")
        e = self._load_tree().get(clean)
        if e is None:
            if self.is_dir(clean):
                raise NotAFile(f"{clean} is a directory at {self.sha[:12]}, not a file")
            raise PathMissing(f"{clean} does not exist at {self.sha[:12]}")
        if e.kind == "submodule":
            raise NotAFile(
                f"{clean} is a submodule at {self.sha[:12]}; its files are not in this repository"
            )
        if e.kind == "symlink":
            raise NotAFile(
                f"{clean} is a symlink at {self.sha[:12]}; drafter does not follow links"
            )
        return e

    def read_bytes(self, path: str) -> bytes:
        """Raw bytes of a regular file; errors for missing paths, symlinks, submodules."""
        return self.read_blob(self._regular_entry(path).oid)

    def read_text(self, path: str) -> TextFile:
        """Decoded text; binary files come back flagged with empty text."""
        clean = safe_relpath(path) or path
        cached = self._text_cache.get(clean)
        if cached is not None:
            return cached
        tf = _decode(clean, self.read_bytes(path))
        self._text_cache[clean] = tf
        return tf

    def read_str(self, path: str) -> str:
        """Decoded text of a text file; :class:`BinaryFile` for binary content.

        Use :meth:`read_text` instead when the lossy flag matters to the caller.
        """
        tf = self.read_text(path)
        if tf.binary:
            raise BinaryFile(f"{tf.path} is a binary file at {self.sha[:12]}")
        return tf.text

    def iter_text(self, paths: list[str] | None = None) -> Iterator[TextFile]:
        """Decoded text of many files (default: every regular file), skipping binaries."""
        for p in paths if paths is not None else self.files():
            tf = self.read_text(p)
            if not tf.binary:
                yield tf

    # -- lifecycle --------------------------------------------------------------

    def close(self) -> None:
        if self._proc is not None:
            try:
                if self._proc.stdin:
                    self._proc.stdin.close()
                self._proc.wait(timeout=5)
            except Exception:  # noqa: BLE001 - best effort shutdown
                self._proc.kill()
            self._proc = None

    def __enter__(self) -> Snapshot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # pragma: no cover - interpreter shutdown order
        try:
            self.close()
        except Exception:  # noqa: BLE001
            pass
