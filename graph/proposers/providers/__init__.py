"""Model providers, registered by name: the one place that knows which exist.

A provider is a :class:`Provider` published under the entry-point group
``drafter.providers`` (as commands are under ``drafter.commands``), so a new one is a
module and a line in ``pyproject.toml``; the CLI, the factory, pricing and the exit
rule ask :func:`provider` and never name one.  Reading the group loads no provider
module: a provider's SDK is imported only when its transport is built.
"""

from __future__ import annotations

from importlib.metadata import entry_points

from drafter.errors import BadInput
from drafter.providers import DEFAULT, GROUP
from graph.proposers.providers.transport import Provider, TransportSettings

__all__ = ["DEFAULT", "GROUP", "Provider", "TransportSettings", "names", "provider"]

#: GROUP: where providers are registered; DEFAULT: the provider a run uses when it
#: names none (runs checkpointed before providers were named are Anthropic runs).


def names() -> list[str]:
    """The registered provider names, sorted (cheap: reads package metadata only)."""
    return sorted({ep.name for ep in entry_points(group=GROUP)})


def provider(name: str) -> Provider:
    """The provider registered as ``name``; an unknown name is bad input."""
    for ep in entry_points(group=GROUP):
        if ep.name == name:
            found = ep.load()
            if not isinstance(found, Provider):
                raise TypeError(f"entry point {ep.value} is not a Provider")
            return found
    known = ", ".join(names()) or "none"
    raise BadInput(f"unknown provider {name!r} (registered: {known})")
