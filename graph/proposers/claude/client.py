"""The Anthropic client and the retry policy around it.

The SDK's own retries are switched off (``max_retries=0``) and done here instead, so
the policy is explicit and testable: 429 waits what ``retry-after`` (or
``retry-after-ms``) says, capped; 5xx and 529 overloaded back off exponentially with
jitter from a configurable base (tests use a tiny base); connection errors and
timeouts are retried the same way.  A rejected key is bad input, not a crash.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, Protocol, TypeVar

import anthropic
import httpx2
from anthropic.types import Message

from drafter.errors import BadInput, DrafterError
from graph.jsontypes import JsonDict

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


def call_with_retries(fn: Callable[[], T], policy: RetryPolicy, url: str | None = None) -> T:
    last: Exception | None = None
    for attempt in range(policy.max_attempts):
        try:
            return fn()
        except anthropic.AuthenticationError as exc:
            raise BadInput("the Anthropic API rejected the key (ANTHROPIC_API_KEY)") from exc
        except anthropic.APIStatusError as exc:
            if exc.status_code not in RETRYABLE_STATUS:
                raise ModelUnavailable(
                    f"model request refused: HTTP {exc.status_code}: {exc.message}"
                ) from exc
            last = exc
            wait = retry_after(exc.response.headers)
            delay = (
                min(wait, policy.max_retry_after) if wait is not None else policy.backoff(attempt)
            )
        except anthropic.APIConnectionError as exc:  # includes APITimeoutError
            why = None if isinstance(exc, anthropic.APITimeoutError) else unreachable(exc)
            if why is not None:
                raise ModelUnavailable(
                    f"cannot reach the model at {url or 'the API endpoint'} ({why}); check "
                    "ANTHROPIC_BASE_URL and the network, or draft without a model: --offline"
                ) from exc
            last = exc
            delay = policy.backoff(attempt)
        if attempt + 1 < policy.max_attempts:
            policy.waits.append(delay)
            policy.sleep(delay)
    raise ModelUnavailable(f"model unavailable after {policy.max_attempts} attempts: {last}")


def make_client(
    api_key: str | None,
    *,
    http_client: httpx2.Client | None = None,
    timeout: float = 300.0,
) -> anthropic.Anthropic:
    """An SDK client with our retry policy in charge (``max_retries=0``)."""
    to = httpx2.Timeout(timeout, connect=10.0)
    return anthropic.Anthropic(
        api_key=api_key,
        http_client=http_client or httpx2.Client(timeout=to),
        max_retries=0,
        timeout=to,
    )


class Transport(Protocol):
    """The seam between the tool loop and a model provider (graph.proposers.providers).

    The loop speaks the Messages API's format: a request of ``system``, ``tools``,
    ``tool_choice`` and ``messages``, answered by a turn of text and ``tool_use``
    blocks, a ``stop_reason`` and ``usage`` with the cache fields.  A transport sends
    such a request to its provider, retries included, and returns such a turn; the
    Anthropic transport passes both through, another provider's translates both ways.
    The journal keys and stores the loop's format, so a resumed run is answered the
    same whatever the provider.  An invalid request is :class:`RequestRefused`; an
    endpoint that stays unavailable, :class:`ModelUnavailable`."""

    @property
    def url(self) -> str: ...

    def send(self, request: JsonDict) -> Message: ...


class RequestRefused(ModelUnavailable):
    """The endpoint refused a request as invalid (HTTP 400): sending it again would not
    help; with a context window it rejects its item, not the run."""


@dataclass
class AnthropicTransport:
    """The Messages API through the anthropic SDK: the loop's format as it is."""

    client: anthropic.Anthropic
    retry: RetryPolicy = field(default_factory=RetryPolicy)

    @property
    def url(self) -> str:
        return str(self.client.base_url)

    def send(self, request: JsonDict) -> Message:
        try:
            msg: Message = call_with_retries(
                lambda: self.client.messages.create(**request), self.retry, url=self.url
            )
            return msg
        except ModelUnavailable as exc:
            if isinstance(exc.__cause__, anthropic.BadRequestError):
                raise RequestRefused(str(exc)) from exc.__cause__
            raise
