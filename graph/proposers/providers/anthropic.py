"""The Anthropic provider: the Messages API through the ``anthropic`` SDK.

The SDK's own retries are switched off (``max_retries=0``): the transport runs under
drafter's retry policy (:mod:`graph.proposers.providers.retry`), as every provider's
does.  The SDK is imported with the transport, not with the registry.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from drafter.price_table import PRICES
from graph.jsontypes import JsonDict
from graph.proposers.providers.retry import RetryPolicy, SdkErrors, call_with_retries
from graph.proposers.providers.transport import Provider, TransportSettings

if TYPE_CHECKING:
    import anthropic
    import httpx2
    from anthropic.types import Message

    from graph.proposers.providers.transport import Transport


def _errors() -> SdkErrors:
    """The anthropic SDK's errors, and what a refusal of this provider says."""
    import anthropic

    return SdkErrors(
        auth=anthropic.AuthenticationError,
        status=anthropic.APIStatusError,
        connection=anthropic.APIConnectionError,
        timeout=anthropic.APITimeoutError,
        bad_key="the Anthropic API rejected the key (ANTHROPIC_API_KEY)",
        endpoint_hint="ANTHROPIC_BASE_URL and the network",
    )


def make_client(
    api_key: str | None,
    *,
    http_client: httpx2.Client | None = None,
    timeout: float = 300.0,
) -> anthropic.Anthropic:
    """An SDK client with our retry policy in charge (``max_retries=0``)."""
    import anthropic
    import httpx2

    to = httpx2.Timeout(timeout, connect=10.0)
    return anthropic.Anthropic(
        api_key=api_key,
        http_client=http_client or httpx2.Client(timeout=to),
        max_retries=0,
        timeout=to,
    )


@dataclass
class AnthropicTransport:
    """The Messages API through the anthropic SDK: the loop's format as it is."""

    client: anthropic.Anthropic
    retry: RetryPolicy = field(default_factory=RetryPolicy)

    @property
    def url(self) -> str:
        return str(self.client.base_url)

    def send(self, request: JsonDict) -> Message:
        msg: Message = call_with_retries(
            lambda: self.client.messages.create(**request), self.retry, _errors(), url=self.url
        )
        return msg


def _transport(s: TransportSettings) -> Transport:
    client = make_client(s.api_key, timeout=s.timeout)
    if s.base_url:  # else the SDK reads $ANTHROPIC_BASE_URL (proxies, local servers)
        client = client.with_options(base_url=s.base_url)
    return AnthropicTransport(client, s.retry)


PROVIDER = Provider(
    "anthropic", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", _transport, prices=PRICES
)
