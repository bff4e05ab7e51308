"""What a provider is: a name, its key and endpoint variables, and how its transport
(:class:`Transport`, the tool loop's seam) is built."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from graph.jsontypes import JsonDict

if TYPE_CHECKING:  # the SDK loads with a transport, not with the registry
    from anthropic.types import Message

    from drafter.price import Price
    from graph.proposers.providers.retry import RetryPolicy


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


@dataclass(frozen=True)
class TransportSettings:
    """What building a transport needs from the run and the process (never stored)."""

    api_key: str | None
    base_url: str | None
    timeout: float
    retry: RetryPolicy
    #: With a context window (a local server): a request the server refuses as invalid
    #: rejects its item rather than stopping the run.
    windowed: bool = False


@dataclass(frozen=True)
class Provider:
    """One model provider: its name, its key and how to build its transport."""

    name: str
    #: The environment variable holding its API key.
    key_env: str
    #: The environment variable the SDK reads the endpoint from, when none is given.
    base_url_env: str
    #: Builds the transport (imports the provider's SDK).
    make_transport: Callable[[TransportSettings], Transport]
    #: Its published prices by exact model ID (each row with its source); a model not
    #: here has no price unless the analyst gives one.
    prices: Mapping[str, Price] = field(default_factory=dict)
