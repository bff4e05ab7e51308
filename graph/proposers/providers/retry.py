"""The retry policy every model transport runs under, and the errors it ends in.

The SDKs' own retries are switched off (``max_retries=0``) and done here instead, so
the policy is explicit, testable and the same for every provider: 429 waits what
``retry-after`` (or ``retry-after-ms``) says, capped; 5xx and 529 overloaded back off
exponentially with jitter from a configurable base (tests use a tiny base); timeouts
and dropped connections are retried the same way.  An endpoint that cannot be reached
at all, a rejected key and an invalid request are not retried.  The SDKs this serves
(anthropic, openai) raise the same shapes of error, named per SDK in :class:`SdkErrors`.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

import httpx2

from drafter.errors import BadInput, DrafterError

T = TypeVar("T")

RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504, 529})


class ModelUnavailable(DrafterError):
    """The model kept failing after every retry; the run can be resumed later."""

    exit_code = 1


@dataclass
class RetryPolicy:
    max_attempts: int = 6
    base_delay: float = 1.0
    max_delay: float = 30.0
    max_retry_after: float = 120.0
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)
    #: Every wait taken, in order (tests and the run log read it).
    waits: list[float] = field(default_factory=list, repr=False)

    def backoff(self, attempt: int) -> float:
        raw = min(self.max_delay, self.base_delay * (2.0**attempt))  # int ** int types as Any
        return raw * (0.5 + random.random() / 2)


def retry_after(headers: Any) -> float | None:
    """Seconds the server asks us to wait, from ``retry-after-ms`` or ``retry-after``."""
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def unreachable(exc: BaseException) -> str | None:
    """Why the endpoint cannot be reached at all (refused, unknown host), else None.

    Such an error will not heal in the next half minute of backoff, so it is not
    retried; timeouts and dropped connections are."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, httpx2.ConnectError) and not isinstance(
            cause, httpx2.TimeoutException
        ):
            return str(cause) or type(cause).__name__
        cause = cause.__cause__ or cause.__context__
    return None


class RequestRefused(ModelUnavailable):
    """The endpoint refused a request as invalid (HTTP 400): sending it again would not
    help; with a context window it rejects its item, not the run."""


@dataclass(frozen=True)
class SdkErrors:
    """One SDK's exception classes, and what its refusals say to the analyst."""

    auth: type[Exception]
    status: type[Exception]
    connection: type[Exception]
    timeout: type[Exception]
    #: The one line a rejected key gives (names the key's variable).
    bad_key: str
    #: Where to look when the endpoint cannot be reached (its setting or variable).
    endpoint_hint: str


def call_with_retries(
    fn: Callable[[], T], policy: RetryPolicy, errors: SdkErrors, url: str | None = None
) -> T:
    """``fn()`` under ``policy``: its answer, or the error a failure ends in."""
    last: Exception | None = None
    for attempt in range(policy.max_attempts):
        try:
            return fn()
        except errors.auth as exc:
            raise BadInput(errors.bad_key) from exc
        except errors.status as exc:
            status, message = getattr(exc, "status_code", 0), getattr(exc, "message", "")
            if status == 400:
                raise RequestRefused(f"model request refused: HTTP 400: {message}") from exc
            if status not in RETRYABLE_STATUS:
                raise ModelUnavailable(f"model request refused: HTTP {status}: {message}") from exc
            last = exc
            wait = retry_after(getattr(getattr(exc, "response", None), "headers", None))
            delay = (
                min(wait, policy.max_retry_after) if wait is not None else policy.backoff(attempt)
            )
        except errors.connection as exc:  # the SDKs' timeouts are connection errors too
            why = None if isinstance(exc, errors.timeout) else unreachable(exc)
            if why is not None:
                raise ModelUnavailable(
                    f"cannot reach the model at {url or 'the API endpoint'} ({why}); check "
                    f"{errors.endpoint_hint}, or draft without a model: --offline"
                ) from exc
            last = exc
            delay = policy.backoff(attempt)
        if attempt + 1 < policy.max_attempts:
            policy.waits.append(delay)
            policy.sleep(delay)
    raise ModelUnavailable(f"model unavailable after {policy.max_attempts} attempts: {last}")
