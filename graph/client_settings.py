"""How long to wait for the model, and how often to try again: environment settings.

Why environment settings rather than run settings: like
``DRAFTER_RETRY_BASE_SECONDS`` they are about this process's patience with its
endpoint, not about what the run drafts, so they are not checkpointed — a run started
against a slow laptop GPU may be resumed against a faster server.

- ``DRAFTER_REQUEST_TIMEOUT`` (seconds, default 300): how long one request may take.
  drafter does not stream, so a local server's slow first token *and* the whole
  answer must arrive within it; on a laptop GPU a long ``submit_record`` can take many
  minutes (the README suggests 1800).
- ``DRAFTER_RETRIES`` (default 5): further attempts after a timeout, a dropped
  connection, a 429 or a 5xx.  Each retry of a timed-out request re-sends the whole
  prompt, which costs a local server the same wait again, so a small count (1) suits
  one; a refused connection or a rejected key is never retried.

A bad value is bad input: one line naming the variable, exit 2.
"""

from __future__ import annotations

import math
import os

from graph.configuration import retry_base_seconds
from graph.proposers.claude.client import RetryPolicy

ENV_TIMEOUT = "DRAFTER_REQUEST_TIMEOUT"
ENV_RETRIES = "DRAFTER_RETRIES"
DEFAULT_TIMEOUT = 300.0
DEFAULT_RETRIES = 5
#: Longer than any sane single request; a typo of an extra digit is caught.
MAX_TIMEOUT = 24 * 3600.0
MAX_RETRIES = 20


def request_timeout() -> float:
    """$DRAFTER_REQUEST_TIMEOUT in seconds (> 0), else :data:`DEFAULT_TIMEOUT`."""
    raw = os.environ.get(ENV_TIMEOUT)
    if raw is None or not raw.strip():
        return DEFAULT_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not (0 < value <= MAX_TIMEOUT):
        raise ValueError(
            f"{ENV_TIMEOUT} must be a number of seconds above 0 and at most "
            f"{MAX_TIMEOUT:g}, not {raw!r}"
        )
    return value


def retry_count() -> int:
    """$DRAFTER_RETRIES (a whole number 0..20), else :data:`DEFAULT_RETRIES`."""
    raw = os.environ.get(ENV_RETRIES)
    if raw is None or not raw.strip():
        return DEFAULT_RETRIES
    try:
        value = int(raw.strip())
    except ValueError:
        value = -1
    if not 0 <= value <= MAX_RETRIES:
        raise ValueError(
            f"{ENV_RETRIES} must be a whole number from 0 to {MAX_RETRIES}, not {raw!r}"
        )
    return value


def retry_policy() -> RetryPolicy:
    """The retry policy the environment asks for (ValueError for a bad setting)."""
    return RetryPolicy(max_attempts=retry_count() + 1, base_delay=retry_base_seconds())
