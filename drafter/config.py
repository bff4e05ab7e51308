"""Where drafter keeps its data, and the settings read from the environment.

Everything that touches the user's folders goes through here, so tests can point it
at a temporary directory with one environment variable.
"""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_data_dir

ENV_DATA_DIR = "DRAFTER_DATA_DIR"
ENV_CHROMA_URL = "DRAFTER_CHROMA_URL"
ENV_MODEL = "DRAFTER_MODEL"


def data_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The data directory: ``override``, else $DRAFTER_DATA_DIR, else the user's data dir."""
    raw = override or os.environ.get(ENV_DATA_DIR) or user_data_dir("drafter", appauthor=False)
    path = Path(raw).expanduser()
    path.mkdir(parents=True, exist_ok=True)
    return path


def chroma_url(override: str | None = None) -> str | None:
    """The Chroma server URL for server mode, or None for an embedded persistent client."""
    return override or os.environ.get(ENV_CHROMA_URL) or None
