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

from drafter.config import env_number
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
    return env_number(
        ENV_TIMEOUT,
        DEFAULT_TIMEOUT,
        float,
        lambda v: 0 < v <= MAX_TIMEOUT,
        f"a number of seconds above 0 and at most {MAX_TIMEOUT:g}",
    )


def retry_count() -> int:
    """$DRAFTER_RETRIES (a whole number 0..20), else :data:`DEFAULT_RETRIES`."""
    return env_number(
        ENV_RETRIES,
        DEFAULT_RETRIES,
        lambda raw: int(raw.strip()),
        lambda v: 0 <= v <= MAX_RETRIES,
        f"a whole number from 0 to {MAX_RETRIES}",
    )


def retry_policy() -> RetryPolicy:
    """The retry policy the environment asks for (ValueError for a bad setting)."""
    return RetryPolicy(max_attempts=retry_count() + 1, base_delay=retry_base_seconds())
