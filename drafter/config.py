"""Where drafter keeps its data, and the settings read from the environment.

Everything that touches the user's folders goes through here, so tests can point it
at a temporary directory with one environment variable.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from platformdirs import user_data_dir

from drafter.errors import BadInput

ENV_DATA_DIR = "DRAFTER_DATA_DIR"
ENV_CHROMA_URL = "DRAFTER_CHROMA_URL"
ENV_MODEL = "DRAFTER_MODEL"

N = TypeVar("N", int, float)


def data_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The data directory: ``override``, else $DRAFTER_DATA_DIR, else the user's data dir."""
    raw = override or os.environ.get(ENV_DATA_DIR) or user_data_dir("drafter", appauthor=False)
    path = Path(raw).expanduser()
    return usable_dir(path, "data dir")


def usable_dir(path: Path, what: str) -> Path:
    """Create ``path`` if needed and prove it writable, or raise one line naming it.

    A read-only folder, or one under a regular file, would otherwise surface as a
    traceback from deep inside Chroma or SQLite; a probe file tells it up front (and,
    unlike ``os.access``, also for root on a read-only mount).
    """
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise BadInput(f"{what} is a file, not a folder", where=str(path)) from None
    except OSError as exc:
        raise BadInput(f"cannot create the {what}: {exc.strerror}", where=str(path)) from None
    if not path.is_dir():
        raise BadInput(f"{what} is not a folder", where=str(path))
    try:
        fd, probe = tempfile.mkstemp(prefix=".drafter-probe-", dir=path)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise BadInput(f"{what} is not writable: {exc.strerror}", where=str(path)) from None
    return path


def chroma_url(override: str | None = None) -> str | None:
    """The Chroma server URL for server mode, or None for an embedded persistent client."""
    return override or os.environ.get(ENV_CHROMA_URL) or None


def env_number(
    name: str, default: N, parse: Callable[[str], N], ok: Callable[[N], bool], expect: str
) -> N:
    """$``name`` read with ``parse`` when it is set and not blank, else ``default``.

    One shape for every numeric environment setting (timeouts, retries, backoff): a value
    ``parse`` refuses or ``ok`` rejects raises ``ValueError("NAME must be <expect>, not
    '<raw>'")``, which the commands turn into one line and exit 2.
    """
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = parse(raw)
    except ValueError:
        raise ValueError(f"{name} must be {expect}, not {raw!r}") from None
    if not ok(value):
        raise ValueError(f"{name} must be {expect}, not {raw!r}")
    return value
