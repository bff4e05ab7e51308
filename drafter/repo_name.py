"""The name a report shows for a repository, apart from the key it is stored under.

Why two: ``Snapshot.identity`` keys the survey cache, the index collections and (through
the drafts that recorded it) the review stores, so it must not move; but for a bare mirror
cloned as ``…/owner+name/repo`` it is the folder's name, "repo", which says nothing in a
report ("Source: SRC-1 repo at …").  The shown name follows the rule the report title
uses (``graph.system_name``, which imports it from here): an origin URL wins; else the
folder's name; else — when the folder is named like ``repo`` or ``.git`` — the parent
folder's name, with an ``owner+`` prefix written as ``owner/``.
"""

from __future__ import annotations

from pathlib import Path

#: Folder names that say nothing about the system inside them.
GENERIC_FOLDERS = frozenset(
    {"repo", "repos", "repository", "git", "src", "source", "mirror", ".git"}
)


def folder_of(git_dir: str | Path) -> Path:
    """The folder that names a repository: the work tree for ``….git``, else the git dir."""
    gd = Path(git_dir)
    return gd.parent if gd.name == ".git" else gd


def parent_folder_name(path: Path) -> str | None:
    """The parent's name when ``path``'s own name is generic, else None.  Returned with a
    ``owner+name`` mirror layout kept whole; callers decide how to show it."""
    path = path.resolve()
    stem = path.name.removesuffix(".git")
    if stem and stem.lower() not in GENERIC_FOLDERS:
        return None
    parent = path.parent.name.removesuffix(".git")
    return parent or None


def shown_name(identity: str, git_dir: str | Path) -> str:
    """What a report calls the repository whose key is ``identity``: the key itself unless
    it is only a generic folder name, then the parent folder (``owner+name`` → ``owner/name``)."""
    if identity.lower() not in GENERIC_FOLDERS:
        return identity
    parent = parent_folder_name(folder_of(git_dir))
    if not parent:
        return identity
    owner, plus, name = parent.partition("+")
    return f"{owner}/{name}" if plus and owner and name else parent
