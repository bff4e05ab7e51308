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

A bad value is bad input: one line naming the variable, exit 2.  Both are read in
the core (:mod:`drafter.endpoint`), where the judged eval reads them too.
"""

from __future__ import annotations

from drafter.endpoint import DEFAULT_RETRIES as DEFAULT_RETRIES
from drafter.endpoint import DEFAULT_TIMEOUT as DEFAULT_TIMEOUT
from drafter.endpoint import ENV_RETRIES as ENV_RETRIES
from drafter.endpoint import ENV_TIMEOUT as ENV_TIMEOUT
from drafter.endpoint import request_timeout as request_timeout
from drafter.endpoint import retry_count as retry_count
from graph.configuration import retry_base_seconds
from graph.proposers.providers.retry import RetryPolicy


def retry_policy() -> RetryPolicy:
    """The retry policy the environment asks for (ValueError for a bad setting)."""
    return RetryPolicy(max_attempts=retry_count() + 1, base_delay=retry_base_seconds())
