"""The system's name for the report title, when the user gave none.

Why not the snapshot's identity: a bare mirror cloned as ``…/owner+name/repo`` (or
``name.git``) would otherwise be titled "System: repo".  Order: the origin URL's last
path part, else the folder name, else — when the folder is named like ``repo`` or
``something.git`` — the parent folder's name (with an ``owner+`` prefix dropped).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from drafter.repo_name import GENERIC_FOLDERS, folder_of, parent_folder_name


def name_from_url(url: str) -> str | None:
    m = re.search(r"([^/:]+?)(?:\.git)?/*$", url.strip())
    name = m.group(1) if m else ""
    return name if name and name.lower() not in GENERIC_FOLDERS else None


def name_from_folder(path: Path) -> str:
    """The folder's own name, or its parent's when the folder's name is generic."""
    parent = parent_folder_name(path)
    if parent is None:
        return path.resolve().name.removesuffix(".git")
    return parent.split("+", 1)[-1] if "+" in parent else parent


def system_name(git_dir: str) -> str:
    """Origin URL, else folder, else parent folder (see the module docstring)."""
    r = subprocess.run(
        ["git", "--git-dir", git_dir, "config", "--get", "remote.origin.url"],
        capture_output=True,
        text=True,
        check=False,
    )
    url = r.stdout.strip() if r.returncode == 0 else ""
    named = name_from_url(url) if url else None
    if named:
        return named
    return name_from_folder(folder_of(git_dir))
