"""Settings read from the environment, once, at import time."""

import os
from pathlib import Path

MODEL = os.environ.get("TINKERBOT_MODEL", "claude-sonnet-4-5")
API_KEY_VAR = "ANTHROPIC_API_KEY"
THRESHOLD = float(os.environ.get("TINKERBOT_THRESHOLD", "0.8"))
STATE_DIR = Path(os.environ.get("TINKERBOT_STATE", "state"))
WORKSPACE = Path(os.environ.get("TINKERBOT_WORKSPACE", "workspace"))
PROMPT_PATH = Path(__file__).resolve().parent.parent / "prompts" / "system.md"
REWRITE_PROMPT_PATH = PROMPT_PATH.with_name("rewrite.md")
MAX_TOKENS = 2048


def api_key() -> str:
    """The key is only ever read from the environment, never from a file."""
    return os.environ[API_KEY_VAR]
