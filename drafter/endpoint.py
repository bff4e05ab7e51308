"""How long to wait for a model endpoint, and how often to try again.

Why in the core: the drafting path and the judged eval both talk to the same
Anthropic-compatible endpoint and must read the same two settings the same way;
neither may import the other, so the settings live here.

- ``DRAFTER_REQUEST_TIMEOUT`` (seconds, default 300): how long one request may take.
- ``DRAFTER_RETRIES`` (default 5): further attempts after a timeout, a dropped
  connection, a 429 or a 5xx.

A bad value is a ValueError naming the variable (the commands make it exit 2).
"""

from __future__ import annotations

from drafter.config import env_number

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
