"""What a provider is: a name, its key and endpoint variables, and how its transport
(:class:`graph.proposers.claude.client.Transport`, the loop's seam) is built."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the SDK loads with a transport, not with the registry
    from graph.proposers.claude.client import RetryPolicy, Transport


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
