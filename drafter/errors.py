"""Typed errors.  Anything the user can fix by changing their input is a BadInput,
which the CLI turns into one line on stderr and exit code 2."""

from __future__ import annotations


class DrafterError(Exception):
    """Base of drafter's own errors."""

    exit_code = 2


class BadInput(DrafterError):
    """Input the user supplied is unusable: a path, a revision, a report file."""

    def __init__(self, message: str, *, where: str | None = None, line: int | None = None):
        self.where = where
        self.line = line
        loc = ""
        if where and line is not None:
            loc = f"{where}:{line}: "
        elif where:
            loc = f"{where}: "
        elif line is not None:
            loc = f"line {line}: "
        super().__init__(loc + message)


class RepoError(BadInput):
    """The repository or revision cannot be read."""


class UnknownRevision(RepoError):
    pass


class PathMissing(RepoError):
    pass


class NotAFile(RepoError):
    """A path that names a symlink, a submodule or a directory, not a regular file."""


class ReportFormatError(BadInput):
    """A report text or draft JSON that cannot be parsed."""
