"""The Anthropic provider: the Messages API through the ``anthropic`` SDK."""

from __future__ import annotations

from typing import TYPE_CHECKING

from graph.proposers.providers.transport import Provider, TransportSettings

if TYPE_CHECKING:
    from graph.proposers.providers.transport import Transport


def _transport(s: TransportSettings) -> Transport:
    from graph.proposers.claude.client import AnthropicTransport, make_client

    client = make_client(s.api_key, timeout=s.timeout)
    if s.base_url:  # else the SDK reads $ANTHROPIC_BASE_URL (proxies, local servers)
        client = client.with_options(base_url=s.base_url)
    return AnthropicTransport(client, s.retry)


PROVIDER = Provider("anthropic", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", _transport)
